package missci

import (
	"context"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/compare"
	"github.com/fallacylab/fallacylab/store"
)

var _ bench.Compares = Task{}

// Arms implements bench.Compares for reconstruction runs: the run's model
// and template, P@1 line by line (the first prediction's class is one of
// the line's gold classes; an argument's lines move together, the argument
// is the cluster) and Arg@1 argument by argument (one of its lines right
// at rank 1).
func (Task) Arms(ctx context.Context, env bench.Env, run store.Run) ([]bench.Arm, error) {
	rec, err := LoadRecord(ctx, env.Records, run.ID)
	if err != nil {
		return nil, err
	}
	args, err := Load(rec.Split)
	if err != nil {
		return nil, err
	}
	p1 := compare.Metric{Name: "P@1", Binary: true, Unit: "argument"}
	arg1 := compare.Metric{Name: "Arg@1", Binary: true, Unit: "argument"}
	calls, answers := map[string][]string{}, map[string]string{}
	for _, a := range args {
		hit, seen := 0.0, false
		for _, l := range a.Lines {
			list, ok := rec.Preds[l.ID]
			if !ok {
				continue // not in this run (a selection)
			}
			seen = true
			v := 0.0
			if len(list) > 0 {
				answers[l.ID] = list[0].Class
				if contains(l.Classes(), list[0].Class) {
					v, hit = 1, 1
				}
			}
			p1.Items = append(p1.Items, compare.Item{ID: l.ID, Cluster: a.ID, Value: v})
			if k := rec.CallKeys[l.ID]; k != "" {
				calls[l.ID] = []string{k}
				calls[a.ID] = append(calls[a.ID], k)
			}
		}
		if seen {
			arg1.Items = append(arg1.Items, compare.Item{ID: a.ID, Cluster: a.ID, Value: hit})
		}
	}
	return []bench.Arm{{Model: rec.Source, Metrics: []compare.Metric{p1, arg1}, Calls: calls, Answers: answers}}, nil
}
