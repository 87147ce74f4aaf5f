package classify_test

import (
	"os"
	"path/filepath"
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

// TestRunsOfTwoCorporaDoNotCompare: an accuracy on Argotario is not one
// on Reddit: their runs are refused with the reason (they said only that
// the arms share no item), and each corpus' accuracy is an evaluation of
// its own name when exported.
func TestRunsOfTwoCorporaDoNotCompare(t *testing.T) {
	h := benchtest.New(t, func(llmtest.Call) llmtest.Reply { return llmtest.Reply{Text: "none"} })
	h.Run("classify", "run", "--model", "openai:gpt-4.1-mini", "--limit", "8")
	h.Run("classify", "run", "--model", "openai:gpt-4.1-mini", "--limit", "8", "--corpus", "argotario")
	_, _, err := h.Try("compare", "1", "2")
	if err == nil || !strings.Contains(err.Error(), `arm "2" is a run of Fallacy classification argotario, arm "1" of reddit: their figures measure different things`) {
		t.Fatalf("two corpora: %v", err)
	}
	out := filepath.Join(h.Dir, "eee")
	h.Run("runs", "export", "2", "--format", "eee", "--out-dir", out, "--resamples", "20")
	files, _ := filepath.Glob(filepath.Join(out, "data", "classify", "*", "*", "*.json"))
	if len(files) != 1 {
		t.Fatalf("%v", files)
	}
	if b, _ := os.ReadFile(files[0]); !strings.Contains(string(b), `"evaluation_name": "classify argotario accuracy"`) {
		t.Fatalf("%.600s", b)
	}
}
