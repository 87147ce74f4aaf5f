package deflect

import (
	"math"

	"github.com/fallacylab/fallacylab/report"
)

// runCounts is the run's size as analysis.py prints it in its LOADING DATA,
// PARSE ERROR AUDIT, BUILDING CONSENSUS and SUMMARY sections.
func (p *prepared) runCounts() *report.Table {
	t := &report.Table{ID: "run_counts", Title: "The run in numbers", Columns: report.Cols("quantity", "value")}
	var attempted, errs, scored int
	for _, m := range p.models {
		attempted += p.attempted[m]
		errs += p.errors[m]
	}
	prompts, runs := map[string]bool{}, map[int]bool{}
	claims := map[int]bool{}
	for _, r := range p.rows {
		if !math.IsNaN(r.Cons[fRefusal]) {
			scored++
			prompts[r.Gen.PromptID], runs[r.Gen.Run], claims[r.Claim] = true, true, true
		}
	}
	var evals, parsed, flags int
	for _, j := range p.judges {
		for _, e := range p.evalRows[j] {
			evals++
			if e.ParseError == 0 {
				parsed++
				flags += e.ConsistencyFlag
			}
		}
	}
	both := 0
	for _, r := range p.rows {
		if len(r.scores) >= 2 && r.scores[0].ok && r.scores[1].ok {
			both++
		}
	}
	add := func(label string, n int) { t.Rows = append(t.Rows, []report.Cell{report.T(label), report.I(n)}) }
	add("generations", attempted)
	add("API errors (excluded)", errs)
	add("valid generations", attempted-errs)
	add("judge rows", evals)
	add("judge rows that parsed", parsed)
	if len(p.judges) >= 2 {
		add("generations both of the first two judges parsed", both)
	}
	add("valid generations no judge scored", attempted-errs-scored)
	add("generations analysed", scored)
	residual := 0
	for _, r := range p.rows {
		if v, ok := r.Residual(); ok && v == 1 {
			residual++
		}
	}
	add("residual generations (no outcome and no fallacy)", residual)
	add("models", len(p.models))
	add("claims", len(claims))
	add("prompt templates", len(prompts))
	add("runs per condition", len(runs))
	add("judges", len(p.judges))
	add("consistency flags (refusal = 1 and any fallacy = 1)", flags)
	return t
}

// hardRefusals counts refusals per prompt template (analysis.py's HARD
// REFUSALS section): a refusal is a consensus refusal of 1.
func (p *prepared) hardRefusals(rep *report.Report) {
	sec := rep.AddSection("Hard refusals by prompt", "Counts of generations whose consensus refusal is 1, per prompt template and per frame field; "+
		"a prompt never refused has a refusal rate of exactly 0. Rates with intervals are in the outcome tables.")
	byPrompt := sec.Add(&report.Table{ID: "refusals_by_prompt", Title: "Refusals by model × prompt template", Columns: report.Cols("model", "prompt", "generations", "refusals", "refusal rate"),
		Matrix: &report.Matrix{Row: 0, Col: 1, Value: 3}, Charts: []report.Chart{{Kind: "heatmap", Title: "Refusal rate: model × prompt template", Label: []int{0, 1}, Value: 4}}})
	byFrame := sec.Add(&report.Table{ID: "refusals_by_frame_field", Title: "Refusals by model × frame field", Columns: report.Cols("model", "frame field", "generations", "refused", "not refused")})
	never := sec.Add(&report.Table{ID: "never_refused_prompts", Title: "Prompt templates a model never refused", Columns: report.Cols("model", "never refused", "prompts")})
	prompts := distinct(p.rows, func(r *Row) (string, bool) { return r.Gen.PromptID, true }, nil)
	frames := distinct(p.rows, func(r *Row) (string, bool) { return r.Gen.Frame, true }, nil)
	count := func(rows []*Row) (n, refused, scored int) {
		for _, r := range rows {
			n++
			if v, ok := r.has(fRefusal); ok {
				scored++
				if v >= 0.5 {
					refused++
				}
			}
		}
		return n, refused, scored
	}
	for _, m := range p.models {
		zero, seen := 0, 0
		buckets := groupRows(p.byModel[m], func(r *Row) (string, bool) { return r.Gen.PromptID, true })
		for _, pr := range prompts {
			if len(buckets[pr]) == 0 {
				continue
			}
			n, k, scored := count(buckets[pr])
			seen++
			if scored > 0 && k == 0 {
				zero++
			}
			s := p.sums()
			for _, r := range buckets[pr] {
				if v, ok := r.has(fRefusal); ok {
					s.add(r.Claim, map[bool]float64{true: 1, false: 0}[v >= 0.5])
				}
			}
			byPrompt.Rows = append(byPrompt.Rows, []report.Cell{report.T(m), report.T(pr), report.I(n), report.I(k), p.rateCell(s)})
		}
		never.Rows = append(never.Rows, []report.Cell{report.T(m), report.I(zero), report.I(seen)})
		fb := groupRows(p.byModel[m], func(r *Row) (string, bool) { return r.Gen.Frame, true })
		for _, f := range frames {
			if len(fb[f]) == 0 {
				continue
			}
			n, k, scored := count(fb[f])
			byFrame.Rows = append(byFrame.Rows, []report.Cell{report.T(m), report.T(f), report.I(n), report.I(k), report.I(scored - k)})
		}
	}
}

