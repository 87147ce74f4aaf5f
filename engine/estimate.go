package engine

import (
	"encoding/json"
	"sync"

	"github.com/fallacylab/fallacylab/llm"
)

// DefaultOutputGuess is the output-token estimate for a request without
// MaxTokens before any answer from that model has been seen.
const DefaultOutputGuess = 512

// estimator predicts a call's tokens before it is sent, and learns from actual
// usage: the input estimate (characters/4) is scaled by the observed ratio of
// actual to estimated input tokens, and the output estimate becomes the mean
// observed output when the request sets no MaxTokens.
type estimator struct {
	mu       sync.Mutex
	ratio    float64 // EMA of actual/estimated input tokens
	outMean  float64
	outCount int
}

func newEstimator() *estimator { return &estimator{ratio: 1} }

func rawInputTokens(r llm.Request) float64 {
	n := len(r.System)
	for _, m := range r.Messages {
		n += len(m.Content) + 16
	}
	for _, t := range r.Embed {
		n += len(t)
	}
	for _, p := range r.Score {
		n += len(p.Reference) + len(p.Prediction)
	}
	return float64(n)/4 + 8
}

// estimateJob is estimate, with the job's answer shape standing in for a
// schema the request does not enforce.
func (e *estimator) estimateJob(j Job) (in, out int64) {
	r := j.Request
	if r.Schema == nil && j.Shape != nil {
		r.Schema = &llm.Schema{Schema: j.Shape}
	}
	return e.estimate(r)
}

// WorstOutputTokens is the most output a call without max_tokens is
// reserved for against a budget.
const WorstOutputTokens = 8192

// worstCase is what a job may cost at most, in tokens: its prompt (at
// most a token a byte: inputBound) and every output token it allows (max_tokens, or
// WorstOutputTokens without one). A budget reserves this before the call.
func (e *estimator) worstCase(j Job) (in, out int64) {
	in = inputBound(j.Request)
	if len(j.Request.Embed) > 0 || len(j.Request.Score) > 0 {
		return in, 0 // embeddings and scores answer no tokens
	}
	out = int64(j.Request.MaxTokens)
	if out <= 0 {
		out = WorstOutputTokens
	}
	return in, out
}

// inputBound is the most input tokens a request can be billed for, whatever
// its text: byte-level BPE tokenisers (OpenAI's, Anthropic's) and
// SentencePiece with byte fallback (Gemini's) never make more tokens than
// the text has bytes, so a token a byte holds for any UTF-8 text — CJK
// included, which tokenises at about a token a character (3 bytes), far
// above the 4 bytes a token the estimate assumes — plus each message's
// framing and the schema a structured answer sends along.
func inputBound(r llm.Request) int64 {
	n := len(r.System) + 16
	for _, m := range r.Messages {
		n += len(m.Content) + 16
	}
	for _, t := range r.Embed {
		n += len(t) + 4
	}
	for _, p := range r.Score {
		n += len(p.Reference) + len(p.Prediction) + 8
	}
	if r.Schema != nil {
		if b, err := json.Marshal(r.Schema.Schema); err == nil {
			n += len(b)
		}
	}
	return int64(n)
}

// estimate returns the predicted input and output tokens.
func (e *estimator) estimate(r llm.Request) (in, out int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	in = int64(rawInputTokens(r)*e.ratio + 0.5)
	switch {
	case len(r.Embed) > 0 || len(r.Score) > 0:
		out = 0 // embeddings and scores answer no tokens
	case r.MaxTokens > 0 && e.outCount > 0:
		out = int64(min(float64(r.MaxTokens), e.outMean) + 0.5)
	case e.outCount > 0:
		out = int64(e.outMean + 0.5)
	case r.Schema != nil:
		out = SchemaOutputGuess(r.Schema.Schema)
		if r.MaxTokens > 0 {
			out = min(out, int64(r.MaxTokens))
		}
	case r.MaxTokens > 0:
		out = int64(r.MaxTokens)
	default:
		out = DefaultOutputGuess
	}
	return in, out
}

// SchemaOutputGuess is the output tokens of an answer shaped by a JSON
// schema, before any such answer was seen: each property's key and
// punctuation (about len/4 + 3 tokens), a token for a number, boolean or
// enum value, 60 for a free-text string (a judge's reasoning is a sentence
// or three), 20 for a list, nested objects alike. An 8-field rubric with
// its reasoning comes to about 125 tokens, where the flat default is 512.
func SchemaOutputGuess(schema map[string]any) int64 {
	var value func(v map[string]any) int64
	value = func(v map[string]any) int64 {
		if _, ok := v["enum"]; ok {
			return 1
		}
		switch v["type"] {
		case "string":
			return 60
		case "array":
			return 20
		case "object":
			n := int64(4)
			props, _ := v["properties"].(map[string]any)
			for k, p := range props {
				pm, _ := p.(map[string]any)
				n += int64(len(k))/4 + 3 + value(pm)
			}
			return n
		}
		return 1
	}
	return value(schema)
}

// seed starts the output estimate from n earlier answers with the given mean.
func (e *estimator) seed(mean float64, n int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if n > 0 {
		e.outMean, e.outCount = mean, n
	}
}

// observe corrects the estimator with a call's actual usage.
func (e *estimator) observe(r llm.Request, u llm.Usage) {
	if u.InputTokens <= 0 {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ratio = 0.9*e.ratio + 0.1*(float64(u.InputTokens)/rawInputTokens(r))
	e.outCount++
	e.outMean += (float64(u.OutputTokens) - e.outMean) / float64(e.outCount)
}
