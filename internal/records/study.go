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

// StudyReport analyses a study from its stored answers, with the sections
// its kind makes of the studied run's records (KindSpec.Report).
func StudyReport(ctx context.Context, st StudyStore, s study.Study, o study.AnalyzeOptions) (*report.Report, error) {
	anns, err := st.Annotations(ctx, s.ID)
	if err != nil {
		return nil, err
	}
	rep, err := study.Analyze(s, anns, o)
	if err != nil {
		return nil, fmt.Errorf("study %d: %w", s.ID, err)
	}
	if spec, ok := study.SpecOf(s.Kind); ok && spec.Report != nil {
		// A kind's own sections that read the studied run's records.
		if err := spec.Report(ctx, st, rep, s, anns); err != nil {
			return nil, err
		}
	}
	return rep, nil
}
