package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/sqlite"
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
	var got []string
	if err := st.Records(ctx, id, "", func(r store.Record) error {
		got = append(got, r.Kind+" "+r.Key+" "+string(r.Body)+" ("+r.CallKey+")")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`missci/line arg-1:3 [{"premise":"","class":"Other"}] ()`,
		`missci/line arg-2:1 [{"premise":"first","class":"Ambiguity"},{"premise":"second \"quoted\"","class":"Other"}] (c1)`,
		`missci/setup run {"split":"dev","source":"m t","unknown":["Red Herring"]} ()`,
	}
	if len(got) != len(want) {
		t.Fatalf("records after the migration:\n%q\nwant\n%q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d: %s\nwant       %s", i, got[i], want[i])
		}
	}
	var n int
	if err := st.DB().QueryRow(`SELECT COUNT(*) FROM sqlite_schema WHERE name IN ('reconstructions', 'reconstruction_runs')`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d old tables left (%v)", n, err)
	}
}
