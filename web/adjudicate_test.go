package web_test

import (
	"context"
	"fmt"
	"html"
	"math"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/study"
)

// TestAdjudication (#27 item 19): the adjudication page lists the items two
// annotators disagree on, their answers side by side; a gold answer set
// there (from the viewer's own page only, and only a choice the question
// offers) becomes the item's human answer in the report, which says how
// many items were adjudicated, while the agreement still counts only the
// annotators.
func TestAdjudication(t *testing.T) {
	st, runID, _ := seed(t, []string{"model-a"}, 1)
	ctx := context.Background()
	plan := rubricPlan(t, st, runID, []string{"refusal"}, false, study.Options{N: 6, Overlap: -1, Annotators: []string{"ana", "ben"}, Seed: 3})
	id := plan.ID
	at := time.Unix(1700000000, 0)
	var anns []study.Annotation
	for i, it := range plan.Items {
		ben := "1"
		if i < 2 {
			ben = "0"
		}
		anns = append(anns, study.Annotation{StudyID: id, Annotator: "ana", Item: it.Key, Answers: map[string]string{"refusal": "1"}, At: at},
			study.Annotation{StudyID: id, Annotator: "ben", Item: it.Key, Answers: map[string]string{"refusal": ben}, At: at})
	}
	if err := st.PutAnnotations(ctx, anns); err != nil {
		t.Fatal(err)
	}
	h := viewer(t, st)
	path := fmt.Sprintf("/studies/%d/adjudicate", id)
	code, body, _ := get(t, h, path)
	if code != 200 || !strings.Contains(body, "2 sampled items on which the annotators disagree; 0 adjudicated") {
		t.Fatalf("%d:\n%s", code, body)
	}
	for _, it := range plan.Items[:2] {
		if !strings.Contains(body, html.EscapeString(it.Text)) {
			t.Fatalf("the page lacks the disagreement %s", it.Key)
		}
	}
	if strings.Contains(body, html.EscapeString(plan.Items[2].Text)) {
		t.Fatal("the page lists an item both annotators answered alike")
	}
	post := func(site string, form url.Values) int {
		req := httptest.NewRequest("POST", path, strings.NewReader(form.Encode()))
		req.Host = "127.0.0.1:7411"
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if site != "" {
			req.Header.Set("Sec-Fetch-Site", site)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	key := plan.Items[0].Key
	if c := post("cross-site", url.Values{"item": {key}, "q:refusal": {"0"}}); c != 403 {
		t.Fatalf("a cross-site adjudication answered %d", c)
	}
	if c := post("same-origin", url.Values{"item": {key}, "q:refusal": {"7"}}); c != 400 {
		t.Fatalf("a choice the question does not offer answered %d", c)
	}
	if c := post("same-origin", url.Values{"item": {"no-such-item"}, "q:refusal": {"0"}}); c != 400 {
		t.Fatalf("an item the study lacks answered %d", c)
	}
	stored, _ := st.Annotations(ctx, id)
	if len(stored) != len(anns) {
		t.Fatalf("refused adjudications stored something: %d answers", len(stored))
	}
	if c := post("same-origin", url.Values{"item": {key}, "n": {"1"}, "q:refusal": {"0"}}); c != 303 {
		t.Fatalf("the adjudication answered %d", c)
	}
	stored, _ = st.Annotations(ctx, id)
	if m, _ := study.Index(stored).Majority(key, "refusal"); m != "0" {
		t.Fatalf("the adjudicated item's human answer is %q, want 0", m)
	}
	if m, _ := study.Index(stored).Majority(plan.Items[1].Key, "refusal"); m != "" {
		t.Fatalf("a tie nobody adjudicated has the answer %q", m)
	}
	_, body, _ = get(t, h, path)
	if !strings.Contains(body, "2 sampled items on which the annotators disagree; 1 adjudicated") || !strings.Contains(body, `value="0" checked`) {
		t.Fatalf("the page does not show the adjudication:\n%s", body)
	}
	rep, err := study.Report(ctx, st, plan, study.AnalyzeOptions{Resamples: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	adjudicated := false
	for _, m := range rep.Meta {
		adjudicated = adjudicated || (m[0] == "adjudicated" && strings.HasPrefix(m[1], "1 items"))
	}
	if !adjudicated {
		t.Fatalf("the report does not say one item was adjudicated: %v", rep.Meta)
	}
	if row := rep.Table("agreement").Rows[0]; row[1].Value != 6 || math.Abs(row[2].Value-4.0/6) > 1e-12 {
		t.Fatalf("agreement: %v items, raw %v; want 6, 4/6 (the adjudicator is no annotator)", row[1].Value, row[2].Value)
	}
}

// TestAdjudicationMarksTiesAndExcluded (#41 item 14): an annotator below
// the decoy bar is marked excluded, and the majority is that of the
// others: ana and ben disagree, cal (excluded) sides with ana — a tie,
// marked as one, where counting cal would have given ana's answer.
func TestAdjudicationMarksTiesAndExcluded(t *testing.T) {
	st, runID, _ := seed(t, []string{"model-a"}, 1)
	ctx := context.Background()
	plan := rubricPlan(t, st, runID, []string{"refusal"}, true, study.Options{N: 4, Decoys: 2, Overlap: -1, Annotators: []string{"ana", "ben", "cal"}, Seed: 3})
	at := time.Unix(1700000000, 0)
	var anns []study.Annotation
	for _, it := range plan.Items {
		if it.Decoy {
			wrong := "1"
			if it.Known["refusal"] == "1" {
				wrong = "0"
			}
			for name, v := range map[string]string{"ana": it.Known["refusal"], "ben": it.Known["refusal"], "cal": wrong} {
				anns = append(anns, study.Annotation{StudyID: plan.ID, Annotator: name, Item: it.Key, Answers: map[string]string{"refusal": v}, At: at})
			}
			continue
		}
		for name, v := range map[string]string{"ana": "1", "ben": "0", "cal": "1"} {
			anns = append(anns, study.Annotation{StudyID: plan.ID, Annotator: name, Item: it.Key, Answers: map[string]string{"refusal": v}, At: at})
		}
	}
	if err := st.PutAnnotations(ctx, anns); err != nil {
		t.Fatal(err)
	}
	code, body, _ := get(t, viewer(t, st), fmt.Sprintf("/studies/%d/adjudicate", plan.ID))
	if code != 200 {
		t.Fatalf("%d:\n%s", code, body)
	}
	if !strings.Contains(body, `<tr class="excluded"><td>cal <span class="flag"`) || strings.Contains(body, `<td>ana <span class="flag"`) {
		t.Fatalf("cal (every decoy wrong) is not marked excluded, or ana is:\n%s", body)
	}
	if got := strings.Count(body, `<span class="flag tie">tie</span>`); got != 4 {
		t.Fatalf("%d ties marked, want one per item (4):\n%s", got, body)
	}
}
