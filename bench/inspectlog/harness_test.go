package inspectlog_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
	// The imported log of a classification run compares with classification
	// runs, in the command and in the viewer: with the run it came from, it
	// differs nowhere.
	rep := h.Report("compare", "1", "2", "--resamples", "50")
	if row := benchtest.Table(t, rep, "paired").Rows[0]; row[0].Text != "accuracy" || row[3].Text != "24 / 24 / 24" || row[7].Value != 0 {
		t.Fatalf("the run against its own imported log: %+v", row)
	}
	page := h.Viewer()("GET", "/compare?a=1&b=2", nil)
	if body := page.Body.String(); page.Code != 200 || !strings.Contains(body, "imported log of a Fallacy classification run") || !strings.Contains(body, "Paired comparisons on the shared items") {
		t.Fatalf("the viewer's comparison: %d\n%.2000s", page.Code, body)
	}
}
