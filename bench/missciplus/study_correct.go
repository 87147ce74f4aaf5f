package missciplus

import (
	"context"
	"fmt"

	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
	"github.com/fallacylab/fallacylab/study"
)

// isSubtask3 is PremiseStudy's Judged: only a subtask 3 run's premises
// are aligned by the premise judge.
func isSubtask3(ctx context.Context, rs study.Records, runID int64) bool {
	setup, _, err := LoadRun(ctx, rs, runID)
	return err == nil && setup.Subtask == 3
}

// correctAlignment is a missciplus-premise study's correction of its run
// (#44 item 3): the share of the run's counted premises the premise judge
// aligned to a reference premise, the judge's sensitivity and specificity
// against the people's majority on "matches", and the Rogan–Gladen
// corrected share with a delta-method interval carrying both the run's
// uncertainty (a bootstrap over arguments) and the validation sample's.
func correctAlignment(ctx context.Context, rs study.Records, rep *report.Report, s study.Study, anns []study.Annotation) error {
	preds, err := LoadReconstructions(ctx, rs, s.RunID)
	if err != nil {
		return err
	}
	// The judge's calls over the whole run, by argument.
	var k, n []float64
	for _, p := range preds {
		aligned := map[string]bool{}
		for _, ids := range p.Alignment {
			for _, id := range ids {
				aligned[id] = true
			}
		}
		var ka, na float64
		for _, pr := range p.Prompts {
			for _, f := range pr.Fallacies {
				if !f.counted() {
					continue
				}
				na++
				if aligned[f.PredictionID] {
					ka++
				}
			}
		}
		k, n = append(k, ka), append(n, na)
	}
	share := func(w []int) []float64 {
		var a, b float64
		for i := range k {
			x := 1.0
			if w != nil {
				x = float64(w[i])
			}
			a, b = a+x*k[i], b+x*n[i]
		}
		return []float64{a / b}
	}
	total := 0.0
	for _, x := range n {
		total += x
	}
	if total == 0 {
		return nil
	}
	p := share(nil)[0]
	reps, err := stats.ClusterBootstrap(len(k), 1000, 1, func(w []int) ([]float64, bool) { return share(w), true })
	if err != nil {
		return err
	}
	sd, err := stats.SD(reps.Column(0), 1)
	if err != nil {
		return err
	}
	// The judge against people, on the study's premises.
	maj := study.Majorities(s, anns, "matches")
	var conf study.Confusion
	for _, it := range s.Items {
		if h, ok := maj[it.Key]; !it.Decoy && ok && h != "" {
			conf.Add(h, it.Hidden["aligned"])
		}
	}
	c := study.Correct(p, sd*sd, reps.Column(0), conf, 2)
	sec := rep.AddSection(fmt.Sprintf("Run %d's aligned share, corrected by this study", s.RunID),
		"The share of the run's counted premises the premise judge aligned to a reference premise, and that share corrected for the judge's errors measured here against the people's majority on \"matches\" (Rogan–Gladen: (p + Sp − 1)/(Se + Sp − 1)); both intervals carry the run's uncertainty (a bootstrap over arguments) and the validation sample's: by the delta method, and by a percentile bootstrap over both samples.")
	t := sec.Add(&report.Table{ID: "corrected_alignment", Title: "Judged and corrected aligned share",
		Columns: report.Cols("premises", "judged share", "sensitivity", "specificity", "validated (yes / no)", "corrected share", "corrected, bootstrap over both", "note")})
	t.Rows = append(t.Rows, []report.Cell{report.I(int(total)), report.NCI(p, p-1.96*sd, p+1.96*sd, 3), report.F(c.Se, 3), report.F(c.Sp, 3),
		report.T(c.Validated), c.Rate, c.Bootstrap, report.T(c.Note)})
	return nil
}
