package web_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/fallacylab/fallacylab/study"
)

// TestBrowserMultiQuestionsByJoinLink (#27 items 18 and 22): a participant
// arrives by the study's shared link with a PROLIFIC_PID, lands on their
// first item, and answers a multi question by ticking boxes — one by the
// mouse, one by its digit key — and a likert one; the page renders at
// 1280 and 1920 px, light and dark, with no console error or CSP
// violation and no sideways scroll, and the answer is stored in the
// choices' order.
func TestBrowserMultiQuestionsByJoinLink(t *testing.T) {
	st, runID, _ := seed(t, []string{"model-a"}, 1)
	ctx := context.Background()
	c, err := study.ParseCustom([]byte(`questions:
  - {id: flaws, text: "Which flaws does the answer show?", type: multi, choices: [{key: h, label: hedging}, {key: a, label: personal attack}, {key: s, label: strawman}]}
  - {id: quality, text: "How good is it?", type: likert, scale: 5, low: poor, high: excellent}
`), "q.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := study.Study{RunID: runID, Kind: study.RecordsKind, Name: "flaws", Questions: c.Questions, Created: time.Now(), JoinToken: "join-secret",
		Items:      []study.Item{{Key: "r1", Text: "Well, some would say the claim is true, but those people are idiots anyway."}, {Key: "r2", Text: "another answer"}},
		Annotators: []study.Annotator{{Name: "slot1", Token: "slot1-token", Order: []string{"r1", "r2"}}}}
	id, err := st.PutStudy(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(viewer(t, st))
	defer srv.Close()
	bctx, dialog := browser(t)
	since := watchComplaints(t, bctx)
	join := srv.URL + "/annotate/join/join-secret?PROLIFIC_PID=5f1e0c0ffee0123456789abc&STUDY_ID=s1&SESSION_ID=x1"
	for _, v := range []struct {
		width  int64
		scheme string
	}{{1280, "light"}, {1920, "light"}, {1280, "dark"}, {1920, "dark"}} {
		complaints := since()
		if err := chromedp.Do(bctx, colorScheme(v.scheme), chromedp.EmulateViewport(v.width, 900), chromedp.Navigate(join), chromedp.WaitVisible(`#annotate`)); err != nil {
			t.Fatal(err)
		}
		if c := complaints(); len(c) > 0 {
			t.Errorf("item page at %d px %s: %d console errors or CSP violations, first: %s", v.width, v.scheme, len(c), c[0])
		}
		if scroll := must(chromedp.Run(bctx, chromedp.Evaluate[int64](`document.documentElement.scrollWidth`))); scroll > v.width {
			t.Errorf("item page at %d px: %d px wide", v.width, scroll)
		}
		artifact(t, fmt.Sprintf("studio-multi-%d-%s.png", v.width, v.scheme), must(chromedp.Run(bctx, chromedp.FullScreenshot(100))))
	}
	// #41 item 14: digits tick two boxes of a multi question — the focus
	// stays in it after the first — and the mouse a third.
	if err := chromedp.Do(bctx, chromedp.WaitVisible(`html[data-keys="ready"]`),
		chromedp.KeyEvent("1"), // the first unanswered question's first box: hedging
		chromedp.KeyEvent("3"), // the same question's third box: strawman
		chromedp.Click(`input[name="q_flaws"][value="a"]`),
		chromedp.Click(`input[name="q_quality"][value="2"]`),
		chromedp.Click(`#save`)); err != nil {
		t.Fatal(err)
	}
	// The save lands when the browser's POST does: wait for it.
	var anns []study.Annotation
	for deadline := time.Now().Add(10 * time.Second); len(anns) == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if anns, err = st.Annotations(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if len(anns) != 1 || anns[0].Answers["flaws"] != "h,a,s" || anns[0].Answers["quality"] != "2" || anns[0].Annotator != "slot1" {
		t.Fatalf("stored %+v", anns)
	}
	// On the second item, ← on a focused choice moves within its question
	// and stays on the page (before, it went back to the first item).
	if err := chromedp.Do(bctx, chromedp.WaitVisible(`#prev`), chromedp.WaitVisible(`html[data-keys="ready"]`)); err != nil {
		t.Fatal(err)
	}
	before := must(chromedp.Run(bctx, chromedp.Evaluate[string](`location.href`)))
	if err := chromedp.Do(bctx, chromedp.Click(`input[name="q_quality"][value="3"]`), chromedp.KeyEvent(kb.ArrowLeft),
		chromedp.Sleep(300*time.Millisecond)); err != nil { // a navigation, had it started, would be under way
		t.Fatal(err)
	}
	after := must(chromedp.Run(bctx, chromedp.Evaluate[string](`location.href`)))
	moved := must(chromedp.Run(bctx, chromedp.Evaluate[string](`(document.querySelector('input[name="q_quality"]:checked') || {}).value || ""`)))
	if after != before || moved != "2" {
		t.Fatalf("← on a focused choice left the page (%s → %s) or did not move the choice (%s)", before, after, moved)
	}
	if dialog.Load() {
		t.Fatal("a dialog opened")
	}
}
