package study

import (
	"fmt"

	"github.com/fallacylab/fallacylab/bench/foils"
	"github.com/fallacylab/fallacylab/report"
)

// ConfirmedAudits keeps, of each audit of a validity study's run, the
// native and fallacious test items and only the matched and wrong-scheme
// negatives the annotators confirmed valid (SPEC C.8 §6.7: the audit on the
// human-confirmed subset). It returns how many negatives are kept.
func ConfirmedAudits(s Study, anns []Annotation, audits []foils.AuditRecord) ([]foils.AuditRecord, int, error) {
	if s.Kind != FoilsValidity {
		return nil, 0, fmt.Errorf("study %d is a %s study: only a validity study confirms negatives", s.ID, s.Kind)
	}
	ans := index(anns)
	confirmed := map[string]bool{}
	for _, it := range s.Items {
		if valid, _ := validOf(ans, it.Key); valid && !it.Decoy {
			confirmed[it.Key] = true
		}
	}
	out := make([]foils.AuditRecord, len(audits))
	kept := 0
	for i, a := range audits {
		a.Report = nil // a stored rendering is of the whole audit
		var dets []foils.Detection
		for _, d := range a.Detections {
			switch d.Condition {
			case foils.Matched, foils.WrongScheme:
				if !confirmed[d.Condition+":"+d.ID] {
					continue
				}
				if i == 0 {
					kept++
				}
			}
			dets = append(dets, d)
		}
		a.Detections = dets
		out[i] = a
	}
	return out, kept, nil
}

// AddConfirmedAudit appends to a validity study's report the audit's
// verdict — flag rates and gaps — computed again on the human-confirmed
// subset, its tables named confirmed_* so they stand beside the study's.
func AddConfirmedAudit(rep *report.Report, s Study, anns []Annotation, audits []foils.AuditRecord) error {
	sub, kept, err := ConfirmedAudits(s, anns, audits)
	if err != nil {
		return err
	}
	title := "The audit on the human-confirmed subset"
	if kept == 0 {
		rep.AddSection(title, "No negative is confirmed valid yet.")
		return nil
	}
	audit, _, err := foils.ReportOf(sub)
	if err != nil {
		rep.AddSection(title, fmt.Sprintf("The audit cannot be made again on the %d confirmed negatives: %v.", kept, err))
		return nil
	}
	for _, sec := range audit.Sections {
		if sec.Title != "Verdict" {
			continue
		}
		out := rep.AddSection(title, fmt.Sprintf("The audit of run %d made again with its native and test items and only the %d matched and wrong-scheme negatives the annotators confirmed valid. %s", s.RunID, kept, sec.Intro))
		for _, t := range sec.Tables {
			c := *t
			c.ID = "confirmed_" + t.ID
			out.Add(&c)
		}
	}
	return nil
}
