package deflect

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/sqlite"
)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func okCall(key, text string) store.Call {
	return store.Call{Key: key, Namespace: "ns", Provider: "openai", Model: "m", Request: []byte(`{}`), Status: store.StatusOK,
		Response: &llm.Response{Text: text}}
}

// openStore is an empty SQLite store (the store contract itself is checked
// on both stores by store/storetest).
func openStore(t *testing.T) *sqlite.Store {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "d.db"))
	must(t, err)
	t.Cleanup(func() { st.Close() })
	return st
}

// testData is two generations (one answered by a stored call, one an API
// error) and two judgements (one from a call, one imported with its text).
func testData(t *testing.T, st *sqlite.Store) ([]Generation, []Eval) {
	ctx := context.Background()
	must(t, st.PutCall(ctx, okCall("gen-call", "But what about them?")))
	must(t, st.PutCall(ctx, okCall("judge-call", `{"refusal":0}`)))
	gens := []Generation{
		{GenID: "g2", ClaimID: "c", ClaimText: "claim", Level: 2, Context: "us", Domain: "d", Fallacy: "whataboutism", Explicitness: "1",
			Frame: "direct", PromptNum: 1, PromptID: "p1", PromptText: "prompt", Model: "m", Run: 1, Response: "But what about them?", CallKey: "gen-call", InputTokens: 3, OutputTokens: 5},
		{GenID: "g1", ClaimID: "c", ClaimText: "claim", Level: 2, Context: "us", Domain: "d", Fallacy: "whataboutism", Explicitness: "1",
			Frame: "direct", PromptNum: 1, PromptID: "p1", PromptText: "prompt", Model: "m", Run: 2, Response: "ERROR: boom", IsError: 1},
	}
	scores := map[string]int{}
	for i, f := range Fields {
		scores[f] = i % 2
	}
	scores["RH_present"] = -1
	evals := []Eval{
		{EvalID: "g2__judge_j", GenID: "g2", JudgeModel: "j", Reasoning: "r", RawJudgeResponse: `{"refusal":0}`, CallKey: "judge-call",
			Scores: ScoresFrom(scores), DetectedFallacies: []string{"whataboutism"}, ConsistencyFlag: 1},
		{EvalID: "g2__judge_k", GenID: "g2", JudgeModel: "k", Reasoning: "", RawJudgeResponse: "not json", ParseError: 1,
			Scores: ScoresFrom(map[string]int{"refusal": -1}), DetectedFallacies: []string{}},
	}
	return gens, evals
}

