package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/fallacylab/fallacylab/bench/missci"
	"github.com/fallacylab/fallacylab/llm"
)

// embedderFor builds an embeddings function from a provider:model spec whose
// endpoint speaks OpenAI's /v1/embeddings.
func embedderFor(ctx context.Context, s *session, specStr string) (missci.Embedder, error) {
	if specStr == "" {
		return nil, nil
	}
	spec, err := llm.ParseSpec(specStr)
	if err != nil {
		return nil, fmt.Errorf("--embedder: %w", err)
	}
	if s.g.DryRun {
		fmt.Fprintf(s.g.Stderr, "note: dry run: --embedder %s is not called; premises are paired lexically\n", specStr)
		return nil, nil
	}
	p, err := s.cfg.Provider(spec.Provider, nil)
	if err != nil {
		return nil, err
	}
	e, ok := p.(interface {
		Embed(ctx context.Context, model string, texts []string) ([][]float64, error)
	})
	if !ok {
		return nil, fmt.Errorf("--embedder %s: provider %s has no /v1/embeddings endpoint; use an OpenAI-compatible one", specStr, spec.Provider)
	}
	return func(texts []string) ([][]float64, error) { return e.Embed(ctx, spec.Model, texts) }, nil
}

// scorePairs sends (reference, prediction) pairs to a scorer endpoint
// (docs/scorer-protocol.md) and returns one map of metric → value per pair.
func scorePairs(ctx context.Context, url string, pairs []missci.Pair) ([]map[string]float64, error) {
	type pr struct {
		Reference  string `json:"reference"`
		Prediction string `json:"prediction"`
	}
	body := struct {
		Pairs []pr `json:"pairs"`
	}{}
	for _, p := range pairs {
		body.Pairs = append(body.Pairs, pr{p.Gold, p.Pred})
	}
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 30 * time.Minute}).Do(req)
	if err != nil {
		return nil, fmt.Errorf("scorer %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scorer %s: HTTP %d", url, resp.StatusCode)
	}
	var out struct {
		Scores []map[string]float64 `json:"scores"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("scorer %s: response is not {\"scores\": [...]}: %w", url, err)
	}
	if len(out.Scores) != len(pairs) {
		return nil, fmt.Errorf("scorer %s: %d scores for %d pairs", url, len(out.Scores), len(pairs))
	}
	return out.Scores, nil
}

// scorerFor is --scorer, except in a dry run, which calls no scorer.
func scorerFor(g *Global, url string) string {
	if g.DryRun && url != "" {
		fmt.Fprintf(g.Stderr, "note: dry run: --scorer %s is not called\n", url)
		return ""
	}
	return url
}
