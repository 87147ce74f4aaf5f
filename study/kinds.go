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

func get[K comparable, V any](m map[K]*V, k K) *V {
	if m[k] == nil {
		m[k] = new(V)
	}
	return m[k]
}
