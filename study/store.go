package study

import (
	"context"
	"fmt"

	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store"
)

// Store keeps studies and their annotations (store.Studies); every store
// implementation offers it (store/storetest checks the semantics).
type Store = store.Studies

// ReportStore is what a study's report reads: the study's answers, and the
// records of the run it validates.
type ReportStore interface {
	Store
	Records
}

// Report analyses a study from its stored answers, with the sections
// its kind makes of the studied run's records (KindSpec.Report).
func Report(ctx context.Context, st ReportStore, s Study, o AnalyzeOptions) (*report.Report, error) {
	anns, err := st.Annotations(ctx, s.ID)
	if err != nil {
		return nil, err
	}
	rep, err := Analyze(s, anns, o)
	if err != nil {
		return nil, fmt.Errorf("study %d: %w", s.ID, err)
	}
	if spec, ok := SpecOf(s.Kind); ok && spec.Report != nil {
		// A kind's own sections that read the studied run's records, on
		// the annotations the figures count.
		kept, keptAnns, _ := Counted(s, anns, o)
		if err := spec.Report(ctx, st, rep, kept, keptAnns); err != nil {
			return nil, err
		}
	}
	rep.NotePointIntervals("item")
	return rep, nil
}
