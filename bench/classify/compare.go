package classify

import (
	"context"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/compare"
	"github.com/fallacylab/fallacylab/store"
)

var _ bench.Compares = Task{}

// Arms implements bench.Compares: a run's one model, each text right (1)
// or wrong (0) — an answer naming no label, or a failed call, is wrong, as
// accuracy counts it; texts are independent (the cluster is the text).
func (Task) Arms(ctx context.Context, env bench.Env, run store.Run) ([]bench.Arm, error) {
	setup, preds, err := Load(ctx, env.Records, run.ID)
	if err != nil {
		return nil, err
	}
	m := compare.Metric{Name: "accuracy", Binary: true, Unit: "text"}
	answers := map[string]string{}
	for _, p := range preds {
		answers[p.ID] = p.Pred
		if p.Failed != "" {
			answers[p.ID] = "(failed: " + p.Failed + ")"
		} else if p.Pred == "" {
			answers[p.ID] = NoLabel
		}
		v := 0.0
		if p.Failed == "" && p.Pred != "" && p.Pred == p.Gold {
			v = 1
		}
		m.Items = append(m.Items, compare.Item{ID: p.ID, Cluster: p.ID, Value: v})
	}
	calls, err := bench.CallsOf(ctx, env.Records, run.ID, KindPrediction)
	if err != nil {
		return nil, err
	}
	// The corpus is the design: an accuracy on LOGIC is not one on Reddit.
	return []bench.Arm{{Model: setup.Model, Metrics: []compare.Metric{m}, Calls: calls, Answers: answers, Design: setup.Corpus, Pool: setup.Texts}}, nil
}
