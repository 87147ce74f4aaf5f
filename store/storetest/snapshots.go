package storetest

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/bench/deflect"
	"github.com/fallacylab/fallacylab/store"
)

// dropSnapshots removes a run's analysis snapshots behind the store's back,
// through its database handle, so that its records are read from the rows.
func dropSnapshots(t *testing.T, st Store, runID int64) {
	t.Helper()
	h, ok := st.(interface{ DB() *sql.DB })
	if !ok {
		t.Fatal("the store has no database handle to remove its snapshots with")
	}
	res, err := h.DB().Exec(`DELETE FROM record_snapshots WHERE run_id = ` + strconv.FormatInt(runID, 10))
	must(t, err)
	if n, _ := res.RowsAffected(); n == 0 {
		t.Fatal("the run had no snapshot to remove")
	}
}

// testSnapshots: the analysis read from a run's snapshots equals the read
// from its rows, field for field, on records that test every column — a
// response cut to its start, one that is an API error, one held by its
// call, keys written twice (the upsert keeps the first place and the last
// values), parse errors and missing fields — after a whole write and after
// one kind is replaced; records a snapshot cannot hold are read from their
// rows, with the rows' error.
func testSnapshots(t *testing.T, st Store) {
	ctx := context.Background()
	long := strings.Repeat("word  and\n\tanother, ", 60) + "the end"
	must(t, st.PutCall(ctx, okCall("long-call", long, 400)))
	gens, evals := deflectData(t, st)
	gens = append(gens,
		deflect.Generation{GenID: "g3", ClaimID: "c2", Level: 1, Context: "uk", Domain: "e", Fallacy: "ad_hominem", Explicitness: "0",
			Frame: "coach", PromptNum: 3, PromptID: "p3", Model: "m2", Run: 1, Response: long, CallKey: "long-call", InputTokens: 9, OutputTokens: 400},
		deflect.Generation{GenID: "g4", ClaimID: "c2", Level: 1, Context: "uk", Domain: "e", Fallacy: "red_herring", Explicitness: "0",
			Frame: "coach", PromptNum: 3, PromptID: "p3", Model: "m2", Run: 2, Response: "  " + long + " imported"},
		deflect.Generation{GenID: "g3", ClaimID: "c2", Level: 3, Context: "uk", Domain: "e", Fallacy: "ad_hominem", Explicitness: "0",
			Frame: "coach", PromptNum: 4, PromptID: "p4", Model: "m2", Run: 3, Response: "written again", InputTokens: 1, OutputTokens: 2})
	again := evals[1]
	again.ParseError, again.Scores, again.EvalID = 0, deflect.ScoresFrom(map[string]int{"refusal": 1, "soft_refusal": 0}), "g2__judge_k_again"
	evals = append(evals, deflect.Eval{EvalID: "g3__judge_j", GenID: "g3", JudgeModel: "j", GenModel: "m2", Scores: deflect.ScoresFrom(nil)}, again)
	id, err := st.StartRun(ctx, store.Run{Name: "snap", Benchmark: "deflect"})
	must(t, err)
	same := func(when string) deflect.Dataset {
		t.Helper()
		snap, err := st.DeflectScores(ctx, id)
		must(t, err)
		dropSnapshots(t, st, id)
		rows, err := st.DeflectScores(ctx, id)
		must(t, err)
		if !reflect.DeepEqual(snap, rows) {
			t.Fatalf("%s: the analysis read from the snapshots\n%+v\ndiffers from the read from the rows\n%+v", when, snap, rows)
		}
		return snap
	}
	must(t, st.PutDeflect(ctx, id, gens, evals))
	d := same("after a whole write")
	if len(d.Gens) != 4 || d.Gens[2].GenID != "g3" || d.Gens[2].Response != "written again" || d.Gens[2].Level != 3 || len(d.Evals) != 3 || d.Evals[1].EvalID != "g2__judge_k_again" {
		t.Fatalf("keys written twice: the first place and the last values, as the rows: %+v", d)
	}
	if d.Gens[3].Response != deflect.ResponseStart(gens[3].Response) || len(d.Gens[3].Response) >= len(gens[3].Response) {
		t.Fatalf("the analysis read holds %d bytes of a %d-byte response, not its start", len(d.Gens[3].Response), len(gens[3].Response))
	}
	// A run without snapshots (same has just removed them, as if stored
	// before they existed) gets them from its rows, once; the analysis read
	// is the same.
	backfill := st.(interface {
		BackfillSnapshots(context.Context) (int, error)
	}).BackfillSnapshots
	if n, err := backfill(ctx); err != nil || n != 2 {
		t.Fatalf("backfill wrote %d snapshots (%v), want 2", n, err)
	}
	if n, err := backfill(ctx); err != nil || n != 0 {
		t.Fatalf("a second backfill wrote %d snapshots (%v)", n, err)
	}
	if again := same("after a backfill"); !reflect.DeepEqual(again, d) {
		t.Fatalf("backfilled snapshots read\n%+v\nnot\n%+v", again, d)
	}
	// Replacing one kind keeps the other's snapshot.
	must(t, st.PutDeflect(ctx, id, gens, nil))
	must(t, st.PutDeflect(ctx, id, nil, evals[:2]))
	if d := same("after replacing each kind"); len(d.Evals) != 2 {
		t.Fatalf("%d judgements after replacing them with 2", len(d.Evals))
	}
	// Judgements given later: the same records as given at once; an error
	// from them leaves the run's records as they were.
	must(t, st.PutDeflectThen(ctx, id, gens, func() ([]deflect.Eval, error) { return evals, nil }))
	if later := same("after judgements given later"); !reflect.DeepEqual(later, d) {
		t.Fatalf("judgements given later stored\n%+v\nnot\n%+v", later, d)
	}
	before, err := st.Deflect(ctx, id)
	must(t, err)
	bad := errors.New("line 2 of the evals is bad")
	if err := st.PutDeflectThen(ctx, id, gens[:1], func() ([]deflect.Eval, error) { return nil, bad }); !errors.Is(err, bad) {
		t.Fatalf("the judgements' error came back as %v", err)
	}
	if after, err := st.Deflect(ctx, id); err != nil || !reflect.DeepEqual(after, before) {
		t.Fatalf("a failed write changed the records: %v", err)
	}
	// A field outside −1…1 has no snapshot: the read is the rows', and fails.
	seven := evals[0]
	seven.Scores[0] = 7
	must(t, st.PutDeflect(ctx, id, gens, []deflect.Eval{seven}))
	if _, err := st.DeflectScores(ctx, id); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Fatalf("a rubric field of 7 read as %v", err)
	}
}

// RecordList is records held in memory, read as a store reads them (by
// kind, in order): for tests of what a Task makes of records a store
// returns, migrated ones say.
type RecordList []store.Record

// Records implements bench.RecordReader.
func (l RecordList) Records(_ context.Context, _ int64, kind string, fn func(store.Record) error) error {
	for _, r := range l {
		if kind == "" || r.Kind == kind {
			if err := fn(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// RecordLines are a run's records of every kind as "kind key body (call)"
// lines, in the store's order, for tests that compare them whole.
func RecordLines(t *testing.T, st interface {
	Records(ctx context.Context, runID int64, kind string, fn func(store.Record) error) error
}, runID int64) []string {
	t.Helper()
	var out []string
	if err := st.Records(context.Background(), runID, "", func(r store.Record) error {
		out = append(out, r.Kind+" "+r.Key+" "+string(r.Body)+" ("+r.CallKey+")")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// SameLines fails the test where got and want differ, line by line.
func SameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s:\n%s\nwant\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s, line %d: %s\nwant    %s", what, i+1, got[i], want[i])
		}
	}
}
