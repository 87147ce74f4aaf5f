package mafalda_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/bench/benchtest"
	"github.com/fallacylab/fallacylab/llm/llmtest"
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
