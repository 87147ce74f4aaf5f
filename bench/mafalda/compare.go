package mafalda

import (
	"context"
	"fmt"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/compare"
	"github.com/fallacylab/fallacylab/store"
)

var _ bench.Compares = Task{}

// Arms implements bench.Compares: a run's one model, each text's span F1
// and label F1 at each level the run has (upstream's released metric);
// the text is the unit.
func (Task) Arms(ctx context.Context, env bench.Env, run store.Run) ([]bench.Arm, error) {
	setup, recs, sc, err := loadScored(ctx, env.Records, run.ID)
	if err != nil {
		return nil, err
	}
	calls := map[string][]string{}
	for _, r := range recs {
		id := fmt.Sprintf("t%03d", r.Index)
		for _, a := range r.Answers {
			if a.CallKey != "" {
				calls[id] = append(calls[id], a.CallKey)
			}
		}
	}
	var metrics []compare.Metric
	for lv := 2; lv >= 0; lv-- {
		if len(sc.Results) == 0 || !sc.Results[0].Has[lv] {
			continue
		}
		span := compare.Metric{Name: fmt.Sprintf("span F1, level %d", lv), Unit: "text"}
		label := compare.Metric{Name: fmt.Sprintf("label F1, level %d", lv), Unit: "text"}
		for i, r := range sc.Results {
			id := fmt.Sprintf("t%03d", recs[i].Index)
			span.Items = append(span.Items, compare.Item{ID: id, Cluster: id, Value: r.Span[lv].F1})
			label.Items = append(label.Items, compare.Item{ID: id, Cluster: id, Value: r.Label[lv].F1})
		}
		metrics = append(metrics, span, label)
	}
	return []bench.Arm{{Model: setup.Model, Metrics: metrics, Calls: calls, Pool: setup.Texts}}, nil
}
