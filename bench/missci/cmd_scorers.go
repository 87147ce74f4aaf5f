package missci

import (
	"context"
	"fmt"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/scorer"
)

// scorers builds the premise scorers of --embedder (needs the session s)
// and --scorer; a dry run calls neither.
func scorers(ctx context.Context, h bench.Host, s bench.Session, embedder, url string) (Scorers, error) {
	var x Scorers
	if embedder != "" {
		e, err := s.Embedder(ctx, embedder)
		if err != nil {
			return x, err
		}
		if e != nil {
			x.Embed = e
		}
	}
	if url = scorerFor(h, url); url != "" {
		c := scorer.Client{URL: url}
		x.Score = func(pairs []Pair) ([]map[string]float64, error) {
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
func scorerFor(h bench.Host, url string) string {
	if h.Settings().DryRun && url != "" {
		fmt.Fprintf(h.Settings().Stderr, "note: dry run: --scorer %s is not called\n", url)
		return ""
	}
	return url
}