// TestRecords: a run's generations and judgements come back as stored, in
// their order, with their calls' answers; the analysis read has every field
// the analysis uses and no texts; a page holds the analysable generations
// with all their judgements; a nil slice keeps its kind.
func TestRecords(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	id, _ := st.StartRun(ctx, store.Run{Name: "d", Benchmark: Definition.Name})
	gens, evals := testData(t, st)
	must(t, SaveRecords(ctx, st, id, gens, evals))
	d, err := LoadRecords(ctx, st, id)
	must(t, err)
	if !reflect.DeepEqual(d.Gens, gens) || !reflect.DeepEqual(d.Evals, evals) {
		t.Fatalf("records read back\n%+v\nnot\n%+v", d, Dataset{Gens: gens, Evals: evals})
	}
	lean, err := LoadScores(ctx, st, id)
	must(t, err)
	for i, g := range d.Gens {
		g.ClaimText, g.PromptText, g.Timestamp, g.CallKey = "", "", "", ""
		if !reflect.DeepEqual(lean.Gens[i], g) {
			t.Fatalf("analysis read of generation %d:\n got %+v\nwant %+v", i, lean.Gens[i], g)
		}
	}
	for i, e := range d.Evals {
		e.EvalID, e.CallKey, e.Reasoning, e.RawJudgeResponse, e.DetectedFallacies, e.Timestamp = "", "", "", "", nil, ""
		if !reflect.DeepEqual(lean.Evals[i], e) {
			t.Fatalf("analysis read of judgement %d:\n got %+v\nwant %+v", i, lean.Evals[i], e)
		}
	}
	page, total, err := Page(ctx, st, id, 0, 10)
	must(t, err)
	if total != 1 || len(page.Gens) != 1 || page.Gens[0].GenID != "g2" || page.Gens[0].Response != gens[0].Response ||
		len(page.Evals) != 2 || page.Evals[1].RawJudgeResponse != "not json" {
		t.Fatalf("page: total %d, %+v", total, page)
	}
	if page, total, err := Page(ctx, st, id, 1, 10); err != nil || total != 1 || len(page.Gens) != 0 {
		t.Fatalf("second page: total %d, %+v, %v", total, page, err)
	}
	must(t, SaveRecords(ctx, st, id, nil, evals[:1]))
	if d, _ = LoadRecords(ctx, st, id); len(d.Gens) != 2 || len(d.Evals) != 1 {
		t.Fatalf("after replacing the evals: %d gens, %d evals", len(d.Gens), len(d.Evals))
	}
	if n, err := st.CountRecords(ctx, id); err != nil || n != 3 {
		t.Fatalf("count records %d (%v), want 3", n, err)
	}
	// A generation whose call is missing is an error, never an empty answer.
	gens[0].CallKey = "no-such-call"
	must(t, SaveGens(ctx, st, id, gens))
	if _, err := LoadRecords(ctx, st, id); err == nil || !strings.Contains(err.Error(), "not in the store") {
		t.Fatalf("a generation without its call read as %v", err)
	}
}

