package foils_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/fallacylab/fallacylab/bench/foils"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/sqlite"
	"github.com/fallacylab/fallacylab/store/storetest"
)

// A run's audits come back from the store as they were stored — their
// options, notes and every detection, an LLM detector's raw label read
// from its call — and stored again they are replaced, not added to.
func TestAuditsRoundTrip(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	id, _ := st.StartRun(ctx, store.Run{Name: "a", Benchmark: foils.Definition.Name})
	if _, err := foils.LoadAudits(ctx, st, id); !errors.Is(err, foils.ErrNoAudit) {
		t.Fatalf("a run without audits: %v", err)
	}
	call := store.Call{Key: "det-call", Namespace: "ns", Provider: "openai", Model: "m", Request: json.RawMessage(`{"v":1}`),
		Status: store.StatusOK, Attempts: 1, Response: &llm.Response{Text: "hasty generalization"}}
	if err := st.PutCall(ctx, call); err != nil {
		t.Fatal(err)
	}
	a := foils.AuditRecord{SeedLabel: "1", Corpus: "reddit", Detector: "llm:openai:m:typed", Options: foils.AuditOptions{Seed: 3, Resamples: 100, Perms: 50},
		Meta: [][2]string{{"note", "n"}}, Detections: []foils.Detection{
			{Condition: foils.Native, ID: "n1", Text: "t", Gold: foils.None, Pred: "hasty generalization", CallKey: "det-call", Raw: "hasty generalization"},
			{Condition: foils.Matched, ID: "hasty generalization#4", Text: "m", Source: "hasty generalization", Pred: ""},
			{Condition: foils.WrongScheme, ID: "hasty generalization#4", Text: "w", Source: "hasty generalization", Target: "false dilemma", Pred: "none", Raw: "none"},
		}}
	b := a
	b.SeedLabel, b.Binary, b.Detections = "2", true, a.Detections[:1]
	if err := foils.SaveAudits(ctx, st, id, []foils.AuditRecord{a, b}); err != nil {
		t.Fatal(err)
	}
	got, err := foils.LoadAudits(ctx, st, id)
	if err != nil {
		t.Fatal(err)
	}
	if want := []foils.AuditRecord{a, b}; !reflect.DeepEqual(got, want) {
		t.Fatalf("read back\n%+v\nwant\n%+v", got, want)
	}
	// The LLM detection's answer is its call's, stored once.
	if err := st.Records(ctx, id, foils.KindDetection, func(r store.Record) error {
		if r.CallKey != "" && json.Valid(r.Body) && string(r.Body) != "" {
			var d map[string]any
			json.Unmarshal(r.Body, &d)
			if _, ok := d["raw"]; ok {
				t.Errorf("detection %s keeps its call's answer in its record too: %s", r.Key, r.Body)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := foils.SaveAudits(ctx, st, id, []foils.AuditRecord{b}); err != nil {
		t.Fatal(err)
	}
	if got, err := foils.LoadAudits(ctx, st, id); err != nil || len(got) != 1 || len(got[0].Detections) != 1 || got[0].SeedLabel != "2" {
		t.Fatalf("audits replaced: %+v %v", got, err)
	}
}

// The records migration 011 made of an older store's tables (PostgreSQL
// spaces its JSON; a report kept, null when there was none) read as the
// Task's own.
func TestMigratedAuditsRead(t *testing.T) {
	recs := storetest.RecordList{
		{Kind: foils.KindAudit, Key: "1", Body: json.RawMessage(`{"seed_label" : "", "corpus" : "reddit", "detector" : "tfidf", "binary" : false, "seed" : 1, "resamples" : 10, "permutations" : 5, "meta" : [["note","x"]], "report" : null}`)},
		{Kind: foils.KindAudit, Key: "2", Body: json.RawMessage(`{"seed_label":"s","corpus":"reddit","detector":"tfidf","binary":true,"seed":2,"resamples":10,"permutations":5,"meta":[],"report":{"title":"old"}}`)},
		{Kind: foils.KindDetection, Key: "2/native/n1", CallKey: "c", Answer: "none", Body: json.RawMessage(`{"audit" : 2, "condition" : "native", "id" : "n1", "text" : "t", "gold" : "none", "source" : "", "target" : "", "pred" : "none", "raw" : null}`)},
	}
	got, err := foils.LoadAudits(context.Background(), recs, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []foils.AuditRecord{
		{Corpus: "reddit", Detector: "tfidf", Options: foils.AuditOptions{Seed: 1, Resamples: 10, Perms: 5}, Meta: [][2]string{{"note", "x"}}},
		{SeedLabel: "s", Corpus: "reddit", Detector: "tfidf", Binary: true, Options: foils.AuditOptions{Seed: 2, Resamples: 10, Perms: 5}, Meta: [][2]string{},
			Report: []byte(`{"title":"old"}`), Detections: []foils.Detection{{Condition: "native", ID: "n1", Text: "t", Gold: "none", Pred: "none", CallKey: "c", Raw: "none"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read\n%+v\nwant\n%+v", got, want)
	}
}
