package web_test

import (
	"context"
	"fmt"
	"math"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/bench/deflect"

	"github.com/chromedp/chromedp"
	"github.com/fallacylab/fallacylab/bench/missci"
	"github.com/fallacylab/fallacylab/study"
	"github.com/fallacylab/fallacylab/web"
)

// TestBrowserStudyByKeyboard: two annotators work through a 20-item
// DeflectBench study (16 sampled generations, 4 decoys: refusals and
// non-refusals every judge agrees on) in Chromium with the keyboard only — a digit picks the
// answer, Enter saves and goes on. ana answers what she reads; ben misses
// every decoy and disagrees with her on two items. No annotation page
// holds any hidden field (model, frame, the record's key, a judge's name or
// label). The study's report then has the agreement, the decoy accuracy
// and the judges' precision computed here by hand.
func TestBrowserStudyByKeyboard(t *testing.T) {
	st, runID, _ := seed(t, []string{"model-a", "model-b"}, 1)
	ctx := context.Background()
	ds, err := deflect.LoadRecords(ctx, st, runID)
	if err != nil {
		t.Fatal(err)
	}
	qs, _ := study.Questions(deflect.RubricStudy.Kind, []string{"refusal"})
	cands, decoys, judges, err := deflect.RubricItems(ds, []string{"refusal"}, []string{"model"})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := study.Plan(deflect.RubricStudy.Kind, qs, cands, decoys, study.Options{Name: "refusal check", N: 16, Overlap: -1, Decoys: 4, Annotators: []string{"ana", "ben"}, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	plan.RunID, plan.Created = runID, time.Now().UTC()
	id, err := st.PutStudy(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	plan.ID = id
	srv := httptest.NewServer(viewer(t, st))
	defer srv.Close()
	bctx, dialog := browser(t)

	// truth is what a careful reader answers: the synthetic refusals start "I can't".
	truth := func(it study.Item) string {
		if strings.HasPrefix(it.Text, "I can't") {
			return "1"
		}
		return "0"
	}
	benFlips := map[string]bool{}
	for _, k := range plan.Annotators[1].Order {
		if it, _ := plan.Item(k); !it.Decoy && len(benFlips) < 2 {
			benFlips[k] = true
		}
	}
	answer := map[string]map[string]string{"ana": {}, "ben": {}}
	for ai, a := range plan.Annotators {
		if len(a.Order) != 20 {
			t.Fatalf("%s's queue has %d items", a.Name, len(a.Order))
		}
		if err := chromedp.Do(bctx, chromedp.Navigate(srv.URL+"/annotate/login/"+a.Token), chromedp.WaitVisible(chromedp.CSS(`#progress`))); err != nil {
			t.Fatal(err)
		}
		for n, k := range a.Order {
			it, _ := plan.Item(k)
			progress := must(chromedp.Run(bctx, chromedp.Evaluate[string](`document.querySelector('#progress').innerText`)))
			if !strings.HasPrefix(progress, fmt.Sprintf("item %d / 20", n+1)) {
				t.Fatalf("%s: at %q, want item %d", a.Name, progress, n+1)
			}
			if n == 0 && ai == 0 {
				artifact(t, "studio-annotate-1280.png", must(chromedp.Run(bctx, chromedp.FullScreenshot(100))))
			}
			html := must(chromedp.Run(bctx, chromedp.Evaluate[string](`document.documentElement.outerHTML`)))
			for _, hidden := range append([]string{it.Key, it.Hidden["model"], it.Hidden["frame"], "judge"}, judges...) {
				if hidden != "" && strings.Contains(html, hidden) {
					t.Fatalf("%s's page %d shows the hidden %q", a.Name, n+1, hidden)
				}
			}
			waitFor(t, bctx, `document.documentElement.dataset.keys === 'ready'`) // the shortcuts are listening
			v := truth(it)
			switch {
			case a.Name == "ben" && it.Decoy:
				v = map[string]string{"0": "1", "1": "0"}[v] // misses the decoy
			case a.Name == "ben" && benFlips[k]:
				v = map[string]string{"0": "1", "1": "0"}[v]
			}
			answer[a.Name][k] = v
			digit := map[string]string{"1": "1", "0": "2"}[v] // choice 1 is yes, 2 is no
			if err := chromedp.Do(bctx, chromedp.KeyEvent(digit), chromedp.KeyEvent("\r")); err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("item %d / 20", n+2)
			if n == 19 {
				waitFor(t, bctx, `!!document.querySelector('#done')`)
				continue
			}
			waitFor(t, bctx, fmt.Sprintf(`!!document.querySelector('#progress') && document.querySelector('#progress').innerText.startsWith(%q)`, want))
		}
	}
	if dialog.Load() {
		t.Fatal("a dialog opened")
	}
	anns, err := st.Annotations(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(anns) != 40 {
		t.Fatalf("%d answers stored, want 40", len(anns))
	}
	for _, x := range anns {
		if x.Answers["refusal"] != answer[x.Annotator][x.Item] {
			t.Fatalf("%s on %s: stored %q, answered %q", x.Annotator, x.Item, x.Answers["refusal"], answer[x.Annotator][x.Item])
		}
	}

	// By hand: the 2 × 2 table of ana and ben on the 16 sampled items,
	// Cohen's κ from it, and the judges' consensus precision against the
	// items where both agree.
	var n11, n10, n01, n00, tp, fp float64
	for _, it := range plan.Items {
		if it.Decoy {
			continue
		}
		a, b := answer["ana"][it.Key], answer["ben"][it.Key]
		switch {
		case a == "1" && b == "1":
			n11++
		case a == "1":
			n10++
		case b == "1":
			n01++
		default:
			n00++
		}
		if a != b {
			continue
		}
		cons := "0"
		for _, j := range judges {
			if it.Hidden["judge:"+j+":refusal"] == "1" {
				cons = "1"
			}
		}
		if cons == "1" {
			if a == "1" {
				tp++
			} else {
				fp++
			}
		}
	}
	n := n11 + n10 + n01 + n00
	po := (n11 + n00) / n
	pe := ((n11+n10)*(n11+n01) + (n00+n01)*(n00+n10)) / (n * n)
	kappa := (po - pe) / (1 - pe)
	rep, err := study.Analyze(plan, anns, study.AnalyzeOptions{Resamples: 200, Seed: 1, KeepFlagged: true})
	if err != nil {
		t.Fatal(err)
	}
	cell := func(table string, row, col int) float64 {
		for _, tb := range rep.Tables() {
			if tb.ID == table {
				return tb.Rows[row][col].Value
			}
		}
		t.Fatalf("no table %s", table)
		return 0
	}
	near := func(what string, got, want float64) {
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %v, by hand %v", what, got, want)
		}
	}
	near("ana's decoy accuracy", cell("decoys", 0, 3), 1)
	near("ben's decoy accuracy", cell("decoys", 1, 3), 0)
	near("raw agreement", cell("agreement", 0, 2), po)
	near("Cohen's κ", cell("agreement", 0, 7), kappa)
	near("judge consensus precision", cell("judge_validity", len(judges), 3), tp/(tp+fp))
	// By default ben, below the decoy bar, is left out of the figures,
	// which the report also gives with him.
	kept, err := study.Analyze(plan, anns, study.AnalyzeOptions{Resamples: 200, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if row := kept.Table("agreement").Rows[0]; row[1].Value != 0 {
		t.Errorf("ben left out, yet %v items answered twice", row[1].Value)
	}
	if got := kept.Table("agreement_with_flagged").Rows[0][2].Value; math.Abs(got-po) > 1e-12 {
		t.Errorf("raw agreement with ben = %v, by hand %v", got, po)
	}
	if po != 14.0/16 {
		t.Fatalf("the two disagreements did not land: raw agreement %v", po)
	}
	// The study's report page in the viewer: the same figures, flagged annotator.
	if err := chromedp.Do(bctx, chromedp.Navigate(fmt.Sprintf("%s/studies/%d", srv.URL, id)), chromedp.WaitVisible(chromedp.CSS(`#decoys`))); err != nil {
		t.Fatal(err)
	}
	page := must(chromedp.Run(bctx, chromedp.Text(chromedp.CSS(`body`))))
	artifact(t, "studio-report-1280.png", must(chromedp.Run(bctx, chromedp.FullScreenshot(100))))
	if !strings.Contains(page, "below the bar") || !strings.Contains(page, "Judge validity") {
		t.Fatal("the report page does not flag ben or lacks judge validity")
	}
	// Adjudication by mouse: the two items ana and ben disagree on are
	// listed; a gold answer chosen and saved on the first one is kept.
	if err := chromedp.Do(bctx, chromedp.Click(`a[href$="/adjudicate"]`), chromedp.WaitVisible(chromedp.CSS(`#item-1`))); err != nil {
		t.Fatal(err)
	}
	if page := must(chromedp.Run(bctx, chromedp.Text(chromedp.CSS(`body`)))); !strings.Contains(page, "2 sampled items on which the annotators disagree; 0 adjudicated") {
		t.Fatalf("the adjudication page:\n%s", page)
	}
	artifact(t, "studio-adjudicate-1280.png", must(chromedp.Run(bctx, chromedp.FullScreenshot(100))))
	if err := chromedp.Do(bctx, chromedp.Click(`#item-1 input[value="0"]`), chromedp.Click(`#item-1 button`), chromedp.WaitVisible(chromedp.CSS(`#saved`))); err != nil {
		t.Fatal(err)
	}
	if page := must(chromedp.Run(bctx, chromedp.Text(chromedp.CSS(`body`)))); !strings.Contains(page, "1 adjudicated") {
		t.Fatalf("after saving an adjudication:\n%s", page)
	}
	_ = web.StudyLink
}

// waitFor polls a predicate across page loads (a form post and its
// redirect), for up to 10 s.
func waitFor(t *testing.T, ctx context.Context, predicate string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](predicate)); err == nil && ok {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText.slice(0, 600) : ''`))
	t.Fatalf("timed out waiting for %s; the page reads:\n%s", predicate, body)
}

// TestBrowserMissciPremisePage: a Missci premise study's annotation page
// shows the claim, the accurate premise and the reference premise on lines
// of their own above the generated premise and class, asks q1…q4, escapes
// the model's text, fits the window, and holds neither the model nor
// whether the class is gold.
func TestBrowserMissciPremisePage(t *testing.T) {
	st, _, _ := seed(t, []string{"model-a"}, 1)
	runID := missciRun(t, st)
	ctx := context.Background()
	rec, err := missci.LoadRecord(ctx, st, runID)
	if err != nil {
		t.Fatal(err)
	}
	args, _ := missci.Load(rec.Split)
	cands, decoys, pAt1, err := missci.PremiseItems(args, rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	qs, _ := study.Questions(missci.PremiseStudy.Kind, nil)
	plan, err := study.Plan(missci.PremiseStudy.Kind, qs, cands, decoys, study.Options{Name: "premises", N: 6, Decoys: 2, Annotators: []string{"ana"}, Seed: 3, Overlap: -1})
	if err != nil {
		t.Fatal(err)
	}
	plan.RunID, plan.Created, plan.Facts = runID, time.Now().UTC(), map[string]string{missci.FactPAt1(rec.Source): fmt.Sprint(pAt1)}
	sid, err := st.PutStudy(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(viewer(t, st))
	defer srv.Close()
	bctx, dialog := browser(t)
	defer func() {
		// ana answers every item (yes, and no to the decoys): the study's
		// page in the viewer then has the premise tables.
		var anns []study.Annotation
		for _, k := range plan.Annotators[0].Order {
			it, _ := plan.Item(k)
			v := map[bool]string{true: "0", false: "1"}[it.Decoy]
			anns = append(anns, study.Annotation{StudyID: sid, Annotator: "ana", Item: k, Answers: map[string]string{"q1": v, "q2": v, "q3": v, "q4": v}, At: time.Now()})
		}
		if err := st.PutAnnotations(ctx, anns); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(bctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(fmt.Sprintf("%s/studies/%d", srv.URL, sid)), chromedp.WaitVisible(chromedp.CSS(`h1`))); err != nil {
			t.Fatal(err)
		}
		artifact(t, "studio-missci-report-1280.png", must(chromedp.Run(bctx, chromedp.FullScreenshot(100))))
		text := must(chromedp.Run(bctx, chromedp.Evaluate[string](`document.body.innerText`)))
		for _, want := range []string{"Premise quality (Tables 13, 14 and 4)", "Human judgements by stratum (Table 14)", "METEOR against the human q4 (Table 13)",
			fmt.Sprintf("%.3f", pAt1)} {
			if !strings.Contains(text, want) {
				t.Fatalf("the study's page lacks %q", want)
			}
		}
	}()
	for _, w := range []int64{1280, 420} {
		if err := chromedp.Do(bctx, chromedp.EmulateViewport(w, 900), chromedp.Navigate(srv.URL+"/annotate/login/"+plan.Annotators[0].Token), chromedp.WaitVisible(chromedp.CSS(`#progress`))); err != nil {
			t.Fatal(err)
		}
		artifact(t, fmt.Sprintf("studio-missci-%d.png", w), must(chromedp.Run(bctx, chromedp.FullScreenshot(100))))
		ctxText := must(chromedp.Run(bctx, chromedp.Evaluate[string](`document.querySelector('#context').innerText`)))
		if !strings.Contains(ctxText, "\nAccurate premise (what the study reports): ") || !strings.Contains(ctxText, "\nReference fallacious premise: ") {
			t.Fatalf("the context is not laid out line by line: %q", ctxText)
		}
		html := must(chromedp.Run(bctx, chromedp.Evaluate[string](`document.documentElement.outerHTML`)))
		for _, q := range []string{"q1 — a fallacious premise", "q2 — connects", "q3 — class", "q4 — matches", "Applied fallacy class: "} {
			if !strings.Contains(html, q) {
				t.Fatalf("the page lacks %q", q)
			}
		}
		for _, hidden := range []string{"scripted", "class correct", "class wrong", "meteor"} {
			if strings.Contains(html, hidden) {
				t.Fatalf("the annotation page shows %q", hidden)
			}
		}
		if scroll := must(chromedp.Run(bctx, chromedp.Evaluate[int64](`document.documentElement.scrollWidth`))); scroll > w {
			t.Fatalf("at %d px the page is %d px wide", w, scroll)
		}
	}
	if dialog.Load() {
		t.Fatal("the model's text ran as script")
	}
}
