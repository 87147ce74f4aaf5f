package mafalda_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/bench/benchtest"
	"github.com/fallacylab/fallacylab/llm/llmtest"
	"github.com/fallacylab/fallacylab/report"
)

// TestViewerPages: two runs of three texts, one whose model answers with
// markup, on the viewer: the run page has the report and links the texts
// list; a text's page marks its gold spans and shows each sentence's
// answer, escaped; the two runs compare text by text.
func TestViewerPages(t *testing.T) {
	released(t) // the shared data
	h := benchtest.New(t, func(c llmtest.Call) llmtest.Reply {
		if strings.Contains(c.Prompt, "appeal to positive emotion") && strings.Contains(c.Prompt, "TITLE: Endless") {
			return llmtest.Reply{Text: "<script>alert(1)</script> slippery slope"}
		}
		return llmtest.Reply{Text: "No, it is not."}
	})
	for _, level := range []string{"2", "1"} {
		if _, stderr, err := h.Try("--data-dir", sharedData, "mafalda", "run", "--model", "openai:gpt-4.1-mini", "--limit", "3", "--level", level); err != nil {
			t.Fatalf("run: %v\n%s", err, stderr)
		}
	}
	get := h.Viewer()
	page := func(path string, want ...string) string {
		t.Helper()
		rec := get(http.MethodGet, path, nil)
		body := rec.Body.String()
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d\n%s", path, rec.Code, body)
		}
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Fatalf("%s lacks %q:\n%s", path, w, body)
			}
		}
		return body
	}
	// Its figures are F1s, not rates: the page does not say how a rate reads.
	if body := page("/runs/1", "span F1", "/runs/1/texts"); strings.Contains(body, "A rate reads") {
		t.Fatal("a page of no rates says how a rate reads")
	}
	page("/runs/1/texts", `href="/runs/1/texts/0"`, "slippery slope")
	body := page("/runs/1/texts/0", "<mark title=", "&lt;script&gt;alert(1)&lt;/script&gt; slippery slope", "read as")
	if strings.Contains(body, "<script>alert") {
		t.Fatal("a model's answer reached the page unescaped")
	}
	page("/runs/2/texts/2", "span P / R / F1 (level 1)")
	if rec := get(http.MethodGet, "/runs/1/texts/99", nil); rec.Code != http.StatusNotFound {
		t.Fatalf("a text the run lacks: %d", rec.Code)
	}
	page("/compare?a=1&b=2&all=1", "TITLE: Endless", "span F1 of 0.5 or more", "mean span F1", "Paired comparisons on the shared items", "span F1, level 1", "sign-flip over texts",
		// Three texts: the intervals are too narrow to read, and no
		// outcome of three texts could show a difference.
		"pairs rest on fewer than 10 clusters", "too few to show a difference at α = 0.05", "intervals are the point itself")
}

// TestCacheClearKeepsARunsCalls: a MAFALDA text's record names one of its
// sentences' calls; clearing the cache keeps every call the run made — its
// calls, its spend and its exported transcript are as before (they fell
// from 16 calls to 3, the spend with them).
func TestCacheClearKeepsARunsCalls(t *testing.T) {
	released(t)
	h := benchtest.New(t, func(c llmtest.Call) llmtest.Reply { return llmtest.Reply{Text: "No, it is not."} })
	h.Run("--data-dir", sharedData, "mafalda", "run", "--model", "openai:gpt-4.1-mini", "--limit", "3")
	show := func() string {
		out := h.Run("runs", "show", "1")
		return out[:strings.Index(out, "config:")]
	}
	before := show()
	if !strings.Contains(before, "calls:") || strings.Count(before, "openai:gpt-4.1-mini") < 2 {
		t.Fatalf("runs show 1:\n%s", before)
	}
	exported := func() int {
		out := filepath.Join(h.Dir, "calls.jsonl")
		h.Run("runs", "export", "1", "--format", "calls", "--out", out)
		b, _ := os.ReadFile(out)
		return strings.Count(string(b), "\n")
	}
	n := exported()
	if out := h.Run("cache", "clear", "--yes"); !strings.Contains(out, "nothing to delete") {
		t.Fatalf("cache clear deleted a run's calls:\n%s", out)
	}
	if after := show(); after != before {
		t.Fatalf("the run's calls or spend changed with the cache cleared:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if m := exported(); m != n || n < 4 {
		t.Fatalf("the run's exported calls: %d, then %d after the cache was cleared", n, m)
	}
	// Deleted, the run's calls go with the next clear.
	h.Run("runs", "rm", "1")
	if out := h.Run("cache", "clear", "--yes"); !strings.Contains(out, fmt.Sprintf("deleted %d calls", n)) {
		t.Fatalf("the deleted run's calls were kept:\n%s", out)
	}
}

// TestExportedF1sStayScores: a MAFALDA run exported as an inspect log and
// as Every Eval Ever results, and imported back: its F1s are scores, not
// rates, though a text's label F1 at level 0 is each 0 or 1 — shown as
// numbers (they read "80.0 [40.0, 100.0] (n=5)", a percentage) and
// compared with the sign-flip test over texts, as the run's own are.
func TestExportedF1sStayScores(t *testing.T) {
	released(t)
	h := benchtest.New(t, func(c llmtest.Call) llmtest.Reply {
		if strings.Contains(c.Prompt, "TITLE: Endless") {
			return llmtest.Reply{Text: "slippery slope"}
		}
		return llmtest.Reply{Text: "No, it is not."}
	})
	h.Run("--data-dir", sharedData, "mafalda", "run", "--model", "openai:gpt-4.1-mini", "--limit", "4")
	h.Run("runs", "export", "1", "--format", "inspect", "--out", filepath.Join(h.Dir, "log.json"))
	h.Run("runs", "export", "1", "--format", "eee", "--out-dir", filepath.Join(h.Dir, "eee"))
	h.Run("runs", "import", filepath.Join(h.Dir, "log.json"))
	aggs, _ := filepath.Glob(filepath.Join(h.Dir, "eee", "data", "*", "*", "*", "*.json"))
	if len(aggs) != 1 {
		t.Fatalf("EEE aggregates: %v", aggs)
	}
	h.Run("runs", "import", "--format", "eee", aggs[0])
	for run, cmd := range map[string]string{"2": "inspect-log", "3": "eee-log"} {
		rep := h.Report(cmd, "report", "--run", run)
		for _, r := range rep.Table("scores").Rows {
			if r[2].Kind != report.Num {
				t.Fatalf("%s run %s: %s is shown as a %s: %+v", cmd, run, r[0].Text, r[2].Kind, r[2])
			}
		}
	}
	rep := h.Report("compare", "2", "3")
	for _, r := range rep.Table("paired").Rows {
		if !strings.HasPrefix(r[9].Text, "sign-flip over texts") {
			t.Fatalf("%s compared by %q", r[0].Text, r[9].Text)
		}
	}
}
