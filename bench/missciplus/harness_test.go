package missciplus_test

import (
	"testing"

	"github.com/fallacylab/fallacylab/bench/benchtest"
)

// TestRunAndReportThroughTheHarness: a subtask 1 ranking run that calls
// no model, and its stored report.
func TestRunAndReportThroughTheHarness(t *testing.T) {
	h := benchtest.New(t, nil)
	h.Run("missciplus", "run", "--subtask", "1", "--ranker", "random", "--seeds", "1,2", "--split", "dev", "--limit", "5")
	rep := h.Report("missciplus", "report")
	if got := benchtest.Table(t, rep, "scores"); len(got.Rows) == 0 {
		t.Fatal("scores has no rows")
	}
	if h.Calls() != 0 {
		t.Fatalf("a random ranking made %d calls", h.Calls())
	}
}
