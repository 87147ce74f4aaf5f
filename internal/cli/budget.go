package cli

import (
	"context"
	"fmt"
	"math"

	"github.com/fallacylab/fallacylab/lifecycle"
)

// A budget is the most a run may ever cost: it is kept with the run, each
// phase's engine gets what the run has not spent of it (so judging cannot
// pay on after generation reached it), and a resumed run keeps its budget
// unless --budget is given again, which the command then says.

// runBudget keeps the run's budget: --budget for a new run (or a resumed
// one that names it), else the budget the resumed run was started with.
func (s *session) runBudget(ctx context.Context, run *lifecycle.Run) error {
	prev, had, err := s.st.RunBudget(ctx, run.ID)
	if err != nil {
		return err
	}
	switch {
	case run.Resumed && had && !s.g.budgetSet:
		s.g.Budget = prev
		spent, err := s.st.RunSpend(ctx, run.ID)
		if err != nil {
			return err
		}
		fmt.Fprintf(s.g.Stderr, "run %d keeps its budget of $%.4f, $%.4f of it spent (--budget sets another)\n", run.ID, prev, spent)
		return nil
	case run.Resumed && had && s.g.Budget != prev:
		what := "raised"
		if s.g.Budget < prev || s.g.Budget <= 0 {
			what = "lowered"
		}
		if s.g.Budget <= 0 {
			fmt.Fprintf(s.g.Stderr, "run %d: its budget of $%.4f is lifted (--budget 0)\n", run.ID, prev)
		} else {
			fmt.Fprintf(s.g.Stderr, "run %d: budget %s from $%.4f to $%.4f (--budget)\n", run.ID, what, prev, s.g.Budget)
		}
	case !had && s.g.Budget <= 0:
		return nil
	}
	return s.st.SetRunBudget(ctx, run.ID, s.g.Budget)
}

// remainingBudget is what the run may still spend (0: no budget): its
// budget less what it has paid so far, in every phase and earlier
// invocation. A spent budget is a tiny positive one, so that nothing more
// is sent.
func (s *session) remainingBudget(runID int64) float64 {
	if s.g.Budget <= 0 {
		return 0
	}
	if runID == 0 {
		return s.g.Budget
	}
	spent, err := s.st.RunSpend(s.ctxOrBackground(), runID)
	if err != nil {
		return math.SmallestNonzeroFloat64 // the spend cannot be read: send nothing
	}
	return max(s.g.Budget-spent, math.SmallestNonzeroFloat64)
}

func (s *session) ctxOrBackground() context.Context {
	if s.g.ctx != nil {
		return s.g.ctx
	}
	return context.Background()
}
