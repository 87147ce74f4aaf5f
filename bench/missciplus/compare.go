package missciplus

import (
	"context"
	"fmt"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/compare"
	"github.com/fallacylab/fallacylab/store"
)

var _ bench.Compares = Task{}

// Arms implements bench.Compares for subtasks 1 and 2: a run's ranker (or
// model), each argument's scores — P@1 and MRR (subtask 1), P@1 and mAP
// (subtask 2) — averaged over the run's seeds (a pairwise run: of its
// ranking after the last iteration); the argument is the unit. P@1 is a
// rate (binary) when the run has one ranking per argument.
func (Task) Arms(ctx context.Context, env bench.Env, run store.Run) ([]bench.Arm, error) {
	setup, rankings, err := LoadRun(ctx, env.Records, run.ID)
	if err != nil {
		return nil, err
	}
	if setup.Subtask == 3 {
		return nil, fmt.Errorf("subtask 3 runs do not compare item by item yet (subtasks 1 and 2 do)")
	}
	all, scored, err := setup.Arguments()
	if err != nil {
		return nil, err
	}
	// Pool: the arguments of the split a run scores (subtask 1: those whose
	// p0 a passage states), which a --limit run took some of.
	pool := 0
	for _, a := range all {
		if setup.Subtask != 1 || a.HasMappedP0() {
			pool++
		}
	}
	if setup.Iterations > 0 && len(rankings) > 0 {
		// A pairwise run's groups are its ranking after each iteration:
		// the run's ranking is the last (the earlier ones settle fewer
		// places), not their mean.
		rankings = rankings[len(rankings)-1:]
	}
	names := map[int][]string{1: {"P@1", "MRR"}, 2: {"P@1", "mAP"}}[setup.Subtask]
	sum := map[string][]float64{}
	var order []string
	for _, rk := range rankings {
		sc, err := Score(setup.Subtask, scored, rk, setup.Full)
		if err != nil {
			return nil, err
		}
		for i, id := range sc.IDs {
			if sum[id] == nil {
				sum[id] = make([]float64, len(names))
				order = append(order, id)
			}
			for k, n := range names {
				sum[id][k] += sc.Rows[i][indexOf(sc.Names, n)]
			}
		}
	}
	var metrics []compare.Metric
	for k, n := range names {
		m := compare.Metric{Name: n, Unit: "argument", Binary: n == "P@1" && len(rankings) == 1}
		for _, id := range order {
			m.Items = append(m.Items, compare.Item{ID: id, Cluster: id, Value: sum[id][k] / float64(len(rankings))})
		}
		metrics = append(metrics, m)
	}
	model := setup.Ranker
	if setup.Model != "" {
		model = setup.Model
	}
	return []bench.Arm{{Model: model, Metrics: metrics, Design: fmt.Sprintf("subtask %d", setup.Subtask), Pool: pool}}, nil
}

func indexOf(names []string, n string) int {
	for i, x := range names {
		if x == n {
			return i
		}
	}
	return -1
}
