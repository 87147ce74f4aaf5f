package study

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
)

// expandMulti lays each multi question out as a yes / no question per
// choice ("flaws=hedge": was hedge picked?), as agreement on a
// multi-label question is usually measured (each label a binary code of
// its own); other questions are kept as they are. Items without an answer
// to the question stay without one.
func expandMulti(s Study, ans answers) (Study, answers) {
	if !slices.ContainsFunc(s.Questions, func(q Question) bool { return q.Type == Multi }) {
		return s, ans
	}
	out := s
	out.Questions = nil
	for _, q := range s.Questions {
		if q.Type != Multi {
			out.Questions = append(out.Questions, q)
			continue
		}
		for _, c := range q.Choices {
			yn := YesNo(q.ID+"="+c.Key, q.Text+" — "+c.Label)
			out.Questions = append(out.Questions, yn)
		}
	}
	eans := answers{}
	for item, by := range ans {
		eans[item] = map[string]map[string]string{}
		for who, a := range by {
			e := map[string]string{}
			for k, v := range a {
				e[k] = v
			}
			for _, q := range s.Questions {
				v, ok := a[q.ID]
				if q.Type != Multi || !ok || v == "" {
					continue
				}
				picks := q.Picks(v)
				for _, c := range q.Choices {
					e[q.ID+"="+c.Key] = map[bool]string{true: "1", false: "0"}[slices.Contains(picks, c.Key)]
				}
			}
			eans[item][who] = e
		}
	}
	return out, eans
}

// ordinal adds, for the likert questions, agreement that counts how far
// apart two answers are: Krippendorff's α at the ordinal and interval
// levels over every annotator (item-bootstrap intervals), and Cohen's
// weighted κ (linear and quadratic weights over the scale's points) for
// each pair of annotators.
func ordinal(rep *report.Report, s Study, ans answers, o AnalyzeOptions) error {
	var likert []int
	for i, q := range s.Questions {
		if q.Type == Likert {
			likert = append(likert, i)
		}
	}
	if len(likert) == 0 {
		return nil
	}
	sec := rep.AddSection("Ordinal agreement", "For the questions on a scale, agreement that counts how far apart two answers are: Krippendorff's α (ordinal and interval) over the items answered twice or more, with item-bootstrap intervals; Cohen's weighted κ for each pair (linear weights |i − j|, quadratic (i − j)², over the scale's points, as scikit-learn's cohen_kappa_score with the scale as labels).")
	t := sec.Add(&report.Table{ID: "ordinal_agreement", Title: "Ordinal agreement by question", Columns: report.Cols("question", "items", "Krippendorff's α (ordinal)", "Krippendorff's α (interval)")})
	pt := sec.Add(&report.Table{ID: "weighted_kappa", Title: "Weighted κ by pair of annotators", Columns: report.Cols("question", "pair", "items", "weighted κ (linear)", "weighted κ (quadratic)")})
	for _, qi := range likert {
		q := s.Questions[qi]
		_, ratings := ratingsOf(s, ans, q.ID)
		multi := answeredTwice(ratings)
		alphas := func(rows [][]string) []float64 {
			units := make([][]float64, len(rows))
			for i, r := range rows {
				units[i] = make([]float64, len(r))
				for j, v := range r {
					units[i][j] = math.NaN()
					if p, err := strconv.Atoi(v); err == nil {
						units[i][j] = float64(p)
					}
				}
			}
			out := []float64{math.NaN(), math.NaN()}
			for k, lvl := range []stats.Level{stats.Ordinal, stats.Interval} {
				if a, err := stats.KrippendorffAlpha(units, lvl); err == nil {
					out[k] = a
				}
			}
			return out
		}
		if len(multi) == 0 {
			t.Rows = append(t.Rows, []report.Cell{report.T(q.ID), report.I(0), report.NA("no item answered twice"), report.NA("")})
		} else {
			obs := alphas(multi)
			reps, err := stats.Bootstrap(len(multi), o.Resamples, o.Seed+uint64(5000+qi), func(idx []int) ([]float64, bool) {
				sub := make([][]string, len(idx))
				for i, k := range idx {
					sub[i] = multi[k]
				}
				return alphas(sub), true
			})
			if err != nil {
				return fmt.Errorf("ordinal agreement on %s: %w", q.ID, err)
			}
			t.Rows = append(t.Rows, []report.Cell{report.T(q.ID), report.I(len(multi)), CICell(obs[0], reps, 0, o.Level), CICell(obs[1], reps, 1, o.Level)})
		}
		var scale []string
		for _, c := range q.Choices {
			scale = append(scale, c.Key)
		}
		for i := range s.Annotators {
			for j := i + 1; j < len(s.Annotators); j++ {
				a, b, row := pairRow(s, q, ratings, i, j)
				for _, w := range []stats.Weighting{stats.Linear, stats.Quadratic} {
					k, err := stats.WeightedKappa(a, b, scale, w)
					switch {
					case len(a) == 0:
						row = append(row, report.NA("no shared item"))
					case err != nil:
						row = append(row, report.NA(err.Error()))
					default:
						row = append(row, cellOr(k.Kappa, k.Reason))
					}
				}
				pt.Rows = append(pt.Rows, row)
			}
		}
	}
	return nil
}
