package cli

import (
	"context"
	"fmt"

	"github.com/fallacylab/fallacylab/bench/missci"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/scorer"
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

// scorers builds the premise scorers of --embedder (needs the session s)
// and --scorer; a dry run calls neither.
func scorers(ctx context.Context, g *Global, s *session, embedder, url string) (missci.Scorers, error) {
	var x missci.Scorers
	if embedder != "" {
		e, err := embedderFor(ctx, s, embedder)
		if err != nil {
			return x, err
		}
		x.Embed = e
	}
	if url = scorerFor(g, url); url != "" {
		c := scorer.Client{URL: url}
		x.Score = func(pairs []missci.Pair) ([]map[string]float64, error) {
			in := make([]scorer.Pair, len(pairs))
			for i, p := range pairs {
				in[i] = scorer.Pair{Reference: p.Gold, Prediction: p.Pred}
			}
			return c.Score(ctx, in)
		}
	}
	return x, nil
}

// scorerFor is --scorer, except in a dry run, which calls no scorer.
func scorerFor(g *Global, url string) string {
	if g.DryRun && url != "" {
		fmt.Fprintf(g.Stderr, "note: dry run: --scorer %s is not called\n", url)
		return ""
	}
	return url
}