// TestSnapshots: the analysis read from a run's snapshots equals the read
// from its records, field for field, on records that test every column — a
// response cut to its start, one that is an API error, one held by its
// call, keys written twice (the first place and the last values), parse
// errors and missing fields — after a whole write and after one kind is
// replaced; records a snapshot cannot hold are read from the records, with
// their error.
func TestSnapshots(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	long := strings.Repeat("word  and\n\tanother, ", 60) + "the end"
	must(t, st.PutCall(ctx, okCall("long-call", long)))
	gens, evals := testData(t, st)
	gens = append(gens,
		Generation{GenID: "g3", ClaimID: "c2", Level: 1, Context: "uk", Domain: "e", Fallacy: "ad_hominem", Explicitness: "0",
			Frame: "coach", PromptNum: 3, PromptID: "p3", Model: "m2", Run: 1, Response: long, CallKey: "long-call", InputTokens: 9, OutputTokens: 400},
		Generation{GenID: "g4", ClaimID: "c2", Level: 1, Context: "uk", Domain: "e", Fallacy: "red_herring", Explicitness: "0",
			Frame: "coach", PromptNum: 3, PromptID: "p3", Model: "m2", Run: 2, Response: "  " + long + " imported"},
		Generation{GenID: "g3", ClaimID: "c2", Level: 3, Context: "uk", Domain: "e", Fallacy: "ad_hominem", Explicitness: "0",
			Frame: "coach", PromptNum: 4, PromptID: "p4", Model: "m2", Run: 3, Response: "written again", InputTokens: 1, OutputTokens: 2})
	again := evals[1]
	again.ParseError, again.Scores, again.EvalID = 0, ScoresFrom(map[string]int{"refusal": 1, "soft_refusal": 0}), "g2__judge_k_again"
	evals = append(evals, Eval{EvalID: "g3__judge_j", GenID: "g3", JudgeModel: "j", GenModel: "m2", Scores: ScoresFrom(nil)}, again)
	id, err := st.StartRun(ctx, store.Run{Name: "snap", Benchmark: Definition.Name})
	must(t, err)
	same := func(when string) Dataset {
		t.Helper()
		snap, err := LoadScores(ctx, st, id)
		must(t, err)
		if _, err := st.DB().Exec(`DELETE FROM record_snapshots WHERE run_id = ?`, id); err != nil {
			t.Fatal(err)
		}
		rows, err := LoadScores(ctx, st, id)
		must(t, err)
		if !reflect.DeepEqual(snap, rows) {
			t.Fatalf("%s: the analysis read from the snapshots\n%+v\ndiffers from the read from the records\n%+v", when, snap, rows)
		}
		return snap
	}
	must(t, SaveRecords(ctx, st, id, gens, evals))
	d := same("after a whole write")
	if len(d.Gens) != 4 || d.Gens[2].GenID != "g3" || d.Gens[2].Response != "written again" || d.Gens[2].Level != 3 || len(d.Evals) != 3 || d.Evals[1].Scores != again.Scores || d.Evals[1].ParseError != 0 {
		t.Fatalf("keys written twice: the first place and the last values: %+v", d)
	}
	if d.Gens[3].Response != ResponseStart(gens[3].Response) || len(d.Gens[3].Response) >= len(gens[3].Response) {
		t.Fatalf("the analysis read holds %d bytes of a %d-byte response, not its start", len(d.Gens[3].Response), len(gens[3].Response))
	}
	// Replacing one kind keeps the other's snapshot.
	must(t, SaveGens(ctx, st, id, gens))
	must(t, SaveEvals(ctx, st, id, evals[:2]))
	if d := same("after replacing each kind"); len(d.Evals) != 2 {
		t.Fatalf("%d judgements after replacing them with 2", len(d.Evals))
	}
	// Judgements given later: the same records as given at once; an error
	// from them leaves the run's records as they were.
	must(t, SaveRecordsThen(ctx, st, id, gens, func() ([]Eval, error) { return evals, nil }))
	if later := same("after judgements given later"); !reflect.DeepEqual(later, d) {
		t.Fatalf("judgements given later stored\n%+v\nnot\n%+v", later, d)
	}
	before, err := LoadRecords(ctx, st, id)
	must(t, err)
	bad := errors.New("line 2 of the evals is bad")
	if err := SaveRecordsThen(ctx, st, id, gens[:1], func() ([]Eval, error) { return nil, bad }); !errors.Is(err, bad) {
		t.Fatalf("the judgements' error came back as %v", err)
	}
	if after, err := LoadRecords(ctx, st, id); err != nil || !reflect.DeepEqual(after, before) {
		t.Fatalf("a failed write changed the records: %v", err)
	}
	// A field outside −1…1 has no snapshot: the read is the records', and
	// fails.
	seven := evals[0]
	seven.Scores[0] = 7
	must(t, SaveRecords(ctx, st, id, gens, []Eval{seven}))
	if _, ok, _ := st.Snapshot(ctx, id, KindEval, snapshotFormat); ok {
		t.Fatal("a judgement with a field of 7 has a snapshot")
	}
	if _, err := LoadScores(ctx, st, id); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Fatalf("a rubric field of 7 read as %v", err)
	}
}

