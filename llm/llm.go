// Package llm defines the provider-neutral request and response types that every
// model adapter speaks, the Provider interface, model specs ("provider:model"),
// error classification and the price table.
//
// Adapters live in sibling packages (llm/openai, llm/anthropic, llm/gemini) and
// import only this package; the engine composes them.
package llm

import (
	"context"
	"time"
)

// Message is one turn of a conversation. Role is "user" or "assistant".
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Schema asks the provider for structured output that validates against a JSON
// schema. Name is a short identifier (OpenAI requires one); Schema is the JSON
// schema document.
type Schema struct {
	Name   string         `json:"name"`
	Schema map[string]any `json:"schema"`
}

// Request is everything that is sent to a model. A nil Temperature means "use the
// provider's default" and is distinct from an explicit 0.
type Request struct {
	System      string    `json:"system,omitempty"`
	Messages    []Message `json:"messages"`
	Temperature *float64  `json:"temperature,omitempty"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
	Seed        *int64    `json:"seed,omitempty"`
	Stop        []string  `json:"stop,omitempty"`
	Schema      *Schema   `json:"schema,omitempty"`
	// Embed makes the request an embeddings request: the texts to embed
	// (no messages), answered with one vector each (Response.Vectors) by
	// a provider that is an Embedder.
	Embed []string `json:"embed,omitempty"`
	// Score makes the request a scoring request: pairs of texts a scorer
	// service rates (docs/scorer-protocol.md), answered with one set of
	// named scores each (Response.Scores) by a provider that is a Scorer.
	Score []ScorePair `json:"score,omitempty"`
}

// ScorePair is a reference text and a prediction a scorer rates.
type ScorePair struct {
	Reference  string `json:"reference"`
	Prediction string `json:"prediction"`
}

// Temp returns a pointer to t, for Request.Temperature.
func Temp(t float64) *float64 { return &t }

// UserPrompt builds a single-turn request with an optional system prompt.
func UserPrompt(system, prompt string) Request {
	return Request{System: system, Messages: []Message{{Role: "user", Content: prompt}}}
}

// Usage counts tokens as reported by the provider. ReasoningTokens is the part of
// OutputTokens spent on hidden reasoning, where the provider reports it.
type Usage struct {
	InputTokens     int64 `json:"input_tokens"` // all input tokens, cached ones included
	OutputTokens    int64 `json:"output_tokens"`
	ReasoningTokens int64 `json:"reasoning_tokens,omitempty"`
	// CachedInputTokens of InputTokens were read from the provider's prompt
	// cache; CacheWriteTokens were written to it (Anthropic). Both are priced
	// apart when the price table knows how.
	CachedInputTokens int64 `json:"cached_input_tokens,omitempty"`
	CacheWriteTokens  int64 `json:"cache_write_tokens,omitempty"`
}

// Total is input plus output tokens.
func (u Usage) Total() int64 { return u.InputTokens + u.OutputTokens }

// Response is what a model returned. Notes records every adaptation the adapter
// made to the request (for example a reasoning model that rejects temperature),
// so nothing is changed silently.
type Response struct {
	Text         string        `json:"text"`
	FinishReason string        `json:"finish_reason"`
	Usage        Usage         `json:"usage"`
	RequestID    string        `json:"request_id,omitempty"`
	Latency      time.Duration `json:"latency_ns"`
	Notes        []string      `json:"notes,omitempty"`
	// Vectors answer an embeddings request (Request.Embed), one per text.
	Vectors [][]float64 `json:"vectors,omitempty"`
	// Scores answer a scoring request (Request.Score), one set per pair.
	Scores []map[string]float64 `json:"scores,omitempty"`
}

// Scorer is a provider that rates pairs of texts (a BERTScore or NLI
// service speaking the scorer protocol): the engine sends it the requests
// that ask for scores. Like Generate, Score must not retry.
type Scorer interface {
	Score(ctx context.Context, model string, pairs []ScorePair) ([]map[string]float64, error)
}

// Embedder is a provider with an embeddings endpoint (OpenAI's
// /v1/embeddings and the servers that speak it): the engine sends it the
// requests that ask for embeddings. Like Generate, Embed must not retry.
type Embedder interface {
	Embed(ctx context.Context, model string, texts []string) ([][]float64, Usage, error)
}

// Provider sends one request to one model. Implementations must not retry: the
// engine owns retries, rate limits and caching. Errors should be *Error values
// (see Classify) so the engine can tell retryable from permanent failures.
type Provider interface {
	// Name is the provider name as written in model specs ("openai", "ollama", …).
	Name() string
	// Generate sends req to model and returns the model's answer.
	Generate(ctx context.Context, model string, req Request) (Response, error)
}

// BatchItem is one request inside a provider batch. CustomID identifies it in
// the results (the engine uses the cache key).
type BatchItem struct {
	CustomID string
	Model    string
	Request  Request
}

// BatchResult is the outcome of one BatchItem.
type BatchResult struct {
	CustomID string
	Response Response
	Err      error
}

// BatchState is the provider's view of a submitted batch.
type BatchState struct {
	ID     string
	Status string // provider's own status word
	Done   bool   // results can be fetched (or the batch ended without them)
	Failed bool   // the batch as a whole failed, expired or was cancelled
}

// BatchLimiter is implemented by batchers whose API caps a batch: the engine
// never builds a batch with more than maxItems requests or, counting each
// request's canonical JSON, more than maxBytes (0: no cap).
type BatchLimiter interface {
	BatchLimits() (maxItems int, maxBytes int64)
}

// BatchFinder is implemented by batchers that can look a batch up by the
// token it was submitted with. The engine uses it after a submission whose
// outcome is unknown (the process died, or the answer was lost), so that a
// batch the provider accepted is polled, not paid for twice.
type BatchFinder interface {
	FindBatch(ctx context.Context, token string) (id string, found bool, err error)
}

// Batcher is implemented by providers with an asynchronous batch API.
type Batcher interface {
	// SubmitBatch uploads items and returns the provider's batch id. token
	// is the client's name for the batch; providers that can store it with
	// the batch do, so a BatchFinder can find the batch if the answer to
	// this call is lost.
	SubmitBatch(ctx context.Context, token string, items []BatchItem) (string, error)
	// PollBatch reports the state of a submitted batch.
	PollBatch(ctx context.Context, id string) (BatchState, error)
	// BatchResults streams every result of a finished batch to fn.
	BatchResults(ctx context.Context, id string, fn func(BatchResult) error) error
}
