package deflect

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/compare"
	"github.com/fallacylab/fallacylab/judge"
	"github.com/fallacylab/fallacylab/store"
)

var _ bench.Compares = Task{}

// comparedFields are the outcome rates a comparison tests (the paper's
// headline rates), by rubric field.
var comparedFields = []struct {
	name  string
	field int
}{{"refusal", fRefusal}, {"soft refusal", fSoft}, {"labelled compliance", fLabeled}, {"clean compliance", fClean}}

// Arms implements bench.Compares: one arm per generator model of the run,
// each generation (a claim × prompt × sample) scored 1 where the judges'
// consensus (any) marks the field; a generation whose field the judges
// left undefined is left out. The claim is the cluster: a claim's frames
// and samples move together in the bootstrap and the sign-flip test.
func (Task) Arms(ctx context.Context, env bench.Env, run store.Run) ([]bench.Arm, error) {
	ds, err := LoadRecords(ctx, env.Records, run.ID)
	if err != nil {
		return nil, err
	}
	rows, judgeNames, err := Rows(ds, judge.Any)
	if err != nil {
		return nil, err
	}
	by := map[string][]compare.Metric{}
	calls := map[string]map[string][]string{}
	extra := map[string]map[string]map[string]float64{}
	for _, r := range rows {
		g := r.Gen
		ms := by[g.Model]
		if ms == nil {
			for _, f := range comparedFields {
				ms = append(ms, compare.Metric{Name: f.name, Binary: true, Unit: "claim"})
			}
		}
		id := fmt.Sprintf("%s/%s/%d", g.ClaimID, g.PromptID, g.Run)
		if g.CallKey != "" {
			if calls[g.Model] == nil {
				calls[g.Model] = map[string][]string{}
			}
			calls[g.Model][id] = []string{g.CallKey}
		}
		if x := judgeFields(r, judgeNames); len(x) > 0 {
			if extra[g.Model] == nil {
				extra[g.Model] = map[string]map[string]float64{}
			}
			extra[g.Model][id] = x
		}
		for i, f := range comparedFields {
			v := r.Cons[f.field]
			if math.IsNaN(v) {
				continue
			}
			x := 0.0
			if v >= 0.5 {
				x = 1
			}
			ms[i].Items = append(ms[i].Items, compare.Item{ID: id, Cluster: g.ClaimID, Value: x})
		}
		by[g.Model] = ms
	}
	judges := slices.Sorted(slices.Values(judgeNames))
	models := make([]string, 0, len(by))
	for m := range by {
		models = append(models, m)
	}
	sort.Strings(models)
	pool := embeddedPool(rows)
	var out []bench.Arm
	for _, m := range models {
		out = append(out, bench.Arm{Model: m, Metrics: by[m], Calls: calls[m], Judges: judges, Extra: extra[m], Pool: pool})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("run %d has no judged generations to compare", run.ID)
	}
	return out, nil
}

// judgeFields are each judge's rubric fields of a generation, named
// "<judge> <field>" (a field the judge left out is left out).
func judgeFields(r *Row, judges []string) map[string]float64 {
	out := map[string]float64{}
	for j, sc := range r.scores {
		if !sc.ok || j >= len(judges) {
			continue
		}
		for i, f := range Fields {
			if v := sc.v[i]; v != judge.Missing {
				out[judges[j]+" "+f] = float64(v)
			}
		}
	}
	return out
}

// embeddedPool is how many claims the run drew from: the embedded 80
// where every claim of its rows is one of them (a pilot's, or a --limit's),
// else 0 (the user's claims, whose file the run does not keep).
func embeddedPool(rows []*Row) int {
	b, err := Default()
	if err != nil {
		return 0
	}
	ids := map[string]bool{}
	for _, c := range b.Claims {
		ids[c.ID] = true
	}
	for _, r := range rows {
		if !ids[r.Gen.ClaimID] {
			return 0
		}
	}
	return len(b.Claims)
}
