package llm

import (
	"fmt"
	"strings"
)

// Spec names a model as "provider:model". The model part may itself contain
// colons (e.g. "ollama:llama3.1:8b"); only the first colon separates.
type Spec struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
}

// ParseSpec parses "provider:model".
func ParseSpec(s string) (Spec, error) {
	s = strings.TrimSpace(s)
	if n := len(strings.Split(s, ",")); n > 1 {
		// A comma is never part of a model's name: "a,b" is a list given to
		// a flag that takes one model, which would otherwise become one
		// model named "a,b".
		return Spec{}, fmt.Errorf("model spec %q names %d models, and this flag takes one provider:model: run once per model (deflect and prompts take several with --models)", s, n)
	}
	p, m, ok := strings.Cut(s, ":")
	if !ok || p == "" || m == "" {
		return Spec{}, fmt.Errorf("model spec %q: want provider:model, e.g. openai:gpt-4.1-mini", s)
	}
	return Spec{Provider: strings.ToLower(p), Model: m}, nil
}

// ParseSpecs parses a comma-separated list of specs; a model listed twice
// is an error (a judge would agree with itself).
func ParseSpecs(list string) ([]Spec, error) {
	var out []Spec
	seen := map[Spec]bool{}
	for _, part := range strings.Split(list, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		s, err := ParseSpec(part)
		if err != nil {
			return nil, err
		}
		if seen[s] {
			return nil, fmt.Errorf("%s is listed twice", s)
		}
		seen[s] = true
		out = append(out, s)
	}
	return out, nil
}

// String renders the spec back as "provider:model".
func (s Spec) String() string { return s.Provider + ":" + s.Model }
