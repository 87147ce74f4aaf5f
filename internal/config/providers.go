package config

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/llm/anthropic"
	"github.com/fallacylab/fallacylab/llm/gemini"
	"github.com/fallacylab/fallacylab/llm/openai"
	"github.com/fallacylab/fallacylab/scorer"
)

// MissingKeyError says which environment variable a provider's key is read from.
type MissingKeyError struct {
	Provider string
	Env      string
}

// Error says which variable to set.
func (e *MissingKeyError) Error() string {
	return fmt.Sprintf("missing API key for %s: set %s (export %s=…)", e.Provider, e.Env, e.Env)
}

// Provider builds the provider for an endpoint name, reading its key from the
// environment. A missing key is an error that names the variable to set.
func (c *Config) Provider(name string, client *http.Client) (llm.Provider, error) {
	if name == scorer.Name {
		// A scorer is named by its URL (the model of scorer:URL), not by
		// an endpoint.
		return scorer.Provider{}, nil
	}
	ep, ok := c.Endpoints[name]
	if !ok {
		where := "fallacylab.yaml"
		if c.Source != "" {
			where = c.Source
		}
		return nil, fmt.Errorf("unknown provider %q: use one of %s, or add it under endpoints: in %s with a base_url",
			name, strings.Join(c.Names(), ", "), where)
	}
	// An endpoint that names no variable reads NAME_API_KEY, the one its
	// missing-key error names: that error told the user of an endpoint
	// "local" to set LOCAL_API_KEY, which was then never read.
	keyEnv := ep.APIKeyEnv
	if keyEnv == "" {
		keyEnv = llm.KeyEnv(name)
	}
	key := os.Getenv(keyEnv)
	if key == "" && ep.Type == "gemini" {
		key = os.Getenv("GOOGLE_API_KEY")
	}
	if key == "" && !ep.KeyOptional {
		return nil, &MissingKeyError{Provider: name, Env: keyEnv}
	}
	if key != "" && ep.Type != "anthropic" && ep.Type != "gemini" && llm.URLHasUser(ep.BaseURL) {
		// An OpenAI-compatible endpoint sends its key as a Bearer token in
		// the Authorization header, where the URL's user:password goes as
		// Basic authentication: one of the two would silently not be sent.
		return nil, fmt.Errorf("endpoints.%s: base_url carries user:password (sent as Basic authentication) and the endpoint has a key (%s, sent as a Bearer token): both take the Authorization header — keep one (for a server behind a password: key_optional: true and no key)", name, keyEnv)
	}
	switch ep.Type {
	case "anthropic":
		return anthropic.New(anthropic.Config{Name: name, BaseURL: ep.BaseURL, APIKey: key, KeyEnv: keyEnv, HTTPClient: client,
			PromptCache: ep.PromptCache}), nil
	case "gemini":
		return gemini.New(gemini.Config{Name: name, BaseURL: ep.BaseURL, APIKey: key, KeyEnv: keyEnv, HTTPClient: client}), nil
	default:
		return openai.New(openai.Config{Name: name, BaseURL: ep.BaseURL, APIKey: key, KeyEnv: keyEnv, HTTPClient: client,
			Native: name == "openai" && ep.BaseURL == ""}), nil
	}
}

// sdkBaseEnv are the variables the official SDKs read for their base URL
// when none is configured.
var sdkBaseEnv = map[string]string{"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL", "gemini": "GOOGLE_GEMINI_BASE_URL"}

// BaseURL is the base URL an endpoint's calls actually go to: the
// configured one, else the SDK's variable, else "" (the SDK's default).
func (c *Config) BaseURL(name string) string {
	ep, ok := c.Endpoints[name]
	if !ok {
		return ""
	}
	if ep.BaseURL != "" {
		return ep.BaseURL
	}
	if env := sdkBaseEnv[ep.Type]; env != "" && name == ep.Type {
		return os.Getenv(env)
	}
	return ""
}

// Identity is what the cache key records of an endpoint: "" for a built-in
// endpoint at its default address (so stores keep their answers), else its
// normalised base URL — the same model at another server is another call.
func (c *Config) Identity(name string) string {
	if ep := c.Endpoints[name]; ep.CacheAs != "" {
		return "as:" + ep.CacheAs
	}
	// Its secrets are masked: they never reach a stored key document, and
	// a new password for the same server is the same endpoint.
	base := NormalizeURL(llm.RedactURL(c.BaseURL(name)))
	if base == "" {
		return ""
	}
	if d, ok := Builtin()[name]; ok && NormalizeURL(d.BaseURL) == base {
		return ""
	}
	return base
}

// NormalizeURL lower-cases scheme and host, drops a default port and
// trailing slashes; "" stays "".
func NormalizeURL(raw string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return strings.TrimRight(raw, "/")
	}
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	if (u.Scheme == "http" && u.Port() == "80") || (u.Scheme == "https" && u.Port() == "443") {
		u.Host = u.Hostname()
	}
	u.Path = strings.TrimRight(u.Path, "/")
	return u.String()
}
