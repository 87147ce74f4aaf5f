package llm

import "strings"

// Price is the cost in US dollars per million input and output tokens.
type Price struct {
	Input  float64 `yaml:"input" json:"input"`
	Output float64 `yaml:"output" json:"output"`
}

// Prices maps "provider:model" (or a bare model name) to its price.
type Prices map[string]Price

// DefaultPrices are list prices of common models (USD per 1M tokens, standard
// tier, as published by the providers). Users override or extend them with the
// `prices:` section of the config. Local endpoints cost nothing only when the
// user says so; an unknown model has an unknown price, never $0.
func DefaultPrices() Prices {
	return Prices{
		"openai:gpt-4.1":               {2.00, 8.00},
		"openai:gpt-4.1-mini":          {0.40, 1.60},
		"openai:gpt-4.1-nano":          {0.10, 0.40},
		"openai:gpt-4o":                {2.50, 10.00},
		"openai:gpt-4o-mini":           {0.15, 0.60},
		"openai:o3":                    {2.00, 8.00},
		"openai:o4-mini":               {1.10, 4.40},
		"openai:gpt-5":                 {1.25, 10.00},
		"openai:gpt-5-mini":            {0.25, 2.00},
		"openai:gpt-5-nano":            {0.05, 0.40},
		"anthropic:claude-opus-4-1":    {15.00, 75.00},
		"anthropic:claude-sonnet-4-5":  {3.00, 15.00},
		"anthropic:claude-sonnet-4":    {3.00, 15.00},
		"anthropic:claude-haiku-4-5":   {1.00, 5.00},
		"anthropic:claude-3-5-haiku":   {0.80, 4.00},
		"gemini:gemini-2.5-pro":        {1.25, 10.00},
		"gemini:gemini-2.5-flash":      {0.30, 2.50},
		"gemini:gemini-2.5-flash-lite": {0.10, 0.40},
		"deepseek:deepseek-chat":       {0.27, 1.10},
		"deepseek:deepseek-reasoner":   {0.55, 2.19},
	}
}

// Lookup finds the price of a spec: exact "provider:model", then the model with
// a dated suffix removed ("claude-haiku-4-5-20251001" → "claude-haiku-4-5"),
// then the bare model name.
func (p Prices) Lookup(s Spec) (Price, bool) {
	if pr, ok := p[s.String()]; ok {
		return pr, true
	}
	model := s.Model
	for {
		i := strings.LastIndexByte(model, '-')
		if i <= 0 {
			break
		}
		suffix := model[i+1:]
		if !isDigits(suffix) || len(suffix) < 4 {
			break
		}
		model = model[:i]
		if pr, ok := p[s.Provider+":"+model]; ok {
			return pr, true
		}
	}
	pr, ok := p[s.Model]
	return pr, ok
}

// Cost prices a usage; ok is false when the model's price is unknown.
func (p Prices) Cost(s Spec, u Usage) (cost float64, ok bool) {
	pr, ok := p.Lookup(s)
	if !ok {
		return 0, false
	}
	return (float64(u.InputTokens)*pr.Input + float64(u.OutputTokens)*pr.Output) / 1e6, true
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
