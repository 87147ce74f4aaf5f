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
		return nil, fmt.Errorf("scorer %s: %w", c.URL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scorer %s: HTTP %d", c.URL, resp.StatusCode)
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
