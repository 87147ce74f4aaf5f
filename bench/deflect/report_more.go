package deflect

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
)

var exclusiveOutcomes = []string{"refusal", "soft_refusal", "labeled_compliance", "clean_compliance", "other"}

func (p *prepared) chiSquare(rep *report.Report) error {
	sec := rep.AddSection("χ² tests across models", "Pearson χ² without continuity correction (SPEC B.11): models × exclusive outcomes, and models × {0, 1} per field. "+
		"A column with zero total is dropped and noted. Each generation counts as independent, as in the paper; the samples and frames of one claim are not, "+
		"so these p-values are too small (fallacylab compare tests two models over claims).")
	if len(p.models) < 2 {
		sec.Intro += " Needs two models."
		return nil
	}
	t := sec.Add(&report.Table{ID: "chi2", Title: "χ² tests", Columns: report.Cols("table", "χ²", "df", "p", "note")})
	add := func(name string, tab [][]float64, cols []string) {
		r, err := stats.ChiSquare(tab, false)
		note := chiNote(r, p.models, cols)
		if err != nil {
			if note == "" {
				note = err.Error()
			}
			why := "the test is undefined here: " + note
			t.Rows = append(t.Rows, []report.Cell{report.T(name), report.NA(why), report.NA(why), report.NA(why), report.T(note)})
			return
		}
		t.Rows = append(t.Rows, []report.Cell{report.T(name), noInterval(report.F(r.Stat, 2), "a test statistic: no interval"), report.I(r.DF), noInterval(report.PV(r.P), "a p-value: no interval"), report.T(note)})
	}
	ex := make([][]float64, len(p.models))
	mi := map[string]int{}
	for i, m := range p.models {
		mi[m] = i
		ex[i] = make([]float64, len(exclusiveOutcomes))
	}
	oi := map[string]int{}
	for i, o := range exclusiveOutcomes {
		oi[o] = i
	}
	for _, r := range p.rows {
		ex[mi[r.Gen.Model]][oi[r.Exclusive()]]++
	}
	add("models × exclusive outcome", ex, exclusiveOutcomes)
	for f, name := range Fields {
		tab := make([][]float64, len(p.models))
		for i := range tab {
			tab[i] = make([]float64, 2)
		}
		for _, r := range p.rows {
			if v, ok := r.has(f); ok {
				tab[mi[r.Gen.Model]][int(math.Round(v))]++
			}
		}
		add("models × "+name, tab, []string{name + " = 0", name + " = 1"})
	}
	return nil
}

// chiNote is what a χ² test's note says, by name: the outcomes no
// generation has and the models with none judged (left out), the one
// outcome every generation has (nothing to test), and expected counts
// below 5 in more than a fifth of the cells (Cochran's rule: the χ²
// approximation is rough there).
func chiNote(r stats.ChiSquareResult, models, cols []string) string {
	var notes []string
	names := func(idx []int, of []string) []string {
		var out []string
		for _, i := range idx {
			out = append(out, of[i])
		}
		return out
	}
	if len(r.DroppedCols) > 0 {
		if len(cols)-len(r.DroppedCols) == 1 {
			for i, c := range cols {
				if !slices.Contains(r.DroppedCols, i) {
					notes = append(notes, "every judged generation has "+c+": nothing to test")
				}
			}
		} else {
			notes = append(notes, "left out, as no generation has it: "+strings.Join(names(r.DroppedCols, cols), ", "))
		}
	}
	if len(r.DroppedRows) > 0 {
		notes = append(notes, "left out, with no generation judged: "+strings.Join(names(r.DroppedRows, models), ", "))
	}
	cells := 0
	for _, row := range r.Expected {
		cells += len(row)
	}
	if cells > 0 && 5*r.SmallExpected > cells {
		notes = append(notes, fmt.Sprintf("%d of %d expected counts below 5: the χ² approximation is rough here", r.SmallExpected, cells))
	}
	return strings.Join(notes, "; ")
}

