package missciplus

import (
	"context"
	"fmt"

	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
	"github.com/fallacylab/fallacylab/study"
)

// minValidated is how many validated premises each side (people's yes,
// and no) needs before a corrected rate is given without a warning.
const minValidated = 10

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
	var tp, fn, tn, fp int
	for _, it := range s.Items {
		h, ok := maj[it.Key]
		if it.Decoy || !ok || h == "" {
			continue
		}
		switch j := it.Hidden["aligned"]; {
		case h == "1" && j == "1":
			tp++
		case h == "1":
			fn++
		case j == "1":
			fp++
		default:
			tn++
		}
	}
	se, sp := ratio(float64(tp), float64(tp+fn)), ratio(float64(tn), float64(tn+fp))
	c := stats.RoganGladen(p, sd*sd, se, tp+fn, sp, tn+fp, 0.95)
	corrected, boot, note := report.NA(c.Reason), report.NA(c.Reason), ""
	if lo, hi, ok := stats.RoganGladenBootstrap(reps.Column(0), tp, tp+fn, tn, tn+fp, 2, 0.95); ok && c.Defined {
		boot = report.NCI(c.Rate, lo, hi, 3)
	}
	if c.Defined {
		corrected = report.NCI(c.Rate, c.Lo, c.Hi, 3)
		if tp+fn < minValidated || tn+fp < minValidated {
			note = fmt.Sprintf("rests on few validated premises (fewer than %d on a side): treat it as indicative", minValidated)
		}
	}
	sec := rep.AddSection(fmt.Sprintf("Run %d's aligned share, corrected by this study", s.RunID),
		"The share of the run's counted premises the premise judge aligned to a reference premise, and that share corrected for the judge's errors measured here against the people's majority on \"matches\" (Rogan–Gladen: (p + Sp − 1)/(Se + Sp − 1)); both intervals carry the run's uncertainty (a bootstrap over arguments) and the validation sample's: by the delta method, and by a percentile bootstrap over both samples.")
	t := sec.Add(&report.Table{ID: "corrected_alignment", Title: "Judged and corrected aligned share",
		Columns: report.Cols("premises", "judged share", "sensitivity", "specificity", "validated (yes / no)", "corrected share", "corrected, bootstrap over both", "note")})
	t.Rows = append(t.Rows, []report.Cell{report.I(int(total)), report.NCI(p, p-1.96*sd, p+1.96*sd, 3), report.F(se, 3), report.F(sp, 3),
		report.T(fmt.Sprintf("%d / %d", tp+fn, tn+fp)), corrected, boot, report.T(note)})
	return nil
}
