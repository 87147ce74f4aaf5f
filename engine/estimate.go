package engine

import (
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
	return float64(n)/4 + 8
}

// estimate returns the predicted input and output tokens.
func (e *estimator) estimate(r llm.Request) (in, out int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	in = int64(rawInputTokens(r)*e.ratio + 0.5)
	switch {
	case r.MaxTokens > 0 && e.outCount > 0:
		out = int64(min(float64(r.MaxTokens), e.outMean) + 0.5)
	case r.MaxTokens > 0:
		out = int64(r.MaxTokens)
	case e.outCount > 0:
		out = int64(e.outMean + 0.5)
	default:
		out = DefaultOutputGuess
	}
	return in, out
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
