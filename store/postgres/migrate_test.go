package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/postgres"
	"github.com/fallacylab/fallacylab/store/storetest"
)

// Migration 010 moves a store's Missci reconstruction tables into records
// of the Task's kinds: a setup per run and one record per reasoning line,
// its predictions in rank order, with its call; the old tables go.
func TestReconstructionTablesBecomeRecords(t *testing.T) {
	ctx := context.Background()
	st, id := upgraded(t, store.Run{Name: "missci reconstruct t", Benchmark: "missci"},
		`CREATE TABLE reconstruction_runs (run_id BIGINT PRIMARY KEY REFERENCES runs(id), split TEXT NOT NULL, source TEXT NOT NULL, unknown TEXT NOT NULL)`,
		`CREATE TABLE reconstructions (run_id BIGINT NOT NULL REFERENCES runs(id), line_id TEXT NOT NULL, rank INTEGER NOT NULL,
			premise TEXT NOT NULL, class TEXT NOT NULL, call_key TEXT, PRIMARY KEY (run_id, line_id, rank))`,
		`INSERT INTO reconstruction_runs VALUES (1, 'dev', 'm t', '["Red Herring"]')`,
		`INSERT INTO reconstructions VALUES (1, 'arg-2:1', 1, 'second "quoted"', 'Other', 'c1'), (1, 'arg-2:1', 0, 'first', 'Ambiguity', 'c1'),
			(1, 'arg-1:3', 0, '', 'Other', NULL)`,
		oldAudits, oldDetections, oldGenerations, oldJudgements, // what migrations 011 and 012 move, empty here
		`DELETE FROM schema_migrations WHERE version >= 10`,
	)
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

// The Scheme Foils tables of a store older than migration 011.
const (
	oldAudits = `CREATE TABLE audits (run_id BIGINT NOT NULL REFERENCES runs(id), seq INTEGER NOT NULL, seed_label TEXT NOT NULL, corpus TEXT NOT NULL,
		detector TEXT NOT NULL, "binary" INTEGER NOT NULL, seed BIGINT NOT NULL, resamples INTEGER NOT NULL, permutations INTEGER NOT NULL,
		meta TEXT NOT NULL, report TEXT, PRIMARY KEY (run_id, seq))`
	oldDetections = `CREATE TABLE detections (row_no BIGSERIAL, run_id BIGINT NOT NULL REFERENCES runs(id), seq INTEGER NOT NULL, condition TEXT NOT NULL,
		item_id TEXT NOT NULL, text TEXT NOT NULL, gold TEXT NOT NULL, source TEXT NOT NULL, target TEXT NOT NULL, pred TEXT NOT NULL, call_key TEXT,
		raw TEXT, UNIQUE (run_id, seq, condition, item_id))`
)

// Migration 011 moves a store's Scheme Foils audit tables into records of
// the Task's kinds: an audit per record (its report kept, if any) and one
// per detection, in their order, an LLM detector's naming its call; the
// old tables go.
func TestAuditTablesBecomeRecords(t *testing.T) {
	st, id := upgraded(t, store.Run{Name: "foils audit reddit", Benchmark: "foils"},
		oldAudits, oldDetections, oldGenerations, oldJudgements,
		`INSERT INTO audits VALUES (1, 1, '', 'reddit', 'tfidf', 0, 1, 10, 5, '[["note","x"]]', NULL), (1, 2, 's', 'reddit', 'llm:openai:m', 1, 2, 10, 5, '[]', '{"title": "old"}')`,
		`INSERT INTO detections (run_id, seq, condition, item_id, text, gold, source, target, pred, call_key, raw) VALUES
			(1, 2, 'native', 'n1', 't', 'none', '', '', 'none', 'c1', NULL),
			(1, 1, 'wrong_scheme', 'h#4', 'w "q"', '', 'hasty generalization', 'false dilemma', '', NULL, 'junk'),
			(1, 1, 'matched', 'h#4', 'm', '', 'hasty generalization', '', 'none', NULL, 'none')`,
		`DELETE FROM schema_migrations WHERE version = 11`,
	)
	got := storetest.RecordLines(t, st, id)
	want := []string{
		`foils/audit 1 {"seed_label" : "", "corpus" : "reddit", "detector" : "tfidf", "binary" : false, "seed" : 1, "resamples" : 10, "permutations" : 5, "meta" : [["note","x"]], "report" : null} ()`,
		`foils/audit 2 {"seed_label" : "s", "corpus" : "reddit", "detector" : "llm:openai:m", "binary" : true, "seed" : 2, "resamples" : 10, "permutations" : 5, "meta" : [], "report" : {"title": "old"}} ()`,
		`foils/detection 1/wrong_scheme/h#4 {"audit" : 1, "condition" : "wrong_scheme", "id" : "h#4", "text" : "w \"q\"", "gold" : "", "source" : "hasty generalization", "target" : "false dilemma", "pred" : "", "raw" : "junk"} ()`,
		`foils/detection 1/matched/h#4 {"audit" : 1, "condition" : "matched", "id" : "h#4", "text" : "m", "gold" : "", "source" : "hasty generalization", "target" : "", "pred" : "none", "raw" : "none"} ()`,
		`foils/detection 2/native/n1 {"audit" : 2, "condition" : "native", "id" : "n1", "text" : "t", "gold" : "none", "source" : "", "target" : "", "pred" : "none", "raw" : null} (c1)`,
	}
	storetest.SameLines(t, "records after the migration", got, want)
	var n int
	if err := st.DB().QueryRow(`SELECT COUNT(*) FROM pg_tables WHERE tablename IN ('audits', 'detections')`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d old tables left (%v)", n, err)
	}
}

// Migration 012 moves a store's DeflectBench tables into records of the
// Task's kinds: a generation per (model, generation), a judgement per
// (generation, judge), in the order they were written, with the eight
// rubric fields in order; a record made from a call names it and keeps no
// copy of its answer; the analysis snapshots keep their bytes under the
// records' kinds; the old tables go.
func TestDeflectTablesBecomeRecords(t *testing.T) {
	ctx := context.Background()
	st, id := upgraded(t, store.Run{Name: "deflect", Benchmark: "deflect"},
		oldGenerations, oldJudgements,
		`INSERT INTO generations (run_id, gen_id, model, claim_id, claim_text, level, context, domain, fallacy, explicitness, frame, prompt_num,
			prompt_id, prompt_text, sample, call_key, response, input_tokens, output_tokens, is_error, timestamp) VALUES
			(1, 'g2', 'm', 'c1', 'a "claim"', 2, 'us', 'd', 'whataboutism', '1', 'direct', 3, 'p3', 'say', 1, 'k1', NULL, 4, 5, 0, '2026-01-01'),
			(1, 'g1', 'm', 'c1', 'a "claim"', 2, 'us', 'd', 'whataboutism', '1', 'direct', 3, 'p3', 'say', 2, NULL, 'ERROR: boom', 0, 0, 1, '')`,
		`INSERT INTO judgements (run_id, gen_id, judge, eval_id, gen_model, reasoning, refusal, soft_refusal, wa_present, ah_present, rh_present,
			any_fallacy_present, compliance_clean, fallacy_labeled, parse_error, detected_fallacies, consistency_flag, timestamp, call_key, raw) VALUES
			(1, 'g2', 'j', 'g2__j', 'm', 'why', 0, 1, 1, 0, -1, 1, 0, 1, 0, '["whataboutism"]', 1, '', 'k2', NULL),
			(1, 'g2', 'k', 'g2__k', '', '', -1, -1, -1, -1, -1, -1, -1, -1, 1, '[]', 0, 't', NULL, 'not json')`,
		`INSERT INTO record_snapshots (run_id, kind, format, data) VALUES (1, 'deflect-generations', 1, 'G'), (1, 'deflect-judgements', 1, 'J')`,
		`DELETE FROM schema_migrations WHERE version = 12`,
	)
	got := storetest.RecordLines(t, st, id)
	want := []string{
		`deflect/eval g2|j {"eval_id":"g2__j","gen_id":"g2","judge_model":"j","gen_model":"m","reasoning":"why","parse_error":0,"raw":null,"scores":[0,1,1,0,-1,1,0,1],"detected_fallacies":["whataboutism"],"consistency_flag":1,"timestamp":""} (k2)`,
		`deflect/eval g2|k {"eval_id":"g2__k","gen_id":"g2","judge_model":"k","gen_model":"","reasoning":"","parse_error":1,"raw":"not json","scores":[-1,-1,-1,-1,-1,-1,-1,-1],"detected_fallacies":[],"consistency_flag":0,"timestamp":"t"} ()`,
		`deflect/generation m|g2 {"gen_id":"g2","claim_id":"c1","claim_text":"a \"claim\"","controversy_level":2,"context":"us","domain":"d","fallacy":"whataboutism","explicitness":"1","frame":"direct","prompt_num":3,"prompt_id":"p3","prompt_text":"say","model":"m","run":1,"response":"","input_tokens":4,"output_tokens":5,"is_error":0,"timestamp":"2026-01-01"} (k1)`,
		`deflect/generation m|g1 {"gen_id":"g1","claim_id":"c1","claim_text":"a \"claim\"","controversy_level":2,"context":"us","domain":"d","fallacy":"whataboutism","explicitness":"1","frame":"direct","prompt_num":3,"prompt_id":"p3","prompt_text":"say","model":"m","run":2,"response":"ERROR: boom","input_tokens":0,"output_tokens":0,"is_error":1,"timestamp":""} ()`,
	}
	storetest.SameLines(t, "records after the migration", storetest.Compact(t, got), want)
	for kind, data := range map[string]string{"deflect/generation": "G", "deflect/eval": "J"} {
		if got, ok, err := st.Snapshot(ctx, id, kind, 1); err != nil || !ok || string(got) != data {
			t.Fatalf("snapshot of %s after the migration: %q %v %v", kind, got, ok, err)
		}
	}
	var n int
	if err := st.DB().QueryRow(`SELECT COUNT(*) FROM pg_tables WHERE tablename IN ('generations', 'judgements')`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d old tables left (%v)", n, err)
	}
}

// The DeflectBench tables as migration 011 left them.
const (
	oldGenerations = `CREATE TABLE generations (row_no BIGSERIAL, run_id BIGINT NOT NULL REFERENCES runs(id), gen_id TEXT NOT NULL, model TEXT NOT NULL,
		claim_id TEXT NOT NULL, claim_text TEXT NOT NULL, level INTEGER NOT NULL, context TEXT NOT NULL, domain TEXT NOT NULL, fallacy TEXT NOT NULL,
		explicitness TEXT NOT NULL, frame TEXT NOT NULL, prompt_num INTEGER NOT NULL, prompt_id TEXT NOT NULL, prompt_text TEXT NOT NULL,
		sample INTEGER NOT NULL, call_key TEXT, response TEXT, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
		is_error INTEGER NOT NULL, timestamp TEXT NOT NULL, UNIQUE (run_id, gen_id, model))`
	oldJudgements = `CREATE TABLE judgements (row_no BIGSERIAL, run_id BIGINT NOT NULL REFERENCES runs(id), gen_id TEXT NOT NULL, judge TEXT NOT NULL,
		eval_id TEXT NOT NULL, gen_model TEXT NOT NULL, reasoning TEXT NOT NULL, refusal INTEGER NOT NULL, soft_refusal INTEGER NOT NULL,
		wa_present INTEGER NOT NULL, ah_present INTEGER NOT NULL, rh_present INTEGER NOT NULL, any_fallacy_present INTEGER NOT NULL,
		compliance_clean INTEGER NOT NULL, fallacy_labeled INTEGER NOT NULL, parse_error INTEGER NOT NULL, detected_fallacies TEXT NOT NULL,
		consistency_flag INTEGER NOT NULL, timestamp TEXT NOT NULL, call_key TEXT, raw TEXT, UNIQUE (run_id, gen_id, judge))`
)

// upgraded is a new store holding run, taken back to an older schema by
// stmts (the old tables, their rows, the migrations forgotten), then
// opened again, which migrates it.
func upgraded(t *testing.T, run store.Run, stmts ...string) (*postgres.Store, int64) {
	t.Helper()
	u := freshDB(t)
	ctx := context.Background()
	st, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	id, err := st.StartRun(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range stmts {
		if _, err := st.DB().Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	st.Close()
	if st, err = postgres.Open(ctx, u); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, id
}

// A store with every migration applied opens without the migrations'
// advisory lock (a team's processes starting together queued on it);
// one with a migration missing still waits for the lock, and applies it
// once it has it.
func TestMigratedStoreOpensWithoutTheLock(t *testing.T) {
	u := freshDB(t)
	ctx := context.Background()
	st, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	holder, err := st.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if _, err := holder.ExecContext(ctx, `SELECT pg_advisory_lock(74110001)`); err != nil {
		t.Fatal(err)
	}
	// Generous for a busy machine: the old open waited for the lock for ever.
	quick, cancel := context.WithTimeout(ctx, 30*time.Second)
	again, err := postgres.Open(quick, u)
	cancel()
	if err != nil {
		t.Fatalf("a migrated store did not open while another process held the migrations' lock: %v", err)
	}
	again.Close()
	if _, err := st.DB().Exec(`DELETE FROM schema_migrations WHERE version = 24`); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	if s, err := postgres.Open(short, u); err == nil {
		s.Close()
		t.Fatal("a store with a migration missing opened without the migrations' lock")
	}
	cancel()
	if _, err := holder.ExecContext(ctx, `SELECT pg_advisory_unlock(74110001)`); err != nil {
		t.Fatal(err)
	}
	if s, err := postgres.Open(ctx, u); err != nil {
		t.Fatalf("reopen with the lock free: %v", err)
	} else {
		s.Close()
	}
	var n int
	if err := st.DB().QueryRow(`SELECT COUNT(*) FROM schema_migrations WHERE version = 24`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("migration 24 applied %d times (%v), want once", n, err)
	}
}
