package foils

import (
	"context"
	"fmt"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/compare"
	"github.com/fallacylab/fallacylab/store"
)

var _ bench.Compares = Task{}

// Arms implements bench.Compares: one arm per audit of the run (a
// detector, or one of its seeds), each item flagged (1) or not (0) as the
// audit counts it — the false-positive rate on the corpus's own valid
// items (native) and on the scheme-matched valid arguments, and the flag
// rate on the wrong-scheme ones; unparsed predictions are left out, as
// the audit leaves them out of every denominator. Items are independent
// (the unit is the item).
func (Task) Arms(ctx context.Context, env bench.Env, run store.Run) ([]bench.Arm, error) {
	audits, err := LoadAudits(ctx, env.Records, run.ID)
	if err != nil {
		return nil, err
	}
	names := map[string]string{Native: "native FPR", Matched: "matched FPR", WrongScheme: "wrong-scheme flag rate"}
	var out []bench.Arm
	for _, a := range audits {
		calls, answers := map[string][]string{}, map[string]string{}
		by := map[string]*compare.Metric{}
		var metrics []compare.Metric
		for _, c := range []string{Native, Matched, WrongScheme} {
			metrics = append(metrics, compare.Metric{Name: names[c], Binary: true, Unit: "item", LowerIsBetter: c != WrongScheme})
		}
		for i, c := range []string{Native, Matched, WrongScheme} {
			by[c] = &metrics[i]
		}
		for _, d := range a.Detections {
			m, ok := by[d.Condition]
			if !ok || d.Pred == Unparsed {
				continue
			}
			v := 0.0
			if d.Pred != None {
				v = 1
			}
			m.Items = append(m.Items, compare.Item{ID: d.ID, Cluster: d.ID, Value: v})
			if d.CallKey != "" {
				calls[d.ID] = []string{d.CallKey}
			}
			answers[d.ID] = d.Pred
		}
		model := a.Detector
		if a.SeedLabel != "" {
			model += " " + a.SeedLabel
		}
		out = append(out, bench.Arm{Model: model, Metrics: metrics, Calls: calls, Answers: answers})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("run %d holds no audit", run.ID)
	}
	return out, nil
}