func (p *prepared) crossModel(rep *report.Report) {
	sec := rep.AddSection("Cross-model trigger overlap", "Pearson r between two models' refusal rates over (claim, prompt_id) cells, "+
		"each rate the mean over runs (SPEC B.12). NA when one model's rates are constant.")
	t := sec.Add(&report.Table{ID: "cross_model", Title: "Refusal correlation per model pair", Columns: report.Cols("model A", "model B", "cells", "r", "p")})
	cell := map[string]map[string][2]float64{} // model → cell → (sum, n)
	for _, r := range p.rows {
		v, ok := r.has(fRefusal)
		if !ok {
			continue
		}
		m := cell[r.Gen.Model]
		if m == nil {
			m = map[string][2]float64{}
			cell[r.Gen.Model] = m
		}
		k := r.Gen.ClaimID + "|" + r.Gen.PromptID
		x := m[k]
		m[k] = [2]float64{x[0] + v, x[1] + 1}
	}
	claimOf := map[string]int{}
	for i, c := range p.claims {
		claimOf[c] = i
	}
	for i, a := range p.models {
		for _, b := range p.models[i+1:] {
			var keys []string
			for k := range cell[a] {
				if _, ok := cell[b][k]; ok {
					keys = append(keys, k)
				}
			}
			sort.Strings(keys)
			x, y := make([]float64, len(keys)), make([]float64, len(keys))
			claims := make([]int, len(keys))
			for n, k := range keys {
				x[n] = cell[a][k][0] / cell[a][k][1]
				y[n] = cell[b][k][0] / cell[b][k][1]
				claims[n] = claimOf[strings.SplitN(k, "|", 2)[0]]
			}
			c, err := stats.Pearson(x, y)
			if err != nil || math.IsNaN(c.R) {
				why := c.Reason
				if err != nil {
					why = err.Error()
				}
				t.Rows = append(t.Rows, []report.Cell{report.T(a), report.T(b), report.I(len(keys)), report.NA(why), report.NA(why)})
				continue
			}
			reps, berr := p.bootItems(claims, func(idx []int) []float64 { return []float64{stats.PearsonAt(x, y, idx)} })
			t.Rows = append(t.Rows, []report.Cell{report.T(a), report.T(b), report.I(c.N), p.numCells([]float64{c.R}, reps, berr, 3)[0],
				noInterval(report.PV(c.P), "a p-value: no interval")})
		}
	}
}

