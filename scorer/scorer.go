// Package scorer is the client of the premise-scorer protocol
// (docs/scorer-protocol.md): an endpoint of the user's that computes
// BERTScore and NLI scores for (reference, prediction) pairs, which need
// models fallacylab does not ship.
package scorer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/fallacylab/fallacylab/llm"
)

// Pair is one (reference, prediction) pair to score.
type Pair struct {
	Reference  string `json:"reference"`
	Prediction string `json:"prediction"`
}

// Client talks to one scorer endpoint.
type Client struct {
	URL  string
	HTTP *http.Client // nil: a client with a 30-minute timeout
}

// Score sends the pairs and returns one map of metric → value per pair.
func (c Client) Score(ctx context.Context, pairs []Pair) ([]map[string]float64, error) {
	if pairs == nil {
		pairs = []Pair{}
	}
	b, err := json.Marshal(struct {
		Pairs []Pair `json:"pairs"`
	}{pairs})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("scorer %s: %w", c.URL, err)
	}
	req.Header.Set("Content-Type", "application/json")
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Minute}
	}
	resp, err := hc.Do(req)
	if err != nil {
		// A scorer that is not answering yet (still loading its models)
		// may answer later: the engine tries again.
		return nil, &llm.Error{Provider: Name, Retryable: ctx.Err() == nil, Message: fmt.Sprintf("scorer %s: %v", c.URL, err), Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		busy := resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
		return nil, &llm.Error{Provider: Name, Status: resp.StatusCode, Retryable: busy, RateLimit: resp.StatusCode == http.StatusTooManyRequests,
			Message: fmt.Sprintf("scorer %s: HTTP %d", c.URL, resp.StatusCode)}
	}
	var out struct {
		Scores []map[string]float64 `json:"scores"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("scorer %s: response is not {\"scores\": [...]}: %w", c.URL, err)
	}
	if len(out.Scores) != len(pairs) {
		return nil, fmt.Errorf("scorer %s: %d scores for %d pairs", c.URL, len(out.Scores), len(pairs))
	}
	return out.Scores, nil
}

// Name is the provider name of scorer calls in the engine: a scorer job's
// model is the scorer's URL.
const Name = "scorer"

// Provider is a scorer endpoint as an engine provider (llm.Scorer): its
// calls are cached, retried, rate-limited and counted like every other.
type Provider struct {
	HTTP *http.Client // nil: Client's default
}

// Name implements llm.Provider.
func (Provider) Name() string { return Name }

// Generate implements llm.Provider: a scorer answers no prompts.
func (Provider) Generate(context.Context, string, llm.Request) (llm.Response, error) {
	return llm.Response{}, &llm.Error{Provider: Name, Message: "a scorer answers scoring requests only"}
}

// Score implements llm.Scorer: model is the scorer's URL.
func (p Provider) Score(ctx context.Context, model string, pairs []llm.ScorePair) ([]map[string]float64, error) {
	in := make([]Pair, len(pairs))
	for i, x := range pairs {
		in[i] = Pair(x)
	}
	return Client{URL: model, HTTP: p.HTTP}.Score(ctx, in)
}
