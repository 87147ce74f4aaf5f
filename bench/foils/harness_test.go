package foils_test

import (
	"os"
	"testing"

	"github.com/fallacylab/fallacylab/bench/benchtest"
)

func TestMain(m *testing.M) {
	benchtest.Main()
	os.Exit(m.Run())
}

// TestAuditAndReportThroughTheHarness: the built-in detector's audit calls
// no model; its stored report is the audit's own.
func TestAuditAndReportThroughTheHarness(t *testing.T) {
	h := benchtest.New(t, nil)
	shown := h.Run("foils", "audit", "--resamples", "50", "--permutations", "50", "--format", "json")
	if h.Calls() != 0 {
		t.Fatalf("the TF-IDF audit made %d calls", h.Calls())
	}
	rep := h.Report("foils", "report")
	if got := benchtest.Table(t, rep, "flag_rates"); len(got.Rows) == 0 {
		t.Fatal("flag_rates has no rows")
	}
	if again := h.Run("foils", "report", "--format", "json"); again != shown {
		t.Fatal("the stored audit's report differs from the audit's")
	}
}
