package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/bench/classify"
	"github.com/fallacylab/fallacylab/store"
)

// TestTaskRunPage: the run page of a benchmark the viewer names nowhere (a
// Task) shows the report its `report` command makes from the stored
// records, model text escaped; a run that did not finish says it is
// partial.
func TestTaskRunPage(t *testing.T) {
	st, _, _ := seed(t, []string{"model-a"}, 1)
	ctx := context.Background()
	id, _ := st.StartRun(ctx, store.Run{Name: "classify " + hostile[0], Benchmark: classify.Name, Version: "test"})
	setup, _ := json.Marshal(classify.Setup{Options: classify.Options{Corpus: "reddit", Split: "test", Template: "zero-shot", Model: "openai:<b>m</b>"},
		Labels: classify.LabelSet{"a", "b"}, Texts: 3})
	var preds []store.Record
	for i, p := range []classify.Prediction{{ID: "1", Gold: "a", Pred: "a"}, {ID: "2", Gold: "b", Pred: "a"}, {ID: "3", Gold: "b", Pred: "b"}} {
		b, _ := json.Marshal(p)
		preds = append(preds, store.Record{Key: fmt.Sprint(i), Body: b})
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
	st.FinishRun(ctx, id, store.RunDone)
	if code, body, _ = get(t, viewer(t, st), fmt.Sprintf("/runs/%d", id)); code != 200 || strings.Contains(body, "did not finish") || !strings.Contains(body, "Confusion") {
		t.Fatalf("finished: %d\n%s", code, body)
	}
}
