package missci

import (
	"fmt"
	"sort"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/report"
)

// ReconstructionTable renders reconstruction results (one row per name, e.g.
// per k or per seed) as a typed table.
func ReconstructionTable(id, title string, names []string, rs []Reconstruction) *report.Table {
	t := &report.Table{ID: id, Title: title, Columns: report.Cols("run", "k", "R_i", "P@k (HasPositive)", "Arg@k", "micro-F1", "macro-F1", "samples-F1")}
	for i, r := range rs {
		k := "all"
		if r.K > 0 {
			k = fmt.Sprint(r.K)
		}
		t.Rows = append(t.Rows, []report.Cell{report.T(names[i]), report.T(k), report.I(r.Lines), report.F(r.HasPositive, 4), report.F(r.ArgK, 4),
			report.F(r.MicroF1, 4), report.F(r.MacroF1, 4), report.F(r.SamplesF1, 4)})
	}
	return t
}

// PerClassTable renders per-class precision, recall and F1.
func PerClassTable(r Reconstruction) *report.Table {
	t := &report.Table{ID: "per_class", Title: "Per-class scores", Columns: report.Cols("class", "support", "precision", "recall", "F1"),
		Charts: []report.Chart{{Kind: "bars", Title: "Per-class F1", Label: []int{0}, Value: 4}}}
	for _, c := range r.PerClass {
		t.Rows = append(t.Rows, []report.Cell{report.T(c.Label), report.I(c.Support), report.F(c.Precision, 4), report.F(c.Recall, 4), report.F(c.F1, 4)})
	}
	return t
}

// ArgTTable renders Arg@t.
func ArgTTable(r Reconstruction) *report.Table {
	t := &report.Table{ID: "arg_t", Title: "Arg@t: share of arguments with at least t of their reasoning lines correct", Columns: report.Cols("t", "Arg@t"),
		Charts: []report.Chart{{Kind: "bars", Title: "Arg@t", Label: []int{0}, Value: 1}}}
	var ts []int
	for k := range r.ArgT {
		ts = append(ts, k)
	}
	sort.Ints(ts)
	for _, k := range ts {
		t.Rows = append(t.Rows, []report.Cell{report.T(fmt.Sprintf("%d %%", k)), report.F(r.ArgT[k], 4)})
	}
	return t
}

// Namespace of Missci calls in the cache.
const Namespace = "missci"

type lineMeta struct{ Line string }

// ReconstructionPlan makes one job per reasoning line with a gen_cls or
// cls_without_premise template.
func ReconstructionPlan(args []Argument, template string, spec llm.Spec, temperature *float64, maxTokens int) (engine.Plan, error) {
	tpl, err := Template(template)
	if err != nil {
		return engine.Plan{}, err
	}
	var jobs []engine.Job
	for _, a := range args {
		for _, l := range a.Lines {
			prompt, err := Fill(template, tpl, a.Claim, l.Context, a.P0, "")
			if err != nil {
				return engine.Plan{}, fmt.Errorf("%s: %w", l.ID, err)
			}
			req := llm.UserPrompt("", prompt)
			req.Temperature, req.MaxTokens = temperature, maxTokens
			jobs = append(jobs, engine.Job{ID: l.ID, Namespace: Namespace + "/" + template, Spec: spec, Request: req, Meta: lineMeta{l.ID}})
		}
	}
	return engine.SlicePlan("missci "+template, jobs), nil
}

// LineOf returns the reasoning-line id of a plan result.
func LineOf(r engine.Result) (string, bool) {
	m, ok := r.Job.Meta.(lineMeta)
	return m.Line, ok
}
