package study

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
)

// binary scores one rater (a judge) against the human majority on items
// where both have a 0/1 answer: precision, recall, F1 and Cohen's κ.
func binary(human, judge []string) []float64 {
	var tp, fp, fn float64
	for i := range human {
		switch {
		case judge[i] == "1" && human[i] == "1":
			tp++
		case judge[i] == "1":
			fp++
		case human[i] == "1":
			fn++
		}
	}
	p, r := tp/(tp+fp), tp/(tp+fn)
	f1 := 2 * p * r / (p + r)
	if tp == 0 {
		f1 = math.NaN()
		if fp+fn > 0 {
			f1 = 0
		}
	}
	k := math.NaN()
	if kk, err := stats.CohenKappa(human, judge); err == nil {
		k = kk.Kappa
	}
	return []float64{p, r, f1, k}
}

// Prop is k of n as a proportion with its Wilson interval at the
// analysis level (n = 0: no items).
func (o AnalyzeOptions) Prop(k, n int) report.Cell {
	if n == 0 {
		return report.NA("no items")
	}
	p, _ := stats.Prop(k, n, o.Level, stats.Wilson)
	return report.PCI(p.Estimate, p.Lo, p.Hi, n)
}

// judgeValidity scores each LLM judge, and their consensus (any valid
// judge says 1), against the human majority on every asked field, and
// sets the field's rate by the humans beside the judges' on the same items.
func judgeValidity(rep *report.Report, s Study, ans answers, o AnalyzeOptions) error {
	judgeSet := map[string]bool{}
	for _, it := range s.Items {
		for k := range it.Hidden {
			if strings.HasPrefix(k, "judge:") {
				j := strings.TrimPrefix(k, "judge:")
				judgeSet[j[:strings.LastIndex(j, ":")]] = true
			}
		}
	}
	var judges []string
	for j := range judgeSet {
		judges = append(judges, j)
	}
	sort.Strings(judges)
	sec := rep.AddSection("Judge validity", "Each LLM judge, and their consensus (1 when any judge with a valid value says 1, as `deflect report` counts), against the human majority (more than half of an item's annotators; ties are left out), field by field. Intervals: item bootstrap.")
	t := sec.Add(&report.Table{ID: "judge_validity", Title: "LLM judges against the human majority", Columns: report.Cols("field", "judge", "items", "precision", "recall", "F1", "Cohen's κ")})
	rt := sec.Add(&report.Table{ID: "rates", Title: "The field's rate on the sample: humans and judges", Columns: report.Cols("field", "items", "human majority", "judge consensus", "ties left out")})
	for qi, q := range s.Questions {
		raters := append(append([]string(nil), judges...), "consensus (any)")
		var hs []string
		js := make([][]string, len(raters))
		ties := 0
		for _, it := range s.Items {
			if it.Decoy {
				continue
			}
			h, n := majority(ans, it.Key, q.ID)
			if n == 0 {
				continue
			}
			if h == "" {
				ties++
				continue
			}
			cons := ""
			row := make([]string, len(raters))
			for ji, j := range judges {
				v := it.Hidden["judge:"+j+":"+q.ID]
				if v == "0" || v == "1" {
					row[ji] = v
					if cons == "" || v == "1" {
						cons = v
					}
				}
			}
			row[len(judges)] = cons
			hs = append(hs, h)
			for ji := range raters {
				js[ji] = append(js[ji], row[ji])
			}
		}
		humanYes, consYes, both := 0, 0, 0
		for i := range hs {
			if c := js[len(judges)][i]; c != "" {
				both++
				if hs[i] == "1" {
					humanYes++
				}
				if c == "1" {
					consYes++
				}
			}
		}
		rt.Rows = append(rt.Rows, []report.Cell{report.T(q.ID), report.I(both), o.Prop(humanYes, both), o.Prop(consYes, both), report.I(ties)})
		for ji, name := range raters {
			var h, j []string
			for i := range hs {
				if js[ji][i] != "" {
					h, j = append(h, hs[i]), append(j, js[ji][i])
				}
			}
			row := []report.Cell{report.T(q.ID), report.T(name), report.I(len(h))}
			if len(h) == 0 {
				t.Rows = append(t.Rows, append(row, report.NA("no items"), report.NA(""), report.NA(""), report.NA("")))
				continue
			}
			obs := binary(h, j)
			reps, err := stats.Bootstrap(len(h), o.Resamples, o.Seed+100+uint64(qi*len(raters)+ji), func(idx []int) ([]float64, bool) {
				hh, jj := make([]string, len(idx)), make([]string, len(idx))
				for i, k := range idx {
					hh[i], jj[i] = h[k], j[k]
				}
				return binary(hh, jj), true
			})
			if err != nil {
				return fmt.Errorf("judge validity of %s on %s: %w", name, q.ID, err)
			}
			for k, v := range obs {
				row = append(row, ciCell(v, reps, k, o.Level))
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return nil
}

// foilsValidity is SPEC C.8 §6.7: an item is valid when more than half
// of its annotators say V (2 of 3; B never counts as V; a tie is not
// valid); judge precision = valid / sampled, overall, by source type and
// by condition; and the audit's false-positive rate on the matched items
// humans confirmed valid, beside its rate on all sampled matched items.
func foilsValidity(rep *report.Report, s Study, ans answers, o AnalyzeOptions) error {
	sec := rep.AddSection("Validity of the negatives", "An item is valid when more than half of its annotators call it V (2 of 3): B never counts as V, and a tie is not valid (SPEC C.8). Precision of the filter that kept these negatives = valid / annotated.")
	type tally struct{ valid, n int }
	all := tally{}
	byType, byCond := map[string]*tally{}, map[string]*tally{}
	var confirmedFlag, confirmed, sampledFlag, sampled int
	var binRatings [][]string
	for _, it := range s.Items {
		if it.Decoy {
			continue
		}
		valid, n := validOf(ans, it.Key)
		if n == 0 {
			continue
		}
		row := make([]string, len(s.Annotators))
		for j, a := range s.Annotators {
			if got := ans[it.Key][a.Name]["validity"]; got != "" {
				row[j] = map[bool]string{true: "V", false: "not V"}[got == "V"]
			}
		}
		binRatings = append(binRatings, row)
		for _, t := range []*tally{&all, get(byType, it.Hidden["source"]), get(byCond, it.Hidden["condition"])} {
			t.n++
			if valid {
				t.valid++
			}
		}
		if it.Hidden["condition"] == "matched" {
			flagged := it.Hidden["pred"] != "" && it.Hidden["pred"] != "none"
			sampled++
			if flagged {
				sampledFlag++
			}
			if valid {
				confirmed++
				if flagged {
					confirmedFlag++
				}
			}
		}
	}
	t := sec.Add(&report.Table{ID: "validity", Title: "Judge precision: valid / annotated", Columns: report.Cols("group", "annotated", "valid", "precision")})
	t.Rows = append(t.Rows, []report.Cell{report.T("all"), report.I(all.n), report.I(all.valid), o.Prop(all.valid, all.n)})
	for _, g := range []struct {
		name string
		m    map[string]*tally
	}{{"condition", byCond}, {"source type", byType}} {
		var keys []string
		for k := range g.m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			x := g.m[k]
			t.Rows = append(t.Rows, []report.Cell{report.T(g.name + ": " + k), report.I(x.n), report.I(x.valid), o.Prop(x.valid, x.n)})
		}
	}
	bt := sec.Add(&report.Table{ID: "validity_binary", Title: "Agreement on valid vs not valid", Columns: report.Cols("measure", "value")})
	if ac, err := stats.GwetAC1(binRatings, 2); err == nil && ac.Items > 0 {
		bt.Rows = append(bt.Rows, []report.Cell{report.T("Gwet's AC1 (V vs not V, Q = 2)"), report.F(ac.AC1, 3)})
	} else {
		bt.Rows = append(bt.Rows, []report.Cell{report.T("Gwet's AC1 (V vs not V, Q = 2)"), report.NA("no item answered twice")})
	}
	ft := sec.Add(&report.Table{ID: "confirmed_fpr", Title: "The audit's false-positive rate on matched items (detector calls a fallacy)", Columns: report.Cols("subset", "items", "flagged", "rate")})
	ft.Rows = append(ft.Rows,
		[]report.Cell{report.T("matched items annotated"), report.I(sampled), report.I(sampledFlag), o.Prop(sampledFlag, sampled)},
		[]report.Cell{report.T("of them confirmed valid by the humans"), report.I(confirmed), report.I(confirmedFlag), o.Prop(confirmedFlag, confirmed)})
	return nil
}

// validOf is the papers' rule for one negative: valid when more than half
// of the n annotators who answered say V (B never counts as V; a tie is not
// valid).
func validOf(ans answers, key string) (valid bool, n int) {
	v := 0
	for _, a := range ans[key] {
		switch a["validity"] {
		case "V":
			v++
			n++
		case "":
		default:
			n++
		}
	}
	return 2*v > n, n
}

func get[K comparable, V any](m map[K]*V, k K) *V {
	if m[k] == nil {
		m[k] = new(V)
	}
	return m[k]
}

// foilsNative is SPEC C.8 §6.2 and §6.6: the resolved code of each native
// item (the majority; a tie is not A), the share of A, and the detector's
// flag rate on the items of each code.
func foilsNative(rep *report.Report, s Study, ans answers, o AnalyzeOptions) error {
	sec := rep.AddSection("Native class", "Each item's code is its annotators' majority; an unresolved item is not A (SPEC C.8). The flag rate is the share of items of a code the audited detector calls a fallacy (§6.6).")
	counts := map[string]int{}
	flags := map[string]int{}
	n := 0
	for _, it := range s.Items {
		if it.Decoy {
			continue
		}
		code, k := majority(ans, it.Key, "code")
		if k == 0 {
			continue
		}
		if code == "" {
			code = "unresolved"
		}
		n++
		counts[code]++
		if p := it.Hidden["pred"]; p != "" && p != "none" {
			flags[code]++
		}
	}
	t := sec.Add(&report.Table{ID: "codes", Title: "Codes of the native \"none\" items", Columns: report.Cols("code", "items", "share", "flagged by the detector", "flag rate")})
	for _, c := range []string{"A", "B", "N", "unresolved"} {
		t.Rows = append(t.Rows, []report.Cell{report.T(c), report.I(counts[c]), o.Prop(counts[c], n), report.I(flags[c]), o.Prop(flags[c], counts[c])})
	}
	return nil
}
