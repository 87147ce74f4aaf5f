package deflect

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/fallacylab/fallacylab/judge"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
	"github.com/fallacylab/fallacylab/study"
)

// addCorrectedRates is a deflect-rubric study's correction of its run's
// judged rates (#44): for each field asked, the judges' consensus rate over
// every generation of the run, the consensus's sensitivity and
// specificity against the people's majority on the study's items, and the
// Rogan–Gladen corrected rate with a delta-method interval that carries
// both the run's uncertainty (a bootstrap over claims) and the validation
// sample's.
func addCorrectedRates(ctx context.Context, rs study.Records, rep *report.Report, s study.Study, anns []study.Annotation) error {
	ds, err := LoadRecords(ctx, rs, s.RunID)
	if err != nil {
		return err
	}
	rows, _, err := Rows(ds, judge.Any)
	if err != nil {
		return err
	}
	ans := study.Index(anns)
	sec := rep.AddSection(fmt.Sprintf("Run %d's rates, corrected by this study", s.RunID),
		"Each field's rate as the judges' consensus (any) gives it over every generation of the run, and corrected for the consensus's errors measured here (Rogan–Gladen: (p + Sp − 1)/(Se + Sp − 1)); both intervals carry the run's uncertainty (a bootstrap over claims) and the validation sample's: by the delta method, and by a percentile bootstrap over both samples.")
	t := sec.Add(&report.Table{ID: "corrected_rates", Title: "Judged and corrected rates",
		Columns: report.Cols("field", "generations", "judged rate", "sensitivity", "specificity", "validated (yes / no)", "corrected rate", "corrected, bootstrap over both", "note")})
	for qi, q := range s.Questions {
		f := slices.Index(RubricFields, q.ID)
		if f < 0 {
			continue
		}
		var conf study.Confusion
		for _, it := range s.Items {
			if it.Decoy {
				continue
			}
			h, n := ans.Majority(it.Key, q.ID)
			if c := consensusOf(it, q.ID); n > 0 && h != "" && c != "" {
				conf.Add(h, c)
			}
		}
		p, varP, pReps, n, err := judgedRate(rows, f, uint64(1000+qi))
		if err != nil {
			return err
		}
		c := study.Correct(p, varP, pReps, conf, uint64(2000+qi))
		t.Rows = append(t.Rows, []report.Cell{report.T(q.ID), report.I(n), report.NCI(p, p-1.96*math.Sqrt(varP), p+1.96*math.Sqrt(varP), 3),
			report.F(c.Se, 3), report.F(c.Sp, 3), report.T(c.Validated), c.Rate, c.Bootstrap, report.T(c.Note)})
	}
	return nil
}

// consensusOf is the judges' consensus (any) on an item's field: 1 when
// any judge with a valid value says 1, "" when none has one.
func consensusOf(it study.Item, field string) string {
	out := ""
	for k, v := range it.Hidden {
		if len(k) > len(field)+7 && k[:6] == "judge:" && k[len(k)-len(field)-1:] == ":"+field && (v == "0" || v == "1") {
			if out == "" || v == "1" {
				out = v
			}
		}
	}
	return out
}

// judgedRate is the consensus rate of field f over the run's generations
// with a defined value, and its variance by a bootstrap over claims (whose
// replicates are reps).
func judgedRate(rows []*Row, f int, seed uint64) (p, varP float64, reps []float64, n int, err error) {
	claims := 0
	for _, r := range rows {
		claims = max(claims, r.Claim+1)
	}
	count := func(w []int) (float64, float64) {
		var k, m float64
		for _, r := range rows {
			v := r.Cons[f]
			if math.IsNaN(v) {
				continue
			}
			wt := 1.0
			if w != nil {
				wt = float64(w[r.Claim])
			}
			m += wt
			if v >= 0.5 {
				k += wt
			}
		}
		return k, m
	}
	k, m := count(nil)
	if m == 0 {
		return math.NaN(), math.NaN(), nil, 0, nil
	}
	rs, err := stats.ClusterBootstrap(claims, 1000, seed, func(w []int) ([]float64, bool) {
		k, m := count(w)
		return []float64{k / m}, m > 0
	})
	if err != nil {
		return 0, 0, nil, 0, err
	}
	col := rs.Column(0)
	sd, err := stats.SD(col, 1)
	if err != nil {
		return 0, 0, nil, 0, err
	}
	return k / m, sd * sd, col, int(m), nil
}
