package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/sqlite"
	"github.com/fallacylab/fallacylab/store/storetest"
)

// Migration 010 moves a store's Missci reconstruction tables into records
// of the Task's kinds: a setup per run and one record per reasoning line,
// its predictions in rank order, with its call; the old tables go.
func TestReconstructionTablesBecomeRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	st, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	id, err := st.StartRun(ctx, store.Run{Name: "missci reconstruct t", Benchmark: "missci"})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE reconstruction_runs (run_id INTEGER PRIMARY KEY REFERENCES runs(id), split TEXT NOT NULL, source TEXT NOT NULL, unknown TEXT NOT NULL)`,
		`CREATE TABLE reconstructions (run_id INTEGER NOT NULL REFERENCES runs(id), line_id TEXT NOT NULL, rank INTEGER NOT NULL,
			premise TEXT NOT NULL, class TEXT NOT NULL, call_key TEXT, PRIMARY KEY (run_id, line_id, rank))`,
		`INSERT INTO reconstruction_runs VALUES (1, 'dev', 'm t', '["Red Herring"]')`,
		`INSERT INTO reconstructions VALUES (1, 'arg-2:1', 1, 'second "quoted"', 'Other', 'c1'), (1, 'arg-2:1', 0, 'first', 'Ambiguity', 'c1'),
			(1, 'arg-1:3', 0, '', 'Other', NULL)`,
		oldAudits, oldDetections, // what migration 011 moves, empty here
		`PRAGMA user_version = 9`,
	} {
		if _, err := st.DB().Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	st.Close()
	if st, err = sqlite.Open(path); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got := storetest.RecordLines(t, st, id)
	want := []string{
		`missci/line arg-1:3 [{"premise":"","class":"Other"}] ()`,
		`missci/line arg-2:1 [{"premise":"first","class":"Ambiguity"},{"premise":"second \"quoted\"","class":"Other"}] (c1)`,
		`missci/setup run {"split":"dev","source":"m t","unknown":["Red Herring"]} ()`,
	}
	storetest.SameLines(t, "records after the migration", got, want)
	var n int
	if err := st.DB().QueryRow(`SELECT COUNT(*) FROM sqlite_schema WHERE name IN ('reconstructions', 'reconstruction_runs')`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d old tables left (%v)", n, err)
	}
}

// Migration 011 moves a store's Scheme Foils audit tables into records of
// the Task's kinds: an audit per record (its report kept, if any) and one
// per detection, in their order, an LLM detector's naming its call; the
// old tables go.
func TestAuditTablesBecomeRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.db")
	st, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	id, _ := st.StartRun(ctx, store.Run{Name: "foils audit reddit", Benchmark: "foils"})
	for _, q := range []string{
		oldAudits, oldDetections,
		`INSERT INTO audits VALUES (1, 1, '', 'reddit', 'tfidf', 0, 1, 10, 5, '[["note","x"]]', NULL), (1, 2, 's', 'reddit', 'llm:openai:m', 1, 2, 10, 5, '[]', '{"title": "old"}')`,
		`INSERT INTO detections VALUES (1, 2, 'native', 'n1', 't', 'none', '', '', 'none', 'c1', NULL),
			(1, 1, 'wrong_scheme', 'h#4', 'w "q"', '', 'hasty generalization', 'false dilemma', '', NULL, 'junk'),
			(1, 1, 'matched', 'h#4', 'm', '', 'hasty generalization', '', 'none', NULL, 'none')`,
		`PRAGMA user_version = 10`,
	} {
		if _, err := st.DB().Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	st.Close()
	if st, err = sqlite.Open(path); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got := storetest.RecordLines(t, st, id)
	want := []string{
		`foils/audit 1 {"seed_label":"","corpus":"reddit","detector":"tfidf","binary":false,"seed":1,"resamples":10,"permutations":5,"meta":[["note","x"]],"report":null} ()`,
		`foils/audit 2 {"seed_label":"s","corpus":"reddit","detector":"llm:openai:m","binary":true,"seed":2,"resamples":10,"permutations":5,"meta":[],"report":{"title":"old"}} ()`,
		`foils/detection 1/wrong_scheme/h#4 {"audit":1,"condition":"wrong_scheme","id":"h#4","text":"w \"q\"","gold":"","source":"hasty generalization","target":"false dilemma","pred":"","raw":"junk"} ()`,
		`foils/detection 1/matched/h#4 {"audit":1,"condition":"matched","id":"h#4","text":"m","gold":"","source":"hasty generalization","target":"","pred":"none","raw":"none"} ()`,
		`foils/detection 2/native/n1 {"audit":2,"condition":"native","id":"n1","text":"t","gold":"none","source":"","target":"","pred":"none","raw":null} (c1)`,
	}
	storetest.SameLines(t, "records after the migration", got, want)
	var n int
	if err := st.DB().QueryRow(`SELECT COUNT(*) FROM sqlite_schema WHERE name IN ('audits', 'detections')`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d old tables left (%v)", n, err)
	}
}

// The Scheme Foils tables of a store older than migration 011.
const (
	oldAudits = `CREATE TABLE audits (run_id INTEGER NOT NULL REFERENCES runs(id), seq INTEGER NOT NULL, seed_label TEXT NOT NULL, corpus TEXT NOT NULL,
		detector TEXT NOT NULL, binary INTEGER NOT NULL, seed INTEGER NOT NULL, resamples INTEGER NOT NULL, permutations INTEGER NOT NULL,
		meta TEXT NOT NULL, report TEXT, PRIMARY KEY (run_id, seq))`
	oldDetections = `CREATE TABLE detections (run_id INTEGER NOT NULL REFERENCES runs(id), seq INTEGER NOT NULL, condition TEXT NOT NULL, item_id TEXT NOT NULL,
		text TEXT NOT NULL, gold TEXT NOT NULL, source TEXT NOT NULL, target TEXT NOT NULL, pred TEXT NOT NULL, call_key TEXT, raw TEXT,
		UNIQUE (run_id, seq, condition, item_id))`
)
