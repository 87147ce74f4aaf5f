package inspectlog_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/fallacylab/fallacylab/bench/benchtest"
	"github.com/fallacylab/fallacylab/llm/llmtest"
)

func TestMain(m *testing.M) {
	benchtest.Main()
	os.Exit(m.Run())
}

// TestImportAndReportThroughTheHarness: a classification run exported as
// an inspect_ai log (.eval and JSON) and imported back is a run of this
// Task whose report scores every sample, and the same file imported again
// is the same run.
func TestImportAndReportThroughTheHarness(t *testing.T) {
	h := benchtest.New(t, func(c llmtest.Call) llmtest.Reply {
		if len(c.Prompt)%2 == 0 {
			return llmtest.Reply{Text: "slippery slope"}
		}
		return llmtest.Reply{Text: "none"}
	})
	h.Run("classify", "run", "--model", "openai:gpt-4.1-mini", "--limit", "24")
	for i, form := range []string{"eval", "json"} {
		log := filepath.Join(h.Dir, "run."+form)
		h.Run("runs", "export", "1", "--format", "inspect", "--log-format", form, "--out", log)
		out := h.Run("runs", "import", "--format", "inspect", log)
		rep := h.Report("inspect-log", "report", "--run", strconv.Itoa(2+i))
		if got := benchtest.Table(t, rep, "scores"); len(got.Rows) == 0 || got.Rows[0][1].Value != 24 {
			t.Fatalf("%s: the imported log's scores: %+v (%s)", form, got.Rows, out)
		}
		if again := h.Run("runs", "import", "--format", "inspect", log); again != out {
			t.Fatalf("%s: the same file imported again is another run:\n%s\n%s", form, out, again)
		}
	}
}
