// Package config loads fallacylab.yaml: provider endpoints, API-key variable
// names, rate limits and prices. The file never holds keys themselves — only
// the names of the environment variables that do — so a config snapshot can be
// stored with every run.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/fallacylab/fallacylab/decode"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/scorer"
	"gopkg.in/yaml.v3"
)

// FileName is the config file looked for in the working directory and in
// $XDG_CONFIG_HOME/fallacylab/.
const FileName = "fallacylab.yaml"

// Endpoint is one provider name usable in model specs.
type Endpoint struct {
	// Type is the wire protocol: "openai" (also every OpenAI-compatible
	// server), "anthropic" or "gemini". Default "openai".
	Type string `yaml:"type" json:"type"`
	// BaseURL of the API; empty for the provider's public endpoint.
	BaseURL string `yaml:"base_url" json:"base_url,omitempty"`
	// APIKeyEnv names the environment variable holding the key.
	APIKeyEnv string `yaml:"api_key_env" json:"api_key_env,omitempty"`
	// KeyOptional allows running without a key (local servers).
	KeyOptional bool `yaml:"key_optional" json:"key_optional,omitempty"`
	// PromptCache (Anthropic) marks system prompts for the provider's prompt
	// cache: repeated rubrics are billed at the cache-read price.
	PromptCache bool `yaml:"prompt_cache" json:"prompt_cache,omitempty"`
	// CacheAs names the server in cache keys instead of its base URL: the
	// same model server moved to another address keeps its cached answers.
	CacheAs string `yaml:"cache_as" json:"cache_as,omitempty"`
}

// Limits are per-provider traffic limits; zero means the default.
type Limits struct {
	Concurrency int     `yaml:"concurrency" json:"concurrency,omitempty"`
	RPM         float64 `yaml:"rpm" json:"rpm,omitempty"`
	TPM         float64 `yaml:"tpm" json:"tpm,omitempty"`
}

// Config is the parsed configuration file merged over the built-in defaults.
type Config struct {
	Endpoints map[string]Endpoint  `yaml:"endpoints" json:"endpoints"`
	Limits    map[string]Limits    `yaml:"limits" json:"limits,omitempty"`
	Prices    map[string]llm.Price `yaml:"prices" json:"prices,omitempty"`
	// DB is the store to use when neither --db nor FALLACYLAB_DB names one
	// (a path, relative to the config file's folder).
	DB string `yaml:"db" json:"db,omitempty"`
	// Source is the file the config came from ("" for defaults only).
	Source string `yaml:"-" json:"source,omitempty"`
}

// Builtin endpoints: the three native providers and well-known
// OpenAI-compatible servers.
func Builtin() map[string]Endpoint {
	return map[string]Endpoint{
		"openai":     {Type: "openai", APIKeyEnv: "OPENAI_API_KEY"},
		"anthropic":  {Type: "anthropic", APIKeyEnv: "ANTHROPIC_API_KEY"},
		"gemini":     {Type: "gemini", APIKeyEnv: "GEMINI_API_KEY"},
		"ollama":     {Type: "openai", BaseURL: "http://localhost:11434/v1", KeyOptional: true},
		"vllm":       {Type: "openai", BaseURL: "http://localhost:8000/v1", APIKeyEnv: "VLLM_API_KEY", KeyOptional: true},
		"llamacpp":   {Type: "openai", BaseURL: "http://localhost:8080/v1", KeyOptional: true},
		"deepseek":   {Type: "openai", BaseURL: "https://api.deepseek.com/v1", APIKeyEnv: "DEEPSEEK_API_KEY"},
		"xai":        {Type: "openai", BaseURL: "https://api.x.ai/v1", APIKeyEnv: "XAI_API_KEY"},
		"openrouter": {Type: "openai", BaseURL: "https://openrouter.ai/api/v1", APIKeyEnv: "OPENROUTER_API_KEY"},
	}
}

// Default returns the built-in configuration.
func Default() *Config {
	return &Config{Endpoints: Builtin(), Limits: map[string]Limits{}, Prices: map[string]llm.Price{}}
}

