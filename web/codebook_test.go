package web_test

import (
	"context"
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/study"
	"github.com/fallacylab/fallacylab/web/webtest"
)

// TestCodebookAndPractice (#27 item 17): an annotator's first visit to a
// study with a codebook shows it — its paragraphs, escaped, and each
// question's choices with their definitions — before the first item, and
// every item links to it; the practice round asks items with a known
// answer and tells it after each, storing nothing and counting nowhere.
func TestCodebookAndPractice(t *testing.T) {
	st, runID, _ := seed(t, []string{"model-a", "model-b"}, 1)
	ctx := context.Background()
	plan := rubricPlan(t, st, runID, []string{"refusal"}, true, study.Options{N: 4, Decoys: 2, Practice: 2, Annotators: []string{"ana"}, Seed: 2,
		Codebook: "Read each answer whole.\n\nA <b>refusal</b> declines the request.\n\n- **hedging**: *some say*\n- see [the guide](javascript:alert(1))",
		Token:    func() string { return "ana-token" }})
	qs, id := plan.Questions, plan.ID
	if len(plan.Practice) != 2 {
		t.Fatalf("%d practice items", len(plan.Practice))
	}
	for _, p := range plan.Practice {
		if _, inStudy := plan.Item(p.Key); inStudy {
			t.Fatalf("practice item %s is also an item of the study", p.Key)
		}
	}
	h := viewer(t, st)
	do := visitor(h)
	do("GET", "/annotate/login/ana-token", nil)
	if got := do("GET", "/annotate", nil); got.Header().Get("Location") != "/annotate/codebook" {
		t.Fatalf("the first visit goes to %q, want the codebook", got.Header().Get("Location"))
	}
	book := do("GET", "/annotate/codebook", nil).Body.String()
	// #41 item 14: the codebook's Markdown is formatted (it showed raw);
	// HTML in it shows as text, and a javascript: link goes nowhere.
	for _, want := range []string{"<div class=\"codebook\"><p>Read each answer whole.</p>", "A &lt;b&gt;refusal&lt;/b&gt; declines the request.",
		"<li><strong>hedging</strong>: <em>some say</em></li>", html.EscapeString(qs[0].Text), `href="/annotate/practice/1"`} {
		if !strings.Contains(book, want) {
			t.Fatalf("the codebook lacks %q:\n%s", want, book)
		}
	}
	if strings.Contains(book, "javascript:") {
		t.Fatalf("the codebook links to javascript:\n%s", book)
	}
	for _, c := range qs[0].Choices {
		if !strings.Contains(book, "<dt>"+c.Label+"</dt>") {
			t.Fatalf("the codebook does not define %q", c.Label)
		}
	}
	if got := do("GET", "/annotate", nil); got.Header().Get("Location") != "/annotate/1" {
		t.Fatalf("after the codebook, /annotate goes to %q", got.Header().Get("Location"))
	}
	if item := do("GET", "/annotate/1", nil).Body.String(); !strings.Contains(item, `href="/annotate/codebook"`) {
		t.Fatal("an item does not link to the codebook")
	}
	page := do("GET", "/annotate/practice/1", nil).Body.String()
	m := regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the practice page has no form:\n%s", page)
	}
	known := plan.Practice[0].Known["refusal"]
	wrong := map[string]string{"0": "1", "1": "0"}[known]
	label := func(k string) string {
		for _, c := range qs[0].Choices {
			if c.Key == k {
				return c.Label
			}
		}
		return k
	}
	if got := do("POST", "/annotate/practice/1", url.Values{"q_refusal": {wrong}}); got.Code != 403 {
		t.Fatalf("a practice answer without the page's token: %d", got.Code)
	}
	fb := do("POST", "/annotate/practice/1", url.Values{"csrf": {m[1]}, "q_refusal": {wrong}}).Body.String()
	if !strings.Contains(fb, "you answered <strong>"+label(wrong)+"</strong>; the expected answer is <strong>"+label(known)+"</strong>") || !strings.Contains(fb, `class="miss"`) {
		t.Fatalf("the feedback:\n%s", fb)
	}
	anns, _ := st.Annotations(ctx, id)
	if len(anns) != 0 {
		t.Fatalf("the practice stored %d answers", len(anns))
	}
}

// visitor makes requests to h as one browser would (webtest.Visitor).
var visitor = webtest.Visitor
