package postgres_test

import (
	"context"
	"testing"

	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/postgres"
)

// Migration 010 moves a store's Missci reconstruction tables into records
// of the Task's kinds: a setup per run and one record per reasoning line,
// its predictions in rank order, with its call; the old tables go.
func TestReconstructionTablesBecomeRecords(t *testing.T) {
	u := freshDB(t)
	ctx := context.Background()
	st, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	id, err := st.StartRun(ctx, store.Run{Name: "missci reconstruct t", Benchmark: "missci"})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE reconstruction_runs (run_id BIGINT PRIMARY KEY REFERENCES runs(id), split TEXT NOT NULL, source TEXT NOT NULL, unknown TEXT NOT NULL)`,
		`CREATE TABLE reconstructions (run_id BIGINT NOT NULL REFERENCES runs(id), line_id TEXT NOT NULL, rank INTEGER NOT NULL,
			premise TEXT NOT NULL, class TEXT NOT NULL, call_key TEXT, PRIMARY KEY (run_id, line_id, rank))`,
		`INSERT INTO reconstruction_runs VALUES (1, 'dev', 'm t', '["Red Herring"]')`,
		`INSERT INTO reconstructions VALUES (1, 'arg-2:1', 1, 'second "quoted"', 'Other', 'c1'), (1, 'arg-2:1', 0, 'first', 'Ambiguity', 'c1'),
			(1, 'arg-1:3', 0, '', 'Other', NULL)`,
		`DELETE FROM schema_migrations WHERE version = 10`,
	} {
		if _, err := st.DB().Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	st.Close()
	if st, err = postgres.Open(ctx, u); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	type rec struct{ kind, key, call string }
	var got []rec
	bodies := map[string]string{}
	if err := st.Records(ctx, id, "", func(r store.Record) error {
		got = append(got, rec{r.Kind, r.Key, r.CallKey})
		bodies[r.Key] = string(r.Body)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []rec{{"missci/line", "arg-1:3", ""}, {"missci/line", "arg-2:1", "c1"}, {"missci/setup", "run", ""}}
	if len(got) != len(want) {
		t.Fatalf("records after the migration: %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// PostgreSQL spaces its JSON; the values are what the Task encodes.
	for key, want := range map[string]string{
		"arg-1:3": `[{"premise" : "", "class" : "Other"}]`,
		"arg-2:1": `[{"premise" : "first", "class" : "Ambiguity"}, {"premise" : "second \"quoted\"", "class" : "Other"}]`,
		"run":     `{"split" : "dev", "source" : "m t", "unknown" : ["Red Herring"]}`,
	} {
		if bodies[key] != want {
			t.Errorf("%s: %s\nwant %s", key, bodies[key], want)
		}
	}
	var n int
	if err := st.DB().QueryRow(`SELECT COUNT(*) FROM pg_tables WHERE tablename IN ('reconstructions', 'reconstruction_runs')`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d old tables left (%v)", n, err)
	}
}
