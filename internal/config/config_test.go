package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/internal/config"
)

func write(t *testing.T, body string) string {
	p := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(p, []byte(body), 0o644)
	return p
}

func TestLoadMergesOverBuiltins(t *testing.T) {
	p := write(t, `endpoints:
  ollama:
    base_url: http://box:11434/v1
  lab:
    base_url: http://lab/v1
    api_key_env: LAB_KEY
  anthropic:
    prompt_cache: true
limits:
  OpenAI: {concurrency: 3, rpm: 100}
prices:
  lab:big: {input: 1, output: 2, cached_input: 0.5}
`)
	c, err := config.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if ep := c.Endpoints["ollama"]; ep.BaseURL != "http://box:11434/v1" || ep.Type != "openai" || !ep.KeyOptional {
		t.Fatalf("override lost built-in fields: %+v", ep)
	}
	if c.Endpoints["lab"].Type != "openai" || c.Limits["openai"].RPM != 100 {
		t.Fatalf("%+v", c)
	}
	if ep := c.Endpoints["anthropic"]; ep.Type != "anthropic" || !ep.PromptCache || ep.APIKeyEnv != "ANTHROPIC_API_KEY" {
		t.Fatalf("prompt_cache override: %+v", ep)
	}
	if pr, ok := c.PriceTable()["lab:big"]; !ok || pr.Output != 2 || pr.CachedInput != 0.5 {
		t.Fatal("price not merged")
	}
	if _, ok := c.PriceTable()["openai:gpt-4.1"]; !ok {
		t.Fatal("default prices lost")
	}
}

func TestProviderErrors(t *testing.T) {
	c := config.Default()
	t.Setenv("DEEPSEEK_API_KEY", "")
	if _, err := c.Provider("deepseek", nil); err == nil || !strings.Contains(err.Error(), "set DEEPSEEK_API_KEY") {
		t.Fatalf("missing key: %v", err)
	}
	if _, err := c.Provider("ollama", nil); err != nil {
		t.Fatalf("keyless endpoint: %v", err)
	}
	if _, err := c.Provider("zzz", nil); err == nil || !strings.Contains(err.Error(), `unknown provider "zzz"`) {
		t.Fatalf("unknown: %v", err)
	}
	// An endpoint of the user's that names no key variable reads the one
	// its missing-key error names (before, that error said "set
	// LOCAL_API_KEY", and setting it changed nothing).
	c.Endpoints["local"] = config.Endpoint{Type: "openai", BaseURL: "http://127.0.0.1:1/v1"}
	t.Setenv("LOCAL_API_KEY", "")
	_, err := c.Provider("local", nil)
	var missing *config.MissingKeyError
	if !errors.As(err, &missing) || missing.Env != "LOCAL_API_KEY" {
		t.Fatalf("no key for local: %v", err)
	}
	t.Setenv("LOCAL_API_KEY", "sk-local-test")
	if _, err := c.Provider("local", nil); err != nil {
		t.Fatalf("with %s set, as its error said: %v", missing.Env, err)
	}
}

func TestLoadErrors(t *testing.T) {
	for body, want := range map[string]string{
		"endpoints:\n  x:\n    type: openai\n":                    "base_url is required",
		"prices:\n  m: {input: -1, output: 1}\n":                  "0 or more",
		"prices:\n  m: {input: 1, output: 1, cached_input: -1}\n": "0 or more",
		"prices:\n  m: {input: .nan, output: 1}\n":                "prices.m.input: NaN is not a price",
		"prices:\n  m: {input: 1, output: .inf}\n":                "prices.m.output: +Inf is not a price",
		"endpoints:\n  openai:\n    prompt_cache: true\n":         "endpoints.openai.prompt_cache: only anthropic",
		"endpoints: [\n": "yaml:",
		"limits:\n  openai:\n    concurrency: lots\n": "line 3",
	} {
		if _, err := config.Load(write(t, body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: want error containing %q, got %v", body, want, err)
		}
	}
}

func TestEndpointIdentity(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("ANTHROPIC_BASE_URL", "")
	c := config.Default()
	for _, n := range []string{"openai", "anthropic", "gemini", "ollama", "vllm", "deepseek"} {
		if id := c.Identity(n); id != "" {
			t.Errorf("built-in %s at its default address: identity %q, want none (stores keep their answers)", n, id)
		}
	}
	c.Endpoints["ollama"] = config.Endpoint{Type: "openai", BaseURL: "http://GPU-BOX:11434/v1/"}
	c.Endpoints["openai"] = config.Endpoint{Type: "openai", BaseURL: "https://proxy.example:443/v1"}
	c.Endpoints["mylab"] = config.Endpoint{Type: "openai", BaseURL: "http://10.0.0.5:8000/v1", CacheAs: "lab-llama"}
	for n, want := range map[string]string{"ollama": "http://gpu-box:11434/v1", "openai": "https://proxy.example/v1", "mylab": "as:lab-llama"} {
		if id := c.Identity(n); id != want {
			t.Errorf("%s: identity %q, want %q", n, id, want)
		}
	}
	// The SDKs' own base-URL variable moves the built-in endpoint too.
	c = config.Default()
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9999")
	if id, u := c.Identity("anthropic"), c.BaseURL("anthropic"); id != "http://127.0.0.1:9999" || u != "http://127.0.0.1:9999" {
		t.Fatalf("ANTHROPIC_BASE_URL: identity %q, base URL %q", id, u)
	}
}

func TestConfigErrorsSpeakYAML(t *testing.T) {
	dir := t.TempDir()
	for body, want := range map[string]string{
		"endpoints:\n  lab:\n    base_ur: http://x\n": `line 3: unknown key "base_ur": the keys there are api_key_env, base_url, cache_as, key_optional, prompt_cache, type`,
		"endpointz: {}\n":        `line 1: unknown key "endpointz": the keys there are db, endpoints, limits, prices`,
		"\xEF\xBB\xBFdb: x.db\n": "",
	} {
		p := filepath.Join(dir, "c.yaml")
		os.WriteFile(p, []byte(body), 0o644)
		_, err := config.Load(p)
		if want == "" {
			if err != nil {
				t.Fatalf("a byte-order mark: %v", err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "config.") {
			t.Errorf("%q: %v", body, err)
		}
	}
}
