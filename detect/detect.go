// Package detect holds fallacy detectors behind one interface: a TF-IDF +
// multinomial logistic-regression model trained in Go, a zero-shot LLM
// (typed and binary prompts), and external detectors (an HTTP endpoint or a
// predictions file). A detector labels each text with one of a label set —
// for the Scheme Foils audit, the eight types or "none".
package detect

import "context"

// Input is one text to classify.
type Input struct {
	ID      string `json:"id"`
	Text    string `json:"text"`
	Context string `json:"context,omitempty"`
}

// Prediction is a detector's answer for one input. Parsed is false when the
// detector's output could not be mapped to a label (LLM detectors); such
// items are excluded from every denominator and counted.
type Prediction struct {
	ID     string `json:"id"`
	Label  string `json:"label"`
	Parsed bool   `json:"parsed"`
	Raw    string `json:"raw,omitempty"`
	// CallKey is the cache key of the call that answered (LLM detectors).
	CallKey string `json:"-"`
}

// Detector labels inputs.
type Detector interface {
	// Name identifies the detector in reports.
	Name() string
	// Detect labels every input, in order.
	Detect(ctx context.Context, in []Input) ([]Prediction, error)
}
