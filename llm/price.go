package llm

import "strings"

// Price is the cost in US dollars per million input and output tokens.
type Price struct {
	Input  float64 `yaml:"input" json:"input"`
	Output float64 `yaml:"output" json:"output"`
	// CachedInput is the price of input tokens read from the prompt cache and
	// CacheWrite of tokens written to it; 0 means "not known": such tokens are
	// charged at Input, which never understates the cost.
	CachedInput float64 `yaml:"cached_input,omitempty" json:"cached_input,omitempty"`
	CacheWrite  float64 `yaml:"cache_write,omitempty" json:"cache_write,omitempty"`
}

// Prices maps "provider:model" (or a bare model name) to its price.
type Prices map[string]Price

// DefaultPrices are list prices of common models (USD per 1M tokens, standard
// tier, as published by the providers; cached input where the provider lists
// it: OpenAI's cached-input price, Anthropic's 5-minute cache read and write). Users override or extend them with the
// `prices:` section of the config. Local endpoints cost nothing only when the
// user says so; an unknown model has an unknown price, never $0.
func DefaultPrices() Prices {
	return Prices{
		"openai:gpt-4.1":                {Input: 2.00, Output: 8.00, CachedInput: 0.50},
		"openai:gpt-4.1-mini":           {Input: 0.40, Output: 1.60, CachedInput: 0.10},
		"openai:gpt-4.1-nano":           {Input: 0.10, Output: 0.40, CachedInput: 0.025},
		"openai:gpt-4o":                 {Input: 2.50, Output: 10.00, CachedInput: 1.25},
		"openai:gpt-4o-mini":            {Input: 0.15, Output: 0.60, CachedInput: 0.075},
		"openai:o3":                     {Input: 2.00, Output: 8.00, CachedInput: 0.50},
		"openai:o4-mini":                {Input: 1.10, Output: 4.40, CachedInput: 0.275},
		"openai:gpt-5":                  {Input: 1.25, Output: 10.00, CachedInput: 0.125},
		"openai:gpt-5-mini":             {Input: 0.25, Output: 2.00, CachedInput: 0.025},
		"openai:gpt-5-nano":             {Input: 0.05, Output: 0.40, CachedInput: 0.005},
		"anthropic:claude-opus-4-1":     {Input: 15.00, Output: 75.00, CachedInput: 1.50, CacheWrite: 18.75},
		"anthropic:claude-sonnet-4-5":   {Input: 3.00, Output: 15.00, CachedInput: 0.30, CacheWrite: 3.75},
		"anthropic:claude-sonnet-4":     {Input: 3.00, Output: 15.00, CachedInput: 0.30, CacheWrite: 3.75},
		"anthropic:claude-haiku-4-5":    {Input: 1.00, Output: 5.00, CachedInput: 0.10, CacheWrite: 1.25},
		"anthropic:claude-3-5-haiku":    {Input: 0.80, Output: 4.00, CachedInput: 0.08, CacheWrite: 1.00},
		"gemini:gemini-2.5-pro":         {Input: 1.25, Output: 10.00},
		"gemini:gemini-2.5-flash":       {Input: 0.30, Output: 2.50},
		"gemini:gemini-2.5-flash-lite":  {Input: 0.10, Output: 0.40},
		"openai:text-embedding-3-small": {Input: 0.02},
		"openai:text-embedding-3-large": {Input: 0.13},
		"deepseek:deepseek-chat":        {Input: 0.27, Output: 1.10},
		"deepseek:deepseek-reasoner":    {Input: 0.55, Output: 2.19},
	}
}

// Lookup finds the price of a spec: exact "provider:model", then the model with
// a dated suffix removed ("claude-haiku-4-5-20251001" → "claude-haiku-4-5"),
// then the bare model name, then the provider's price for every model
// ("provider:*").
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
	if pr, ok := p[s.Model]; ok {
		return pr, true
	}
	// A price for every model of a provider ("ollama:*": a local server
	// that costs nothing).
	pr, ok := p[s.Provider+":*"]
	return pr, ok
}

// Cost prices a usage; ok is false when the model's price is unknown.
func (p Prices) Cost(s Spec, u Usage) (cost float64, ok bool) {
	pr, ok := p.Lookup(s)
	if !ok {
		return 0, false
	}
	cachedPrice, writePrice := pr.CachedInput, pr.CacheWrite
	if cachedPrice == 0 {
		cachedPrice = pr.Input
	}
	if writePrice == 0 {
		writePrice = pr.Input
	}
	plain := max(u.InputTokens-u.CachedInputTokens-u.CacheWriteTokens, 0)
	return (float64(plain)*pr.Input + float64(u.CachedInputTokens)*cachedPrice + float64(u.CacheWriteTokens)*writePrice +
		float64(u.OutputTokens)*pr.Output) / 1e6, true
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