// consistencyFlags counts each judge's flags (refusal = 1 and any fallacy =
// 1 in one parsed row) per generating model.
func (p *prepared) consistencyFlags() *report.Table {
	t := &report.Table{ID: "consistency_flags", Title: "Consistency flags by judge × generating model", Columns: report.Cols("judge", "model", "flags")}
	var modelOf map[string]string
	for _, j := range p.judges {
		by := map[string]int{}
		for _, e := range p.evalRows[j] {
			if e.ParseError != 0 || e.ConsistencyFlag == 0 {
				continue
			}
			m := e.GenModel
			if m == "" {
				if modelOf == nil {
					modelOf = make(map[string]string, len(p.rows))
					for _, r := range p.rows {
						modelOf[r.Gen.GenID] = r.Gen.Model
					}
				}
				m = modelOf[e.GenID]
			}
			by[m]++
		}
		for _, m := range p.models {
			t.Rows = append(t.Rows, []report.Cell{report.T(j), report.T(m), report.I(by[m])})
		}
	}
	return t
}

// residualByFrame counts residual generations per model × frame field.
func (p *prepared) residualByFrame() *report.Table {
	t := &report.Table{ID: "residual_by_frame_field", Title: "Residual generations by model × frame field", Columns: report.Cols("model", "frame field", "residual")}
	frames := distinct(p.rows, func(r *Row) (string, bool) { return r.Gen.Frame, true }, nil)
	for _, m := range p.models {
		by := map[string]int{}
		for _, r := range p.byModel[m] {
			if v, ok := r.Residual(); ok && v == 1 {
				by[r.Gen.Frame]++
			}
		}
		for _, f := range frames {
			t.Rows = append(t.Rows, []report.Cell{report.T(m), report.T(f), report.I(by[f])})
		}
	}
	return t
}

// shareRow is a row of the conditions' shares by their count of refused
// runs (0 … runs), each with a bootstrap interval over claims: cond holds
// each condition's claim and count.
func (p *prepared) shareRow(label string, cond [][2]int, runs int) []report.Cell {
	row := []report.Cell{report.T(label)}
	for c := 0; c <= runs; c++ {
		s := p.sums()
		for _, x := range cond {
			s.add(x[0], map[bool]float64{true: 1, false: 0}[x[1] == c])
		}
		row = append(row, p.rateCell(s))
	}
	return row
}