// TestMigratedRecords: records as migration 012 writes them (SQLite's and
// PostgreSQL's JSON, a null raw answer, an empty timestamp, the response
// left to the call) read as the Task's own.
func TestMigratedRecords(t *testing.T) {
	g, err := GenerationOf(store.Record{Kind: KindGeneration, Key: "m|g2", CallKey: "k1", Answer: "the answer", Body: []byte(`{"gen_id": "g2", "claim_id": "c1",
		"claim_text": "a \"claim\"", "controversy_level": 2, "context": "us", "domain": "d", "fallacy": "whataboutism", "explicitness": "1",
		"frame": "direct", "prompt_num": 3, "prompt_id": "p3", "prompt_text": "say", "model": "m", "run": 1, "response": "", "input_tokens": 4,
		"output_tokens": 5, "is_error": 0, "timestamp": "2026-01-01"}`)})
	must(t, err)
	want := Generation{GenID: "g2", ClaimID: "c1", ClaimText: `a "claim"`, Level: 2, Context: "us", Domain: "d", Fallacy: "whataboutism", Explicitness: "1",
		Frame: "direct", PromptNum: 3, PromptID: "p3", PromptText: "say", Model: "m", Run: 1, Response: "the answer", InputTokens: 4, OutputTokens: 5,
		Timestamp: "2026-01-01", CallKey: "k1"}
	if g != want {
		t.Fatalf("migrated generation\n%+v\nnot\n%+v", g, want)
	}
	e, err := EvalOf(store.Record{Kind: KindEval, Key: "g2|k", Body: []byte(`{"eval_id":"g2__k","gen_id":"g2","judge_model":"k","gen_model":"","reasoning":"",
		"parse_error":1,"raw":"not json","scores":[-1,-1,-1,-1,-1,-1,-1,-1],"detected_fallacies":[],"consistency_flag":0,"timestamp":"t"}`)})
	must(t, err)
	if e.EvalID != "g2__k" || e.RawJudgeResponse != "not json" || e.ParseError != 1 || e.Scores != ScoresFrom(nil) || e.DetectedFallacies == nil || e.Timestamp != "t" {
		t.Fatalf("migrated judgement %+v", e)
	}
	e, err = EvalOf(store.Record{Kind: KindEval, Key: "g2|j", CallKey: "k2", Answer: `{"refusal": 0}`, Body: []byte(`{"eval_id":"g2__j","gen_id":"g2",
		"judge_model":"j","gen_model":"m","reasoning":"why","parse_error":0,"raw":null,"scores":[0,1,1,0,-1,1,0,1],"detected_fallacies":["whataboutism"],
		"consistency_flag":1,"timestamp":""}`)})
	must(t, err)
	if e.RawJudgeResponse != `{"refusal": 0}` || e.Scores.Get("soft_refusal") != 1 || e.Scores.Get("RH_present") != -1 || e.CallKey != "k2" {
		t.Fatalf("migrated judgement from a call %+v", e)
	}
}

// TestAnalysisReadIsTheScoresRead: the analysis's own read of a run
// (loadAnalysis: the judgements straight into the analysis's form, never
// as Evals too) makes the report LoadScores's does, byte for byte — from
// the snapshots and, once they are gone, from the records; with parse
// errors, API errors, judges that disagree and a judgement written twice.
func TestAnalysisReadIsTheScoresRead(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	d, _, err := Synthesize(SynthOptions{Models: []string{"m1", "m2"}, Samples: 1, Seed: 3, SoftFlip: 0.2, ErrorRate: 0.05, JudgeNoise: 0.1, ParseErrors: 0.1})
	must(t, err)
	twice := d.Evals[7]
	twice.Scores[0] = 1 - twice.Scores[0]
	d.Evals = append(d.Evals, twice)
	id, err := st.StartRun(ctx, store.Run{Name: "a", Benchmark: Definition.Name})
	must(t, err)
	must(t, SaveRecords(ctx, st, id, d.Gens, d.Evals))
	reportOf := func(read func(context.Context, bench.Records, int64) (Dataset, error)) string {
		t.Helper()
		ds, err := read(ctx, st, id)
		must(t, err)
		rep, err := Analyze(ds, DefaultAnalysis())
		must(t, err)
		var b strings.Builder
		must(t, report.Render(&b, rep, report.JSON))
		return b.String()
	}
	for _, when := range []string{"from the snapshots", "from the records"} {
		want, got := reportOf(LoadScores), reportOf(loadAnalysis)
		if got != want {
			t.Fatalf("%s: the analysis's read made another report", when)
		}
		if ds, _ := loadAnalysis(ctx, st, id); ds.judged == nil || len(ds.Evals) != 0 {
			t.Fatalf("%s: the analysis's read holds %d Evals (judged: %v)", when, len(ds.Evals), ds.judged != nil)
		}
		if _, err := st.DB().Exec(`DELETE FROM record_snapshots WHERE run_id = ?`, id); err != nil {
			t.Fatal(err)
		}
	}
}
