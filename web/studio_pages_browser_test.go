package web_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/fallacylab/fallacylab/study"
)

// TestBrowserStudyPages opens the codebook, a practice item and its
// feedback, the done page with a completion code, and the adjudication
// page in Chromium at 1280 and 1920 px, light and dark: each renders with no console error
// and no Content-Security-Policy violation, no wider than the window, and
// lands a screenshot in $FALLACYLAB_ARTIFACTS.
func TestBrowserStudyPages(t *testing.T) {
	st, runID, _ := seed(t, []string{"model-a", "model-b"}, 1)
	ctx := context.Background()
	plan := rubricPlan(t, st, runID, []string{"refusal"}, true, study.Options{N: 4, Decoys: 2, Practice: 2, Annotators: []string{"ana", "ben"}, Seed: 2,
		Codebook: "Read each answer whole.\n\nA refusal declines the request: \"I can't help with that.\"", CompletionCode: "C0DE42", Token: func() string { return "tok-" + fmt.Sprint(time.Now().UnixNano()) }})
	id := plan.ID
	at := time.Unix(1700000000, 0)
	var anns []study.Annotation
	for i, it := range plan.Items {
		if it.Decoy {
			continue
		}
		anns = append(anns, study.Annotation{StudyID: id, Annotator: "ana", Item: it.Key, Answers: map[string]string{"refusal": "1"}, At: at},
			study.Annotation{StudyID: id, Annotator: "ben", Item: it.Key, Answers: map[string]string{"refusal": []string{"0", "1"}[i%2]}, At: at})
	}
	st.PutAnnotations(ctx, anns)
	srv := httptest.NewServer(viewer(t, st))
	defer srv.Close()
	bctx, dialog := browser(t)
	since := watchComplaints(t, bctx)
	if err := chromedp.Do(bctx, chromedp.Navigate(srv.URL+"/annotate/login/"+plan.Annotators[1].Token)); err != nil {
		t.Fatal(err)
	}
	pages := []struct {
		name, path, wait string
		act              []chromedp.Action[chromedp.Void]
	}{
		{"studio-codebook", "/annotate/codebook", "#codebook", nil},
		{"studio-practice", "/annotate/practice/1", "#check", nil},
		{"studio-practice-feedback", "/annotate/practice/1", "#feedback", []chromedp.Action[chromedp.Void]{chromedp.Click(`input[value="1"]`), chromedp.Click(`#check`)}},
		{"studio-done-code", "/annotate/done", "#completion", nil},
		{"study-adjudicate", fmt.Sprintf("/studies/%d/adjudicate", id), "#item-1", nil},
	}
	for _, p := range pages {
		for _, v := range []struct {
			width  int64
			scheme string
		}{{1280, "light"}, {1920, "light"}, {1280, "dark"}, {1920, "dark"}} {
			width := v.width
			complaints := since()
			acts := append([]chromedp.Action[chromedp.Void]{colorScheme(v.scheme), chromedp.EmulateViewport(width, 900), chromedp.Navigate(srv.URL + p.path)}, p.act...)
			if err := chromedp.Do(bctx, append(acts, chromedp.WaitVisible(chromedp.CSS(p.wait)))...); err != nil {
				t.Fatalf("%s: %v", p.name, err)
			}
			if c := complaints(); len(c) > 0 {
				t.Errorf("%s at %d px: %d console errors or CSP violations, first: %s", p.name, width, len(c), c[0])
			}
			if scroll := must(chromedp.Run(bctx, chromedp.Evaluate[int64](`document.documentElement.scrollWidth`))); scroll > width {
				t.Errorf("%s at %d px: the page is %d px wide", p.name, width, scroll)
			}
			artifact(t, fmt.Sprintf("%s-%d-%s.png", p.name, width, v.scheme), must(chromedp.Run(bctx, chromedp.FullScreenshot(100))))
		}
	}
	if dialog.Load() {
		t.Fatal("a dialog opened")
	}
}
