package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/fallacylab/fallacylab/backend"
	"github.com/fallacylab/fallacylab/lifecycle"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store"
)

// addUnusable adds to a report of a stored run the header row that counts
// its unusable answers, per phase and model; a run without any gets none.
func addUnusable(ctx context.Context, st backend.Store, runID int64, rep *report.Report) error {
	phases, err := st.Phases(ctx, runID)
	if err != nil {
		return err
	}
	var parts []string
	for _, p := range phases {
		if p.Unusable > 0 {
			parts = append(parts, fmt.Sprintf("%s %s: %d of %d", p.Phase, p.Model, p.Unusable, p.Answered))
		}
	}
	if len(parts) > 0 {
		rep.Meta = append(rep.Meta, [2]string{"unusable answers", strings.Join(parts, "; ") + " (fallacylab runs show " + fmt.Sprint(runID) + " shows one)"})
	}
	return nil
}

// addPartial marks the report of a run that did not finish: it covers the
// records the run holds, which --allow-incomplete asked for.
func addPartial(r store.Run, rep *report.Report) {
	if r.Status == store.RunDone {
		return
	}
	rep.Meta = append(rep.Meta, [2]string{"partial", fmt.Sprintf("run %d did not finish (%s): this report covers the records it holds; run the same command again to finish it", r.ID, lifecycle.Describe(r, time.Now()))})
}

// provenance ends a report's header the same way whether it was just made
// or made again from the store: the build, the run, and its unusable
// answers.
//
// A report that leads with its own provenance (its source and fallacylab's
// version, as DeflectBench's does whether it read a run or files) keeps
// it, and gets only the unusable answers.
func provenance(ctx context.Context, s *session, runID int64, rep *report.Report) error {
	if !hasMeta(rep, "fallacylab") {
		rep.Meta = append(rep.Meta, [2]string{"fallacylab", Version()}, [2]string{"run", fmt.Sprintf("%d in %s", runID, s.st.Path())})
	}
	return addUnusable(ctx, s.st, runID, rep)
}

// hasMeta says whether the report's header has a line named key.
func hasMeta(rep *report.Report, key string) bool {
	for _, m := range rep.Meta {
		if m[0] == key {
			return true
		}
	}
	return false
}
