package deflect_test

import (
	"os"
	"testing"

	"github.com/fallacylab/fallacylab/bench/benchtest"
)

func TestMain(m *testing.M) {
	benchtest.Main()
	os.Exit(m.Run())
}

// TestRunAndReportThroughTheHarness: DeflectBench's run (generation, then
// judging) and its report, as a user runs them, on the scripted provider:
// every generation judged, the report read back from the store.
func TestRunAndReportThroughTheHarness(t *testing.T) {
	h := benchtest.New(t, nil)
	h.Run("deflect", "run", "--models", "openai:model-a", "--judges", "anthropic:judge-a", "--samples", "1", "--pilot", "2")
	// 2 claims × 15 templates, each generated then judged once.
	if n := h.Calls(); n != 60 {
		t.Fatalf("%d calls, want 30 generations and 30 judgements", n)
	}
	rep := h.Report("deflect", "report", "--resamples", "50")
	if tb := benchtest.Table(t, rep, "run_counts"); len(tb.Rows) == 0 {
		t.Fatal("run_counts has no rows")
	}
	if _, _, err := h.Try("deflect", "report", "--run", "9"); err == nil {
		t.Fatal("a report of a run that does not exist succeeded")
	}
}
