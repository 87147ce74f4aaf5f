package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/bench/classify"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/store"
)

// TestTaskRunPage: the run page of a benchmark the viewer names nowhere (a
// Task) shows the report its `report` command makes from the stored
// records, model text escaped; a run that did not finish says it is
// partial. Its records are listed (filtered, sorted, exported) and each has
// a page with the call it was made from, escaped.
func TestTaskRunPage(t *testing.T) {
	st, _, _ := seed(t, []string{"model-a"}, 1)
	ctx := context.Background()
	id, _ := st.StartRun(ctx, store.Run{Name: "classify " + hostile[0], Benchmark: classify.Name, Version: "test"})
	setup, _ := json.Marshal(classify.Setup{Options: classify.Options{Corpus: "reddit", Split: "test", Template: "zero-shot", Model: "openai:<b>m</b>"},
		Labels: classify.LabelSet{"a", "b"}, Texts: 3})
	call := store.Call{Key: "call-1", Namespace: "classify/zero-shot", Provider: "openai", Model: "m", Status: store.StatusOK, Attempts: 1,
		Request:  json.RawMessage(`{"v":1,"request":{"messages":[{"role":"user","content":"Which fallacy? Text: ` + strings.ReplaceAll(hostile[1], `"`, `\"`) + `"}]}}`),
		Response: &llm.Response{Text: "a " + hostile[0]}}
	if err := st.PutCall(ctx, call); err != nil {
		t.Fatal(err)
	}
	var preds []store.Record
	for i, p := range []classify.Prediction{{ID: "t1", Gold: "a", Pred: "a"}, {ID: "t2", Gold: "b", Pred: "a"}, {ID: "t3", Gold: "b", Pred: "b"}} {
		b, _ := json.Marshal(p)
		preds = append(preds, store.Record{Key: p.ID, Body: b})
		if i == 0 {
			preds[0].CallKey = call.Key
		}
	}
	if err := st.PutRecords(ctx, id, classify.KindSetup, []store.Record{{Key: "setup", Body: setup}}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutRecords(ctx, id, classify.KindPrediction, preds); err != nil {
		t.Fatal(err)
	}
	h := viewer(t, st)
	code, body, _ := get(t, h, fmt.Sprintf("/runs/%d", id))
	if code != 200 || !strings.Contains(body, "Accuracy and F1") || !strings.Contains(body, "this report covers the records it holds") {
		t.Fatalf("%d\n%s", code, body)
	}
	if strings.Contains(body, "<b>m</b>") || strings.Contains(body, hostile[0]) {
		t.Fatal("model text is not escaped on the run page")
	}
	if !strings.Contains(body, fmt.Sprintf(`href="/runs/%d/records"`, id)) {
		t.Fatal("the run page does not link to its records")
	}
	code, body, _ = get(t, h, fmt.Sprintf("/runs/%d/records?gold=b", id))
	if code != 200 || strings.Count(body, "/records/t") != 2 || strings.Contains(body, "/records/t1") {
		t.Fatalf("records filtered by gold: %d\n%s", code, body)
	}
	// #41 item 19: the filter in force shows, with a link that lifts it,
	// and the search form keeps it.
	for _, want := range []string{"2 of 3 records", `gold = b <a href="/runs/` + fmt.Sprint(id) + `/records?" title="lift this filter">×</a>`,
		`<input type="hidden" name="gold" value="b">`} {
		if !strings.Contains(body, want) {
			t.Fatalf("the filtered list lacks %q:\n%s", want, body)
		}
	}
	if code, body, _ = get(t, h, fmt.Sprintf("/runs/%d/records?export=csv&sort=id&desc=1", id)); code != 200 || body != "id,gold,predicted,right,text,call\nt3,b,b,yes,,\nt2,b,a,no,,\nt1,a,a,yes,,call-1\n" {
		t.Fatalf("export: %d\n%q", code, body)
	}
	code, body, _ = get(t, h, fmt.Sprintf("/runs/%d/records/t1", id))
	if code != 200 || !strings.Contains(body, "Which fallacy? Text:") || !strings.Contains(body, "<h3>answer</h3>") {
		t.Fatalf("record page: %d\n%s", code, body)
	}
	if strings.Contains(body, hostile[0]) || strings.Contains(body, hostile[1]) {
		t.Fatal("the call's text is not escaped on the record page")
	}
	if code, _, _ = get(t, h, fmt.Sprintf("/runs/%d/records/nope", id)); code != 404 {
		t.Fatalf("an unknown record: %d", code)
	}
	st.FinishRun(ctx, id, store.RunDone)
	// Two runs of it compare record by record on the predicted label.
	other, _ := st.StartRun(ctx, store.Run{Name: "classify other", Benchmark: classify.Name, Version: "test"})
	var others []store.Record
	for _, p := range []classify.Prediction{{ID: "t1", Gold: "a", Pred: "b"}, {ID: "t2", Gold: "b", Pred: "a"}, {ID: "t3", Gold: "b", Pred: "b"}} {
		b, _ := json.Marshal(p)
		others = append(others, store.Record{Key: p.ID, Body: b})
	}
	if err := st.PutRecords(ctx, other, classify.KindSetup, []store.Record{{Key: "setup", Body: setup}}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutRecords(ctx, other, classify.KindPrediction, others); err != nil {
		t.Fatal(err)
	}
	st.FinishRun(ctx, other, store.RunDone)
	code, body, _ = get(t, viewer(t, st), fmt.Sprintf("/compare?a=%d&b=%d", id, other))
	if code != 200 || !strings.Contains(body, fmt.Sprintf("/runs/%d/records/t1", other)) || strings.Contains(body, "/records/t2") || !strings.Contains(body, "2 right") || !strings.Contains(body, "1 right") {
		t.Fatalf("compare: %d\n%s", code, body)
	}
	if code, body, _ = get(t, viewer(t, st), fmt.Sprintf("/runs/%d", id)); code != 200 || strings.Contains(body, "did not finish") || !strings.Contains(body, "Confusion") {
		t.Fatalf("finished: %d\n%s", code, body)
	}
}
