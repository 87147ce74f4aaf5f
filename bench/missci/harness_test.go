package missci_test

import (
	"os"
	"testing"

	"github.com/fallacylab/fallacylab/bench/benchtest"
	"github.com/fallacylab/fallacylab/llm/llmtest"
)

func TestMain(m *testing.M) {
	benchtest.Main()
	os.Exit(m.Run())
}

// TestRunAndReportThroughTheHarness: a Missci reconstruction run and its
// report as a user makes them; the report of the stored run calls
// nothing and reads as the run's own.
func TestRunAndReportThroughTheHarness(t *testing.T) {
	h := benchtest.New(t, func(llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Text: "1. Fallacious Premise: \"x\"; Applied Fallacy Class: Ambiguity."}
	})
	shown := h.Run("missci", "run", "--model", "openai:gpt-4.1", "--split", "dev", "--limit", "2", "--format", "json")
	calls := h.Calls()
	if calls == 0 {
		t.Fatal("the run called nothing")
	}
	rep := h.Report("missci", "report")
	if got := benchtest.Table(t, rep, "reconstruction"); len(got.Rows) != 7 {
		t.Fatalf("%d cut-offs, want 1…6 and all", len(got.Rows))
	}
	if again := h.Run("missci", "report", "--format", "json"); again != shown || h.Calls() != calls {
		t.Fatal("the stored run's report differs from the run's, or called something")
	}
}
