package config

import (
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/llm/anthropic"
	"github.com/fallacylab/fallacylab/llm/gemini"
	"github.com/fallacylab/fallacylab/llm/openai"
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
	ep, ok := c.Endpoints[name]
	if !ok {
		where := "fallacylab.yaml"
		if c.Source != "" {
			where = c.Source
		}
		return nil, fmt.Errorf("unknown provider %q: use one of %s, or add it under endpoints: in %s with a base_url",
			name, strings.Join(c.Names(), ", "), where)
	}
	key := ""
	if ep.APIKeyEnv != "" {
		key = os.Getenv(ep.APIKeyEnv)
		if key == "" && ep.Type == "gemini" {
			key = os.Getenv("GOOGLE_API_KEY")
		}
	}
	if key == "" && !ep.KeyOptional {
		env := ep.APIKeyEnv
		if env == "" {
			env = llm.KeyEnv(name)
		}
		return nil, &MissingKeyError{Provider: name, Env: env}
	}
	switch ep.Type {
	case "anthropic":
		return anthropic.New(anthropic.Config{Name: name, BaseURL: ep.BaseURL, APIKey: key, KeyEnv: ep.APIKeyEnv, HTTPClient: client,
			PromptCache: ep.PromptCache}), nil
	case "gemini":
		return gemini.New(gemini.Config{Name: name, BaseURL: ep.BaseURL, APIKey: key, KeyEnv: ep.APIKeyEnv, HTTPClient: client}), nil
	default:
		return openai.New(openai.Config{Name: name, BaseURL: ep.BaseURL, APIKey: key, KeyEnv: ep.APIKeyEnv, HTTPClient: client,
			Native: name == "openai" && ep.BaseURL == ""}), nil
	}
}
