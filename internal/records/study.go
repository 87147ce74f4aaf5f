package records

import (
	"context"
	"fmt"

	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/study"
)

// StudyStore is what a study's report reads: the study's answers, and the
// records of the run it validates.
type StudyStore interface {
	Store
	study.Store
}

// StudyReport analyses a study from its stored answers; a Scheme Foils
// validity study also gets its run's audit made again on the negatives the
// annotators confirmed valid.
func StudyReport(ctx context.Context, st StudyStore, s study.Study, o study.AnalyzeOptions) (*report.Report, error) {
	anns, err := st.Annotations(ctx, s.ID)
	if err != nil {
		return nil, err
	}
	rep, err := study.Analyze(s, anns, o)
	if err != nil {
		return nil, fmt.Errorf("study %d: %w", s.ID, err)
	}
	if s.Kind == study.FoilsValidity {
		audits, err := LoadFoils(ctx, st, s.RunID)
		if err != nil {
			return nil, err
		}
		if err := study.AddConfirmedAudit(rep, s, anns, audits); err != nil {
			return nil, err
		}
	}
	return rep, nil
}