// Locate returns the config path to use: explicit if given, else
// ./fallacylab.yaml, else $XDG_CONFIG_HOME/fallacylab/fallacylab.yaml, else "".
func Locate(explicit string) string {
	if explicit != "" {
		return explicit
	}
	if _, err := os.Stat(FileName); err == nil {
		return FileName
	}
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, ".config")
		}
	}
	if dir != "" {
		p := filepath.Join(dir, "fallacylab", FileName)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// Load reads the config at path ("" for defaults only). Unknown fields,
// endpoints without a usable type and malformed YAML are errors that name the
// file and line.
func Load(path string) (*Config, error) {
	cfg := Default()
	if path == "" {
		return cfg, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w (pass --config with an existing file, or remove the flag)", path, err)
	}
	data = decode.StripBOM(data)
	var file Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&file); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("config %s: %s", path, explainYAML(err))
	}
	cfg.Source, cfg.DB = path, file.DB
	for name, ep := range file.Endpoints {
		name = strings.ToLower(name)
		base, known := cfg.Endpoints[name]
		if known { // overriding a built-in keeps what is not restated
			if ep.Type == "" {
				ep.Type = base.Type
			}
			if ep.APIKeyEnv == "" {
				ep.APIKeyEnv = base.APIKeyEnv
			}
			if ep.BaseURL == "" {
				ep.BaseURL = base.BaseURL
			}
			ep.KeyOptional = ep.KeyOptional || base.KeyOptional
		}
		if ep.Type == "" {
			ep.Type = "openai"
		}
		switch ep.Type {
		case "openai", "anthropic", "gemini":
		default:
			return nil, fmt.Errorf("config %s: endpoints.%s.type: %q is not one of openai, anthropic, gemini", path, name, ep.Type)
		}
		if !known && ep.BaseURL == "" {
			return nil, fmt.Errorf("config %s: endpoints.%s: base_url is required for a new endpoint", path, name)
		}
		if ep.BaseURL != "" {
			if u, err := url.Parse(ep.BaseURL); err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
				// The URL is shown masked: a password that breaks parsing
				// would otherwise be printed in part.
				return nil, fmt.Errorf("config %s: endpoints.%s.base_url: %s is not an http(s) URL with a host (percent-encode any of : / ? # @ %% in a password)", path, name, llm.RedactURL(ep.BaseURL))
			}
		}
		if ep.PromptCache && ep.Type != "anthropic" {
			return nil, fmt.Errorf("config %s: endpoints.%s.prompt_cache: only anthropic endpoints take it (OpenAI and Gemini cache long prompts by themselves)", path, name)
		}
		cfg.Endpoints[name] = ep
	}
	for k, v := range file.Limits {
		cfg.Limits[strings.ToLower(k)] = v
	}
	for k, v := range file.Prices {
		for _, f := range []struct {
			name string
			v    float64
		}{{"input", v.Input}, {"output", v.Output}, {"cached_input", v.CachedInput}, {"cache_write", v.CacheWrite}} {
			// NaN compares false with everything: a budget would never
			// stop; infinity prices every call out of every budget.
			if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 {
				return nil, fmt.Errorf("config %s: prices.%s.%s: %v is not a price: want a number of dollars per million tokens, 0 or more", path, k, f.name, f.v)
			}
		}
		cfg.Prices[k] = v
	}
	return cfg, nil
}

// PriceTable returns the default prices overridden by the config's.
func (c *Config) PriceTable() llm.Prices {
	p := llm.DefaultPrices()
	// A scorer endpoint (docs/scorer-protocol.md) is the user's own: its
	// calls cost nothing, so a budget does not refuse them.
	p[scorer.Name+":*"] = llm.Price{}
	for k, v := range c.Prices {
		p[k] = v
	}
	return p
}

// Names lists the known endpoint names, sorted.
func (c *Config) Names() []string {
	var out []string
	for n := range c.Endpoints {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// yamlFields are the keys of each part of the config, for messages.
var yamlFields = map[string]any{"config.Config": Config{}, "config.Endpoint": Endpoint{}, "config.Limits": Limits{}, "llm.Price": llm.Price{}}

var yamlLine = regexp.MustCompile(`^(line \d+: )(.*)$`)

var yamlUnknown = regexp.MustCompile(`line (\d+): field (\S+) not found in type (\S+)`)

// explainYAML says what is wrong in the file's terms: the line, the unknown
// key and the keys there are, never a Go type.
func explainYAML(err error) string {
	var parts []string
	for _, line := range strings.Split(err.Error(), "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "yaml: unmarshal errors:"))
		if line == "" {
			continue
		}
		if m := yamlUnknown.FindStringSubmatch(line); m != nil {
			if v, ok := yamlFields[m[3]]; ok {
				line = fmt.Sprintf("line %s: unknown key %q: the keys there are %s", m[1], m[2], strings.Join(decode.Fields(v, "yaml"), ", "))
			}
		}
		prefix := ""
		if m := yamlLine.FindStringSubmatch(line); m != nil {
			prefix, line = m[1], m[2]
		}
		line = decode.Explain(errors.New(line), nil).Error()
		parts = append(parts, prefix+strings.TrimPrefix(line, "yaml: "))
	}
	return strings.Join(parts, "; ")
}

// Redacted is a copy of the config for the run's record: the secrets of
// its store URL and of every endpoint's base URL masked (llm.RedactURL).
func (c *Config) Redacted() *Config {
	out := *c
	out.DB = llm.RedactURL(c.DB)
	out.Endpoints = make(map[string]Endpoint, len(c.Endpoints))
	for n, ep := range c.Endpoints {
		ep.BaseURL = llm.RedactURL(ep.BaseURL)
		out.Endpoints[n] = ep
	}
	return &out
}