func (p *prepared) volatility(rep *report.Report) {
	sec := rep.AddSection("Run-level volatility", "Per (model, claim, prompt): m = the mean over runs; volatile = 0.1 < m < 0.9, always = m ≥ 0.9, never = m ≤ 0.1 (SPEC B.14).")
	t := sec.Add(&report.Table{ID: "volatility", Title: "Volatility of refusal and clean compliance", Columns: report.Cols("model", "outcome", "conditions", "volatile", "always", "never")})
	runs := max(1, p.samples)
	hist := &report.Table{ID: "refusal_count_histogram", Title: "Conditions by number of refused runs"}
	labels := []string{"model"}
	for k := 0; k <= runs; k++ {
		labels = append(labels, strconv.Itoa(k))
	}
	hist.Columns = report.Cols(labels...)
	shares := &report.Table{ID: "refusal_count_shares", Title: "Share of conditions by number of refused runs", Columns: hist.Columns}
	for _, m := range p.models {
		for _, o := range []struct {
			l string
			f int
		}{{"refusal", fRefusal}, {"clean compliance", fClean}} {
			cond := map[string][3]float64{} // sum, n, claim
			for _, r := range p.byModel[m] {
				if v, ok := r.has(o.f); ok {
					k := r.Gen.ClaimID + "|" + r.Gen.PromptID
					x := cond[k]
					cond[k] = [3]float64{x[0] + v, x[1] + 1, float64(r.Claim)}
				}
			}
			vol, alw, nev := p.sums(), p.sums(), p.sums()
			counts := make([]int, runs+1)
			var byCount [][2]int
			for _, x := range cond {
				mean, c := x[0]/x[1], int(x[2])
				one := func(b bool) float64 { return map[bool]float64{true: 1, false: 0}[b] }
				alw.add(c, one(mean >= 0.9))
				nev.add(c, one(mean < 0.9 && mean <= 0.1))
				vol.add(c, one(mean < 0.9 && mean > 0.1))
				if o.f == fRefusal {
					k := min(runs, int(math.Round(x[0])))
					counts[k]++
					byCount = append(byCount, [2]int{c, k})
				}
			}
			n := len(cond)
			t.Rows = append(t.Rows, []report.Cell{report.T(m), report.T(o.l), report.I(n), p.rateCell(vol), p.rateCell(alw), p.rateCell(nev)})
			if o.f == fRefusal {
				row := []report.Cell{report.T(m)}
				for _, c := range counts {
					row = append(row, report.I(c))
				}
				hist.Rows = append(hist.Rows, row)
				shares.Rows = append(shares.Rows, p.shareRow(m, byCount, runs))
			}
		}
	}
	sec.Add(hist)
	sec.Add(shares)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

func (p *prepared) verbosity(rep *report.Report) {
	sec := rep.AddSection("Verbosity", "Output tokens as reported by the API (reasoning tokens included for reasoning models), SPEC B.15.")
	p.describeTokens(sec.Add(&report.Table{ID: "tokens_describe", Title: "Output tokens by model"}), nil)
	p.describeTokens(sec.Add(&report.Table{ID: "tokens_soft_refusal", Title: "Output tokens of soft refusals by model"}),
		func(r *Row) bool { return r.Cons[fSoft] >= 0.5 })
	meanBy := func(id, title, label string, key func(*Row) string, values []string) {
		t := sec.Add(&report.Table{ID: id, Title: title, Columns: report.Cols("model", label, "n", "mean output tokens")})
		for _, m := range p.models {
			buckets := groupRows(p.byModel[m], func(r *Row) (string, bool) { return key(r), true })
			for _, v := range values {
				s := p.sums()
				for _, r := range buckets[v] {
					s.add(r.Claim, float64(r.Gen.OutputTokens))
				}
				if n := s.n(); n > 0 {
					t.Rows = append(t.Rows, []report.Cell{report.T(m), report.T(v), report.I(n), p.meanCell(s, 1)})
				}
			}
		}
	}
	meanBy("tokens_by_outcome", "Mean output tokens by model × exclusive outcome", "outcome", (*Row).Exclusive, exclusiveOutcomes)
	meanBy("tokens_by_frame", "Mean output tokens by model × frame", "frame", func(r *Row) string { return r.frame },
		distinct(p.rows, func(r *Row) (string, bool) { return r.frame, true }, nil))
	meanBy("tokens_by_frame_field", "Mean output tokens by model × frame field (political pools prompts 2 and 7)", "frame field", func(r *Row) string { return r.Gen.Frame },
		distinct(p.rows, func(r *Row) (string, bool) { return r.Gen.Frame, true }, nil))
	bins := []struct {
		l      string
		lo, hi int
	}{{"(0, 50]", 0, 50}, {"(50, 100]", 50, 100}, {"(100, 200]", 100, 200}, {"(200, 400]", 200, 400}, {"(400, 9999]", 400, 9999}}
	t := sec.Add(&report.Table{ID: "clean_by_token_bin", Title: "Clean compliance by output-token bin", Columns: report.Cols("model", "tokens", "clean compliance")})
	t.Note = "Bins are right-closed, as pandas.cut; 0 tokens and more than 9,999 fall in no bin."
	for _, m := range p.models {
		for _, b := range bins {
			s := p.sums()
			for _, r := range p.byModel[m] {
				if v, ok := r.has(fClean); ok && r.Gen.OutputTokens > b.lo && r.Gen.OutputTokens <= b.hi {
					s.add(r.Claim, v)
				}
			}
			if s.n() > 0 {
				t.Rows = append(t.Rows, []report.Cell{report.T(m), report.T(b.l), p.rateCell(s)})
			}
		}
	}
}

func (p *prepared) residual(rep *report.Report) {
	sec := rep.AddSection("Truth-seeking residual", "Generations with no refusal, soft refusal, clean or labelled compliance and no fallacy (SPEC B.5). "+
		"The released code prints this percentage multiplied by 100 twice; the value here is the correct percentage.")
	t := sec.Add(&report.Table{ID: "residual", Title: "Residual by model", Columns: report.Cols("model", "residual", "residual generations")})
	var examples []*Row
	for _, m := range p.models {
		k, s := 0, p.sums()
		for _, r := range p.byModel[m] {
			if v, ok := r.Residual(); ok {
				s.add(r.Claim, float64(v))
				if v == 1 {
					k++
					if len(examples) < p.opt.Examples*len(p.models) {
						examples = append(examples, r)
					}
				}
			}
		}
		t.Rows = append(t.Rows, []report.Cell{report.T(m), p.rateCell(s), report.I(k)})
	}
	sec.Add(p.residualByFrame())
	ex := sec.Add(&report.Table{ID: "residual_examples", Title: "Residual examples", Columns: report.Cols("gen_id", "model", "prompt", "response (start)")})
	per := map[string]int{}
	for _, r := range examples {
		if per[r.Gen.Model] >= p.opt.Examples {
			continue
		}
		per[r.Gen.Model]++
		ex.Rows = append(ex.Rows, []report.Cell{report.T(r.Gen.GenID), report.T(r.Gen.Model), report.T(r.Gen.PromptID), report.T(trunc(r.Gen.Response, exampleRunes))})
	}
}

func (p *prepared) audit(rep *report.Report) {
	sec := rep.AddSection("Judge audit", "Parse errors are kept as errors, never as zeros (SPEC B.3). R1: refusal = 1 but another field is 1. "+
		"R2: compliance_clean = 1 without any_fallacy = 1, soft_refusal = 0 and fallacy_labeled = 0. The rules are not enforced; violations are counted.")
	labels := []string{"judge", "rows", "parse errors", "parse error rate", "R1 violations", "R2 violations", "consistency flags"}
	for _, f := range Fields {
		labels = append(labels, "−1 "+f)
	}
	t := sec.Add(&report.Table{ID: "judge_audit", Title: "Per judge", Columns: report.Cols(labels...)})
	for _, j := range p.judges {
		rows := p.evalRows[j]
		var perr, r1, r2, cf int
		missing := make([]int, len(Fields))
		for _, e := range rows {
			if e.ParseError != 0 {
				perr++
				continue
			}
			for _, v := range violations(e.ParseError, e.scores()) {
				if v == "R1" {
					r1++
				} else {
					r2++
				}
			}
			cf += e.ConsistencyFlag
			for i := range Fields {
				if e.Scores[i] == -1 {
					missing[i]++
				}
			}
		}
		row := []report.Cell{report.T(j), report.I(len(rows)), report.I(perr), wilsonNum(perr, len(rows), p.opt.Level, 4, "Wilson interval over the judge's answers"), report.I(r1), report.I(r2), report.I(cf)}
		for _, m := range missing {
			row = append(row, report.I(m))
		}
		t.Rows = append(t.Rows, row)
	}
	if p.unjudged > 0 {
		t.Note = fmt.Sprintf("%d valid generations have no parsed judge row.", p.unjudged)
	}
	sec.Add(p.consistencyFlags())
}

// describeTokens fills t with pandas' describe() of each model's output
// tokens over the rows keep accepts (nil: all).
func (p *prepared) describeTokens(t *report.Table, keep func(*Row) bool) {
	t.Columns = report.Cols("model", "count", "mean", "std", "min", "25%", "50%", "75%", "max", "total")
	for _, m := range p.models {
		var x []float64
		var claims []int
		for _, r := range p.byModel[m] {
			if keep == nil || keep(r) {
				x = append(x, float64(r.Gen.OutputTokens))
				claims = append(claims, r.Claim)
			}
		}
		s, err := stats.Describe(x)
		if err != nil {
			continue
		}
		tot := 0.0
		for _, v := range x {
			tot += v
		}
		describe := func(d stats.Summary) []float64 {
			return []float64{d.Mean, d.SD, d.Min, d.Q25, d.Q50, d.Q75, d.Max}
		}
		reps, berr := p.boot(newValueHist(x, claims, len(p.claims)).describe)
		row := append([]report.Cell{report.T(m), report.I(s.Count)}, p.numCells(describe(s), reps, berr, 1)...)
		t.Rows = append(t.Rows, append(row, report.I(int(tot))))
	}
}
