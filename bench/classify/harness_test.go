package classify_test

import (
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/bench/benchtest"
	"github.com/fallacylab/fallacylab/llm/llmtest"
)

// TestRunAndReportThroughTheHarness: a classification run and its report
// as a user makes them.
func TestRunAndReportThroughTheHarness(t *testing.T) {
	h := benchtest.New(t, func(c llmtest.Call) llmtest.Reply {
		if strings.Contains(c.Prompt, "Text: ") && len(c.Prompt)%2 == 0 {
			return llmtest.Reply{Text: "slippery slope"}
		}
		return llmtest.Reply{Text: "none"}
	})
	h.Run("classify", "run", "--model", "openai:gpt-4.1-mini", "--limit", "24")
	if h.Calls() != 24 {
		t.Fatalf("%d calls for 24 texts", h.Calls())
	}
	rep := h.Report("classify", "report", "--resamples", "100")
	if got := benchtest.Table(t, rep, "scores"); len(got.Rows) == 0 {
		t.Fatal("scores has no rows")
	}
}
