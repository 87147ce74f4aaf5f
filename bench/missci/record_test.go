package missci_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/fallacylab/fallacylab/bench/missci"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/sqlite"
	"github.com/fallacylab/fallacylab/store/storetest"
)

// A reconstruction run's predictions come back from the store as they were
// stored: split, source, unknown class names, every line's ranked
// predictions and the call each came from; a run without them says so.
func TestRecordRoundTrip(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	id, _ := st.StartRun(ctx, store.Run{Name: "m", Benchmark: missci.Definition.Name})
	if _, err := missci.LoadRecord(ctx, st, id); err == nil {
		t.Fatal("a run without predictions reads as one with them")
	}
	r := missci.Record{Split: "dev", Source: "m t", Unknown: []string{"Red Herring"}, Preds: missci.Predictions{
		"arg-1:1": {{Premise: "p", Class: "Ambiguity"}, {Premise: "q", Class: "Other"}},
		"arg-1:2": {{Class: "Other"}},
	}, CallKeys: map[string]string{"arg-1:1": "c1"}}
	if err := missci.SaveRecord(ctx, st, id, r); err != nil {
		t.Fatal(err)
	}
	got, err := missci.LoadRecord(ctx, st, id)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, r) {
		t.Fatalf("read back %+v\nwant %+v", got, r)
	}
	// Stored again, the run's records are replaced, not added to.
	r.Preds = missci.Predictions{"arg-1:2": {{Premise: "x", Class: "Ambiguity"}}}
	r.CallKeys, r.Unknown = map[string]string{}, nil
	if err := missci.SaveRecord(ctx, st, id, r); err != nil {
		t.Fatal(err)
	}
	if got, err = missci.LoadRecord(ctx, st, id); err != nil || !reflect.DeepEqual(got, r) {
		t.Fatalf("replaced: %+v (%v)\nwant %+v", got, err, r)
	}
	r.Preds = missci.Predictions{}
	if err := missci.SaveRecord(ctx, st, id, r); err != nil {
		t.Fatal(err)
	}
	if got, err = missci.LoadRecord(ctx, st, id); err != nil || len(got.Preds) != 0 {
		t.Fatalf("replaced by none: %+v (%v)", got, err)
	}
}

// The records migration 010 made of an older store's tables (PostgreSQL
// spaces its JSON) read as the Task's own.
func TestMigratedRecordsRead(t *testing.T) {
	recs := storetest.RecordList{
		{Kind: missci.KindSetup, Key: "run", Body: json.RawMessage(`{"split" : "dev", "source" : "m t", "unknown" : []}`)},
		{Kind: missci.KindLine, Key: "arg-2:1", CallKey: "c1", Body: json.RawMessage(`[{"premise" : "first", "class" : "Ambiguity"}]`)},
	}
	got, err := missci.LoadRecord(context.Background(), recs, 1)
	want := missci.Record{Split: "dev", Source: "m t", Preds: missci.Predictions{"arg-2:1": {{Premise: "first", Class: "Ambiguity"}}}, CallKeys: map[string]string{"arg-2:1": "c1"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%+v (%v)\nwant %+v", got, err, want)
	}
}
