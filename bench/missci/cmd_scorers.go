package missci

import (
	"context"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/llm"
)

// scorers builds the premise scorers of --embedder and --scorer, both
// called through the session's engine; a dry run calls neither.
func scorers(ctx context.Context, s bench.Session, embedder, url string) (Scorers, error) {
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
	score, err := s.Scorer(ctx, url)
	if err != nil {
		return x, err
	}
	if score != nil {
		x.Score = func(pairs []Pair) ([]map[string]float64, error) {
			in := make([]llm.ScorePair, len(pairs))
			for i, p := range pairs {
				in[i] = llm.ScorePair{Reference: p.Gold, Prediction: p.Pred}
			}
			return score(in)
		}
	}
	return x, nil
}
