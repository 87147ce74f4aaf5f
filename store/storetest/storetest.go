// Package storetest is the conformance suite every fallacylab store
// implementation passes: the call cache, runs and their lifecycle, phase
// counts, typed records and pending batches, each checked for the semantics
// the engine, the lifecycle, the records and the viewer rely on. An
// implementation's test calls Run with a function that opens a fresh, empty
// store.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/store"
)

// Store is the store contract the suite checks: the one every command and
// the viewer use (store.Store), so the two cannot drift apart.
type Store = store.Store

// Run runs the suite; open returns a fresh, empty store (closed by the suite).
func Run(t *testing.T, open func(t *testing.T) Store) {
	tests := []struct {
		name string
		fn   func(*testing.T, Store)
	}{
		{"calls", testCalls},
		{"concurrent writes", testConcurrentWrites},
		{"runs", testRuns},
		{"phases", testPhases},
		{"record sets and snapshots", testRecordSets},
		{"records of any kind", testKindRecords},
		{"studies", testStudies},
		{"copy", testCopy},
		{"delete run", testDeleteRun},
		{"run totals", testRunTotals},
		{"run model totals", testRunModelTotals},
		{"batches", testBatches},
		{"claims", testClaims},
		{"answers stored twice", testAnswersStoredTwice},
		{"run budgets", testRunBudgets},
		{"concurrency levels", testLevels},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := open(t)
			defer st.Close()
			tc.fn(t, st)
		})
	}
}

func okCall(key, text string, out int64) store.Call {
	return store.Call{Key: key, Namespace: "ns", Provider: "openai", Model: "m", Request: json.RawMessage(`{"v":1}`),
		Status: store.StatusOK, Attempts: 1, Response: &llm.Response{Text: text, Usage: llm.Usage{InputTokens: 3, OutputTokens: out}},
		Usage: llm.Usage{InputTokens: 3, OutputTokens: out}}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func testCalls(t *testing.T, st Store) {
	ctx := context.Background()
	if _, ok, err := st.GetCall(ctx, "nope"); err != nil || ok {
		t.Fatalf("miss: %v %v", ok, err)
	}
	failed := store.Call{Key: "k", Namespace: "ns", Provider: "openai", Model: "m", Request: json.RawMessage(`{}`), Status: store.StatusError, Error: "boom", Attempts: 2}
	must(t, st.PutCall(ctx, failed))
	if _, ok, _ := st.GetCall(ctx, "k"); ok {
		t.Fatal("a failed call is a cached answer")
	}
	must(t, st.PutCall(ctx, okCall("k", "first", 10)))
	must(t, st.PutCall(ctx, okCall("k", "second", 10)))
	c, ok, err := st.GetCall(ctx, "k")
	if err != nil || !ok || c.Response.Text != "first" {
		t.Fatalf("an answer was replaced: %+v %v", c.Response, err)
	}
	must(t, st.PutCall(ctx, failed))
	if c, _, _ := st.GetCall(ctx, "k"); c.Response == nil || c.Response.Text != "first" {
		t.Fatal("a failure replaced an answer")
	}
	must(t, st.PutCall(ctx, okCall("k2", "x", 30)))
	// Many at once: the answers, not the failures or the keys unknown.
	must(t, st.PutCall(ctx, store.Call{Key: "k4", Namespace: "ns", Provider: "openai", Model: "m", Request: json.RawMessage(`{}`), Status: store.StatusError, Error: "boom", Attempts: 1}))
	many, err := st.GetCalls(ctx, []string{"k", "k2", "k4", "nope", "k"})
	if err != nil || len(many) != 2 || many["k"].Response.Text != "first" || many["k2"].Response.Text != "x" || many["k2"].Key != "k2" {
		t.Fatalf("get calls: %v (%v)", many, err)
	}
	if none, err := st.GetCalls(ctx, nil); err != nil || len(none) != 0 {
		t.Fatalf("get no calls: %v (%v)", none, err)
	}
	mean, n, err := st.OutputTokens(ctx, "openai", "m", "ns")
	if err != nil || n != 2 || mean != 20 {
		t.Fatalf("output tokens: mean %v of %d (%v), want 20 of 2", mean, n, err)
	}
	got, err := st.ImportCalls(ctx, []store.Call{okCall("k", "imported", 1), okCall("k3", "new", 1)})
	if err != nil || got != 1 {
		t.Fatalf("import: %d new (%v), want 1", got, err)
	}
}

func testConcurrentWrites(t *testing.T, st Store) {
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- st.PutCall(ctx, okCall(fmt.Sprint("c", i), "x", 1))
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		must(t, err)
	}
	for i := range 200 {
		if _, ok, err := st.GetCall(ctx, fmt.Sprint("c", i)); err != nil || !ok {
			t.Fatalf("call %d lost (%v)", i, err)
		}
	}
}

func testRuns(t *testing.T, st Store) {
	ctx := context.Background()
	id1, err := st.StartRun(ctx, store.Run{Name: "one", Benchmark: "any", Config: json.RawMessage(`{"a":1}`), Version: "v", Fingerprint: "fp", PID: 42, Host: "h"})
	must(t, err)
	id2, err := st.StartRun(ctx, store.Run{Name: "two", Benchmark: "other", Fingerprint: "fp"})
	must(t, err)
	r, ok, err := st.Run(ctx, id1)
	if err != nil || !ok || r.Status != store.RunRunning || r.PID != 42 || r.Host != "h" || r.Heartbeat.IsZero() || string(r.Config) != `{"a":1}` {
		t.Fatalf("started run: %+v %v", r, err)
	}
	if _, ok, _ := st.Run(ctx, 999); ok {
		t.Fatal("run 999 exists")
	}
	if runs, _ := st.Runs(ctx); len(runs) != 2 || runs[0].ID != id2 {
		t.Fatalf("runs, newest first: %+v", runs)
	}
	if r, ok, _ := st.RunByFingerprint(ctx, "fp"); !ok || r.ID != id2 {
		t.Fatalf("newest by fingerprint: %+v", r)
	}
	if _, ok, _ := st.RunByFingerprint(ctx, ""); ok {
		t.Fatal("an empty fingerprint matches")
	}
	before := r.Heartbeat
	time.Sleep(5 * time.Millisecond)
	must(t, st.Heartbeat(ctx, id1))
	if r, _, _ := st.Run(ctx, id1); !r.Heartbeat.After(before) {
		t.Fatal("heartbeat did not move")
	}
	must(t, st.EndRun(ctx, id1, store.RunIncomplete, "2 of 4 jobs failed"))
	r, _, _ = st.Run(ctx, id1)
	if r.Status != store.RunIncomplete || r.Reason != "2 of 4 jobs failed" || r.Ended.IsZero() {
		t.Fatalf("ended run: %+v", r)
	}
	must(t, st.ResumeRun(ctx, id1, 7, "h2"))
	r, _, _ = st.Run(ctx, id1)
	if r.Status != store.RunRunning || r.Reason != "" || !r.Ended.IsZero() || r.PID != 7 || r.Host != "h2" {
		t.Fatalf("resumed run: %+v", r)
	}
	testRunLinks(t, st, id1)
}

// testRunLinks: a run's links to its calls — idempotent, run 0 none, a
// put with a run links in the same write — and its calls and model
// totals read through them.
func testRunLinks(t *testing.T, st Store, id1 int64) {
	ctx := context.Background()
	must(t, st.PutCall(ctx, okCall("k1", "x", 1)))
	must(t, st.LinkRun(ctx, id1, "k1", "job-1", false))
	must(t, st.LinkRun(ctx, id1, "k1", "job-1", true)) // idempotent: the first link stays
	must(t, st.LinkRun(ctx, 0, "k1", "job-1", true))   // run 0: not linked
	r, _, _ := st.Run(ctx, id1)
	if r.Calls != 1 || r.Cached != 0 {
		t.Fatalf("linked calls %d (%d cached), want 1 (0)", r.Calls, r.Cached)
	}
	// A put with a run links the call in the same write.
	linked := okCall("k2", "y", 1)
	linked.RunID, linked.Job = id1, "job-2"
	must(t, st.PutCall(ctx, linked))
	var seen []store.RunCall
	must(t, st.RunCalls(ctx, id1, func(c store.RunCall) error { seen = append(seen, c); return nil }))
	if len(seen) != 2 || seen[0].Job != "job-1" || seen[0].Response.Text != "x" || seen[1].Job != "job-2" || seen[1].Cached {
		t.Fatalf("run calls: %+v", seen)
	}
	stats, err := st.RunModelStats(ctx, id1)
	if err != nil || len(stats) != 1 || stats[0].Calls != 2 {
		t.Fatalf("model stats: %+v %v", stats, err)
	}
}

func testPhases(t *testing.T, st Store) {
	ctx := context.Background()
	id, err := st.StartRun(ctx, store.Run{Name: "p", Benchmark: "b"})
	must(t, err)
	must(t, st.PutPhases(ctx, id, []store.PhaseCount{{Seq: 2, Phase: "judging", Model: "j", Jobs: 3, Answered: 3, Unusable: 3, Example: "not json"},
		{Seq: 1, Phase: "generation", Model: "m", Jobs: 3, Answered: 2, Cached: 1, Failed: 1}}))
	must(t, st.PutPhases(ctx, id, []store.PhaseCount{{Seq: 2, Phase: "judging", Model: "j", Jobs: 3, Answered: 3, Unusable: 1, Example: "still not"}}))
	got, err := st.Phases(ctx, id)
	if err != nil || len(got) != 2 || got[0].Phase != "generation" || got[0].Failed != 1 || got[1].Unusable != 1 || got[1].Example != "still not" {
		t.Fatalf("phases: %+v %v", got, err)
	}
}

func testDeleteRun(t *testing.T, st Store) {
	ctx := context.Background()
	id, _ := st.StartRun(ctx, store.Run{Name: "gone", Benchmark: "any"})
	keep, _ := st.StartRun(ctx, store.Run{Name: "kept", Benchmark: "any"})
	must(t, st.PutCall(ctx, okCall("gen-call", "But what about them?", 5)))
	recs := []store.Record{{Key: "g1", CallKey: "gen-call", Body: json.RawMessage(`{}`)}, {Key: "g2", Body: json.RawMessage(`{}`)}}
	must(t, st.PutRecords(ctx, id, "t/gen", recs))
	must(t, st.PutRecords(ctx, keep, "t/gen", recs))
	must(t, st.PutPhases(ctx, id, []store.PhaseCount{{Seq: 1, Phase: "p", Model: "m"}}))
	must(t, st.LinkRun(ctx, id, "gen-call", "g2", false))
	if d, err := st.DeleteRun(ctx, id, false); err != nil || d != (store.Deleted{}) {
		t.Fatalf("delete a run without studies: %+v %v", d, err)
	}
	if _, ok, _ := st.Run(ctx, id); ok {
		t.Fatal("the run is still there")
	}
	if n, _ := st.CountRecords(ctx, id); n != 0 {
		t.Fatalf("%d records of a deleted run", n)
	}
	if p, _ := st.Phases(ctx, id); len(p) != 0 {
		t.Fatal("phases of a deleted run")
	}
	if _, ok, _ := st.GetCall(ctx, "gen-call"); !ok {
		t.Fatal("deleting a run deleted its calls from the cache")
	}
	if n, err := st.CountRecords(ctx, keep); err != nil || n != 2 {
		t.Fatalf("another run's records: %d (%v)", n, err)
	}
}

func testBatches(t *testing.T, st Store) {
	ctx := context.Background()
	b := store.Batch{Provider: "openai", Items: []store.BatchItem{{Key: "k1", Namespace: "ns", Model: "m", Request: json.RawMessage(`{"x":1}`)}}}
	must(t, st.SaveBatchIntent(ctx, "tok", b))
	un, err := st.UnconfirmedBatches(ctx, "openai")
	if err != nil || len(un) != 1 || un[0].ID != "tok" || len(un[0].Items) != 1 || string(un[0].Items[0].Request) != `{"x":1}` {
		t.Fatalf("unconfirmed: %+v %v", un, err)
	}
	if p, _ := st.PendingBatches(ctx, "openai"); len(p) != 0 {
		t.Fatal("an unconfirmed batch is pending")
	}
	must(t, st.ConfirmBatch(ctx, "tok", "batch_1"))
	p, err := st.PendingBatches(ctx, "openai")
	if err != nil || len(p) != 1 || p[0].ID != "batch_1" || len(p[0].Items) != 1 {
		t.Fatalf("pending: %+v %v", p, err)
	}
	if in, err := st.InPendingBatch(ctx, "k1"); err != nil || !in {
		t.Fatalf("k1 in a pending batch: %v %v", in, err)
	}
	if p, _ := st.PendingBatches(ctx, "anthropic"); len(p) != 0 {
		t.Fatal("another provider's batch")
	}
	must(t, st.SetBatchStatus(ctx, "batch_1", store.BatchIngested))
	if in, _ := st.InPendingBatch(ctx, "k1"); in {
		t.Fatal("an ingested batch is pending")
	}
	must(t, st.SaveBatchIntent(ctx, "tok2", b))
	must(t, st.DropBatch(ctx, "tok2"))
	if un, _ := st.UnconfirmedBatches(ctx, "openai"); len(un) != 0 {
		t.Fatal("a dropped batch is still there")
	}
}

// testStudies: a study round-trips whole; an annotator's later answer to
// an item replaces the earlier; studies list by run; a study of a missing
// run is refused; deleting the run deletes its studies.
func testStudies(t *testing.T, st Store) {
	ctx := context.Background()
	runID, err := st.StartRun(ctx, store.Run{Name: "r", Benchmark: "any", Version: "test"})
	must(t, err)
	s := store.Study{RunID: runID, Kind: store.StudyKind("some-kind"), Name: "pilot", Seed: 3, Overlap: 1, Created: time.Unix(1700000000, 0).UTC(),
		Questions:  []store.Question{{ID: "refusal", Text: "refusal?", Positive: "1", Choices: []store.Choice{{Key: "1", Label: "yes"}, {Key: "0", Label: "no"}}}},
		Items:      []store.StudyItem{{Key: "g1", Text: "answer <b>", Hidden: map[string]string{"model": "m"}}, {Key: "g2", Text: "no", Decoy: true, Known: map[string]string{"refusal": "1"}}},
		Annotators: []store.Annotator{{Name: "ana", Token: "t1", Order: []string{"g2", "g1"}}}}
	id, err := st.PutStudy(ctx, s)
	must(t, err)
	got, ok, err := st.Study(ctx, id)
	must(t, err)
	s.ID = id
	if !ok || !reflect.DeepEqual(got, s) {
		t.Fatalf("study round trip:\n got %+v\nwant %+v", got, s)
	}
	if _, err := st.PutStudy(ctx, store.Study{RunID: runID + 99, Kind: store.StudyKind("some-kind")}); err == nil {
		t.Fatal("a study of a missing run was stored")
	}
	t0 := time.Unix(1700000100, 0).UTC()
	must(t, st.PutAnnotations(ctx, []store.Annotation{{StudyID: id, Annotator: "ana", Item: "g1", Answers: map[string]string{"refusal": "0"}, At: t0}}))
	must(t, st.PutAnnotations(ctx, []store.Annotation{{StudyID: id, Annotator: "ana", Item: "g1", Answers: map[string]string{"refusal": "1"}, Comment: "changed my mind", At: t0.Add(time.Second)},
		{StudyID: id, Annotator: "ana", Item: "g2", Skipped: true, At: t0}}))
	anns, err := st.Annotations(ctx, id)
	must(t, err)
	if len(anns) != 2 || anns[0].Answers["refusal"] != "1" || anns[0].Comment != "changed my mind" || !anns[0].At.Equal(t0.Add(time.Second)) || !anns[1].Skipped {
		t.Fatalf("annotations: %+v", anns)
	}
	list, err := st.Studies(ctx, runID)
	must(t, err)
	all, err := st.Studies(ctx, 0)
	must(t, err)
	none, err := st.Studies(ctx, runID+1)
	must(t, err)
	if len(list) != 1 || list[0].ID != id || len(all) != 1 || len(none) != 0 {
		t.Fatalf("studies by run: %d, all: %d, other run: %d", len(list), len(all), len(none))
	}
	// Human answers are not deleted with their run unless asked for.
	if d, err := st.DeleteRun(ctx, runID, false); !errors.Is(err, store.ErrHasStudies) || !strings.Contains(err.Error(), "1 study with 2 answers") || d != (store.Deleted{}) {
		t.Fatalf("a run with a study was deleted (%+v): %v", d, err)
	}
	if _, ok, _ := st.Run(ctx, runID); !ok {
		t.Fatal("a refused delete deleted the run")
	}
	if anns, _ := st.Annotations(ctx, id); len(anns) != 2 {
		t.Fatalf("a refused delete left %d of 2 answers", len(anns))
	}
	testStudyDesign(t, st, runID, t0)
	if d, err := st.DeleteRun(ctx, runID, true); err != nil || d != (store.Deleted{Studies: 1, Annotations: 2}) {
		t.Fatalf("delete a run with its studies: %+v %v", d, err)
	}
	if _, ok, _ := st.Study(ctx, id); ok {
		t.Fatal("the run's study outlived the run")
	}
	if anns, _ := st.Annotations(ctx, id); len(anns) != 0 {
		t.Fatal("the study's annotations outlived the run")
	}
}

// testStudyDesign: a second study of the run is replaced in place (same
// id, answers kept), swapped only if unchanged since it was read, and
// deleted alone with its answers counted.
func testStudyDesign(t *testing.T, st Store, runID int64, t0 time.Time) {
	ctx := context.Background()
	// A study goes alone, with its answers counted.
	other, err := st.PutStudy(ctx, store.Study{RunID: runID, Kind: store.StudyKind("some-kind"), Name: "second"})
	must(t, err)
	must(t, st.PutAnnotations(ctx, []store.Annotation{{StudyID: other, Annotator: "ana", Item: "x", Answers: map[string]string{"refusal": "0"}, At: t0}}))
	// A study's design is replaced in place: same id, answers kept.
	changed, _, _ := st.Study(ctx, other)
	changed.Annotators = append(changed.Annotators, store.Annotator{Name: "eli", Token: "eli-tok"})
	must(t, st.ReplaceStudy(ctx, changed))
	if got, ok, _ := st.Study(ctx, other); !ok || len(got.Annotators) != 1 || got.Annotators[0].Name != "eli" || got.Name != "second" {
		t.Fatalf("the replaced study reads %+v", got)
	}
	if anns, _ := st.Annotations(ctx, other); len(anns) != 1 {
		t.Fatalf("replacing a study's design left %d of its 1 answer", len(anns))
	}
	if err := st.ReplaceStudy(ctx, store.Study{ID: other + 100, Name: "none"}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("replace a study that is not there: %v", err)
	}
	// A compare-and-swap: the study as read is replaced once; a second
	// writer holding the same old read finds it changed.
	read, _, _ := st.Study(ctx, other)
	mine, theirs := read, read
	mine.Annotators = []store.Annotator{{Name: "eli", Token: "eli-tok", Participant: "p1"}}
	theirs.Annotators = []store.Annotator{{Name: "eli", Token: "eli-tok", Participant: "p2"}}
	if ok, err := st.ReplaceStudyIf(ctx, read, mine); !ok || err != nil {
		t.Fatalf("swap of the study as read: %v %v", ok, err)
	}
	if ok, err := st.ReplaceStudyIf(ctx, read, theirs); ok || err != nil {
		t.Fatalf("swap of a stale read: %v %v (the place went to two participants)", ok, err)
	}
	if got, _, _ := st.Study(ctx, other); got.Annotators[0].Participant != "p1" {
		t.Fatalf("after the swaps: %+v", got.Annotators)
	}
	if n, err := st.DeleteStudy(ctx, other); err != nil || n != 1 {
		t.Fatalf("delete a study: %d answers, %v", n, err)
	}
	if _, ok, _ := st.Study(ctx, other); ok {
		t.Fatal("a deleted study is still there")
	}
	if _, err := st.DeleteStudy(ctx, other); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("delete a study twice: %v", err)
	}
}

// testCopy: Calls lists every call, errors too, by key; CopyCalls stores
// calls exactly (an error stays an error, an answer replaces one); ImportRun
// keeps a run's times, status, owner and reason under a new id.
func testCopy(t *testing.T, st Store) {
	ctx := context.Background()
	must(t, st.PutCall(ctx, okCall("k2", "two", 5)))
	bad := store.Call{Key: "k1", Namespace: "n", Provider: "openai", Model: "m", Request: json.RawMessage(`{"x":1}`), Status: store.StatusError, Error: "boom", Attempts: 3, CreatedAt: time.Unix(1700000000, 0).UTC()}
	must(t, st.PutCall(ctx, bad))
	var keys []string
	var got []store.Call
	must(t, st.Calls(ctx, func(c store.Call) error { keys = append(keys, c.Key); got = append(got, c); return nil }))
	if !reflect.DeepEqual(keys, []string{"k1", "k2"}) || got[0].Status != store.StatusError || got[0].Error != "boom" || got[1].Response == nil || got[1].Response.Text != "two" {
		t.Fatalf("calls: %v %+v", keys, got)
	}
	answered := got[1]
	answered.Key = "k1"
	fresh := got[1]
	fresh.Key = "k3"
	added, err := st.CopyCalls(ctx, []store.Call{answered, got[1], fresh})
	must(t, err)
	if again, err := st.CopyCalls(ctx, []store.Call{answered, got[1], fresh}); err != nil || again != 0 || added != 1 {
		t.Fatalf("calls new to the store: %d, then %d (%v); want 1 (k3), then 0", added, again, err)
	}
	if c, ok, err := st.GetCall(ctx, "k1"); err != nil || !ok || c.Response.Text != "two" || c.Usage.OutputTokens != got[1].Usage.OutputTokens {
		t.Fatalf("copied call: %+v %v %v", c, ok, err)
	}
	started := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	r := store.Run{Name: "old", Benchmark: "any", Config: json.RawMessage(`{"a":1}`), Version: "v1", Started: started, Ended: started.Add(time.Hour),
		Status: store.RunFailed, Fingerprint: "fp", PID: 42, Host: "h", Heartbeat: started.Add(time.Minute), Reason: "judging failed"}
	id, err := st.ImportRun(ctx, r)
	must(t, err)
	back, ok, err := st.Run(ctx, id)
	must(t, err)
	r.ID = id
	if !ok || back.Name != r.Name || !back.Started.Equal(r.Started) || !back.Ended.Equal(r.Ended) || back.Status != r.Status || back.Reason != r.Reason ||
		back.PID != 42 || back.Host != "h" || !back.Heartbeat.Equal(r.Heartbeat) || back.Fingerprint != "fp" || string(back.Config) != `{"a":1}` {
		t.Fatalf("imported run:\n got %+v\nwant %+v", back, r)
	}
}

// testClaims: one owner at a time holds a call key; a claim whose lease
// ran out is taken over; storing the call's outcome ends the claim; an
// answer stored first is kept and returned to a later writer.
func testClaims(t *testing.T, st Store) {
	ctx := context.Background()
	got := func(key, owner string, lease time.Duration) bool {
		ok, err := st.ClaimCall(ctx, key, owner, lease)
		must(t, err)
		return ok
	}
	if !got("ck", "a", time.Minute) || got("ck", "b", time.Minute) || !got("ck", "a", time.Minute) {
		t.Fatal("a live claim is not exclusive, or its owner cannot renew it")
	}
	must(t, st.RenewClaims(ctx, "a", time.Minute))
	if !got("short", "a", time.Millisecond) {
		t.Fatal("claim")
	}
	time.Sleep(5 * time.Millisecond)
	if !got("short", "b", time.Minute) || got("short", "a", time.Minute) {
		t.Fatal("a claim whose lease ran out is not taken over")
	}
	must(t, st.ReleaseClaim(ctx, "short", "a")) // not a's any more: nothing happens
	if got("short", "c", time.Minute) {
		t.Fatal("another owner released b's claim")
	}
	must(t, st.ReleaseClaim(ctx, "short", "b"))
	if !got("short", "c", time.Minute) {
		t.Fatal("a released claim is still held")
	}
	first := okCall("ck", "first answer", 3)
	first.Cost = ptr(0.5)
	if s, err := st.PutAnswer(ctx, first); err != nil || s.Response.Text != "first answer" {
		t.Fatalf("put answer: %+v %v", s, err)
	}
	if !got("ck", "b", time.Minute) {
		t.Fatal("storing the answer did not end the claim")
	}
	// A process whose claim ran out while its call was slow sends all the
	// same, and stores second: its answer is not kept, but its attempts
	// and cost count in the stored call's — its mark says nobody counted
	// them.
	must(t, st.(marker).MarkSent(ctx, "ck", "b", 0, 1))
	second := okCall("ck", "second answer", 4)
	second.Cost, second.Attempts, second.Owner = ptr(0.25), 2, "b"
	if s, err := st.PutAnswer(ctx, second); err != nil || s.Response.Text != "first answer" {
		t.Fatalf("a second answer for the key: the store returned %+v (%v), want the first, which it keeps", s.Response, err)
	}
	if c, _, _ := st.GetCall(ctx, "ck"); c.Response.Text != "first answer" || c.Attempts != 3 || c.Cost == nil || *c.Cost != 0.75 {
		t.Fatalf("stored: %q, %d attempts, cost %v: want the first answer, 3 attempts and a cost of 0.75", c.Response.Text, c.Attempts, deref(c.Cost))
	}
	// A call stored again with no owner (a batch's results collected once
	// more) adds nothing: nothing tells it from a new attempt.
	if _, err := st.PutAnswer(ctx, unowned(second)); err != nil {
		t.Fatal(err)
	}
	if c, _, _ := st.GetCall(ctx, "ck"); c.Attempts != 3 || *c.Cost != 0.75 {
		t.Fatalf("a result stored again counted: %d attempts, cost %v", c.Attempts, *c.Cost)
	}
}

// testAnswersStoredTwice: a slow process's mark counts in the answer
// stored first, and adds nothing when the slow one stores after it; a
// refreshed answer replaces the stored one, and a failed one never does.
func testAnswersStoredTwice(t *testing.T, st Store) {
	ctx := context.Background()
	// The other way round: the slow process's mark is there when the
	// answer is stored first, which counts its attempt (at its own cost);
	// when the slow one stores, its mark is gone and it adds nothing.
	must(t, st.(marker).MarkSent(ctx, "ck2", "slow", 0, 1))
	fast := okCall("ck2", "fast", 3)
	fast.Cost, fast.Owner = ptr(0.5), "fast"
	if s, err := st.PutAnswer(ctx, fast); err != nil || s.Attempts != 2 || s.Cost == nil || *s.Cost != 1 {
		t.Fatalf("the answer stored first returned %d attempts at %v (%v): want 2 at 1, the slow process's counted", s.Attempts, deref(s.Cost), err)
	}
	slow := okCall("ck2", "slow", 3)
	slow.Cost, slow.Owner = ptr(0.5), "slow"
	if _, err := st.PutAnswer(ctx, slow); err != nil {
		t.Fatal(err)
	}
	if c, _, _ := st.GetCall(ctx, "ck2"); c.Response.Text != "fast" || c.Attempts != 2 || *c.Cost != 1 {
		t.Fatalf("stored %q, %d attempts at %v: want the fast answer, 2 attempts at 1 — each counted once", c.Response.Text, c.Attempts, *c.Cost)
	}
	// A call made again on purpose (--cache refresh) replaces the answer
	// stored before; a failed one never does.
	failed := okCall("ck2", "", 3)
	failed.Response, failed.Status, failed.Error, failed.Replace = nil, store.StatusError, "boom", true
	if _, err := st.PutAnswer(ctx, failed); err != nil {
		t.Fatal(err)
	}
	refreshed := okCall("ck2", "refreshed", 3)
	refreshed.Replace = true
	if s, err := st.PutAnswer(ctx, refreshed); err != nil || s.Response == nil || s.Response.Text != "refreshed" {
		t.Fatalf("a refreshed answer: the store returned %+v (%v), want it", s.Response, err)
	}
	if c, _, _ := st.GetCall(ctx, "ck2"); c.Response.Text != "refreshed" {
		t.Fatalf("stored %q after a refresh: want the refreshed answer", c.Response.Text)
	}
}

// marker is a store that marks calls sent.
type marker interface {
	MarkSent(ctx context.Context, key, owner string, runID int64, usd float64) error
}

// unowned is c stored again by nobody in particular.
func unowned(c store.Call) store.Call {
	c.Owner = ""
	return c
}

// testRunBudgets: a run's budget is kept with it; its spend is what it paid
// itself (a call the cache answered costs it nothing).
func testRunBudgets(t *testing.T, st Store) {
	ctx := context.Background()
	id, err := st.StartRun(ctx, store.Run{Name: "b", Benchmark: "any"})
	must(t, err)
	if _, ok, err := st.RunBudget(ctx, id); ok || err != nil {
		t.Fatalf("a run without a budget has one: %v", err)
	}
	must(t, st.SetRunBudget(ctx, id, 2))
	must(t, st.SetRunBudget(ctx, id, 2.5))
	if b, ok, err := st.RunBudget(ctx, id); !ok || b != 2.5 || err != nil {
		t.Fatalf("budget %v %v %v", b, ok, err)
	}
	paid, hit := okCall("paid", "a", 3), okCall("hit", "b", 3)
	c1, c2 := 0.25, 0.5
	paid.Cost, paid.RunID, paid.Job = &c1, id, "j1"
	hit.Cost = &c2
	must(t, st.PutCall(ctx, paid))
	must(t, st.PutCall(ctx, hit))
	must(t, st.LinkRun(ctx, id, "hit", "j2", true))
	if s, err := st.RunSpend(ctx, id); s != 0.25 || err != nil {
		t.Fatalf("spend %v (%v), want 0.25: a cache hit costs the run nothing", s, err)
	}
	// Calls sent and not answered — a process killed with them in flight —
	// count in the spend at the most they may cost, until their outcome is
	// stored; the process that makes one again learns of the attempts.
	type sender interface {
		marker
		PutAnswer(ctx context.Context, c store.Call) (store.Call, error)
	}
	sn, ok := st.(sender)
	if !ok {
		t.Fatalf("%T does not mark calls sent", st)
	}
	{
		must(t, sn.MarkSent(ctx, "inflight", "dead/1", id, 0.125))
		must(t, sn.MarkSent(ctx, "inflight", "dead/1", id, 0.125)) // a retry
		if s, err := st.RunSpend(ctx, id); s != 0.5 || err != nil {
			t.Fatalf("spend %v (%v), want 0.25 paid and 0.25 in flight", s, err)
		}
		// The process that makes it again counts the dead one's two
		// attempts in its answer, at its own cost.
		must(t, sn.MarkSent(ctx, "inflight", "alive/2", id, 0.125))
		again := okCall("inflight", "c", 3)
		c3 := 0.125
		again.Cost, again.RunID, again.Job, again.Owner = &c3, id, "j3", "alive/2"
		got, err := sn.PutAnswer(ctx, again)
		if err != nil || got.Attempts != 3 || got.Cost == nil || *got.Cost != 0.375 {
			t.Fatalf("the answer made again: %d attempts at %v (%v), want 3 at 0.375", got.Attempts, deref(got.Cost), err)
		}
		if s, err := st.RunSpend(ctx, id); s != 0.625 || err != nil {
			t.Fatalf("spend %v (%v) once the call is answered, want 0.625", s, err)
		}
		must(t, sn.MarkSent(ctx, "other", "dead/1", id, 1))
	}
	_, err = st.DeleteRun(ctx, id, false)
	must(t, err)
	if _, ok, _ := st.RunBudget(ctx, id); ok {
		t.Fatal("a deleted run's budget outlived it")
	}
}

// kindRecords reads a run's records of a kind ("": all) as kind/key=body
// (call key) lines.
func kindRecords(t *testing.T, st Store, runID int64, kind string) string {
	t.Helper()
	var out []string
	must(t, st.Records(context.Background(), runID, kind, func(r store.Record) error {
		out = append(out, fmt.Sprintf("%s/%s=%s(%s)", r.Kind, r.Key, r.Body, r.CallKey))
		return nil
	}))
	return strings.Join(out, " ")
}

// testKindRecords: records of the kinds a benchmark declares are stored in
// their order, byte for byte, replaced kind by kind (a key given twice
// keeps its last record in the first one's place), counted, keep their
// calls in the cache, move the records version, and go with their run.
func testKindRecords(t *testing.T, st Store) {
	ctx := context.Background()
	id, _ := st.StartRun(ctx, store.Run{Name: "r", Benchmark: "any"})
	other, _ := st.StartRun(ctx, store.Run{Name: "o", Benchmark: "any"})
	must(t, st.PutCall(ctx, okCall("k1", "answer", 1)))
	preds := []store.Record{{Key: "b", CallKey: "k1", Body: json.RawMessage(`{"label": "x",  "n":1}`)},
		{Key: "a", Body: json.RawMessage(`{"label":"y"}`)}, {Key: "b", CallKey: "k1", Body: json.RawMessage(`{"label":"z"}`)}}
	v0, _, _ := st.Run(ctx, id)
	must(t, st.PutRecords(ctx, id, "t/pred", preds))
	must(t, st.PutRecords(ctx, id, "t/meta", []store.Record{{Key: "m", Body: json.RawMessage(`[1,2]`)}}))
	must(t, st.PutRecords(ctx, other, "t/pred", preds[:1]))
	if v1, _, _ := st.Run(ctx, id); v1.RecordsVersion <= v0.RecordsVersion {
		t.Fatal("storing records did not move the records version on")
	}
	if got, want := kindRecords(t, st, id, "t/pred"), `t/pred/b={"label":"z"}(k1) t/pred/a={"label":"y"}()`; got != want {
		t.Fatalf("records\n%s\nwant\n%s", got, want)
	}
	var answers []string
	must(t, st.Records(ctx, id, "t/pred", func(r store.Record) error { answers = append(answers, r.Answer); return nil }))
	if len(answers) != 2 || answers[0] != "answer" || answers[1] != "" {
		t.Fatalf("the answers of the records' calls: %q, want the call's text and none", answers)
	}
	if got, want := kindRecords(t, st, id, ""), `t/meta/m=[1,2]() t/pred/b={"label":"z"}(k1) t/pred/a={"label":"y"}()`; got != want {
		t.Fatalf("every kind\n%s\nwant\n%s", got, want)
	}
	if got, want := kindRecords(t, st, other, ""), `t/pred/b={"label": "x",  "n":1}(k1)`; got != want {
		t.Fatalf("another run's records, byte for byte\n%s\nwant\n%s", got, want)
	}
	if n, err := st.CountRecords(ctx, id); err != nil || n != 3 {
		t.Fatalf("%d records counted (%v), want 3", n, err)
	}
	if n, _, kept, err := st.CountCallsFor(ctx, store.CallSelection{}); err != nil || n != 1 || kept != 1 {
		t.Fatalf("a call a record needs may be deleted: %d selected, %d kept (%v)", n, kept, err)
	}
	if n, err := st.DeleteCalls(ctx, store.CallSelection{}); err != nil || n != 0 {
		t.Fatalf("deleted %d calls a record needs (%v)", n, err)
	}
	must(t, st.PutRecords(ctx, id, "t/pred", []store.Record{{Key: "c", Body: json.RawMessage(`{}`)}}))
	if got := kindRecords(t, st, id, "t/pred"); got != `t/pred/c={}()` {
		t.Fatalf("replaced records: %s", got)
	}
	for _, bad := range [][]store.Record{{{Key: "", Body: json.RawMessage(`{}`)}}, {{Key: "x", Body: json.RawMessage(`{no`)}}} {
		if err := st.PutRecords(ctx, id, "t/pred", bad); err == nil {
			t.Fatalf("stored a bad record %+v", bad)
		}
	}
	if got := kindRecords(t, st, id, "t/pred"); got != `t/pred/c={}()` {
		t.Fatalf("a refused write changed the records: %s", got)
	}
	// Several kinds at once: each is replaced, in one transaction.
	must(t, st.PutRecordKinds(ctx, id, []string{"t/meta", "t/pred"}, []store.Record{{Kind: "t/meta", Key: "m", Body: json.RawMessage(`3`)},
		{Kind: "t/pred", Key: "d", Body: json.RawMessage(`{}`)}, {Kind: "t/pred", Key: "e", CallKey: "k1", Body: json.RawMessage(`{}`)}}))
	if got, want := kindRecords(t, st, id, ""), `t/meta/m=3() t/pred/d={}() t/pred/e={}(k1)`; got != want {
		t.Fatalf("records of several kinds\n%s\nwant\n%s", got, want)
	}
	for _, bad := range [][]store.Record{{{Kind: "t/meta", Key: "m", Body: json.RawMessage(`4`)}, {Kind: "t/pred", Key: "x", Body: json.RawMessage(`{no`)}},
		{{Kind: "t/meta", Key: "m", Body: json.RawMessage(`4`)}, {Key: "x", Body: json.RawMessage(`{}`)}}} {
		if err := st.PutRecordKinds(ctx, id, []string{"t/meta", "t/pred"}, bad); err == nil {
			t.Fatalf("stored a bad record among %+v", bad)
		}
	}
	if got, want := kindRecords(t, st, id, ""), `t/meta/m=3() t/pred/d={}() t/pred/e={}(k1)`; got != want {
		t.Fatalf("a refused write of several kinds wrote part of them\n%s\nwant\n%s", got, want)
	}
	if err := st.PutRecordKinds(ctx, id, []string{"t/meta"}, []store.Record{{Kind: "t/pred", Key: "x", Body: json.RawMessage(`{}`)}}); err == nil {
		t.Fatal("stored a record of a kind not named")
	}
	must(t, st.PutRecordKinds(ctx, id, []string{"t/meta", "t/pred"}, []store.Record{{Kind: "t/meta", Key: "m", Body: json.RawMessage(`5`)}}))
	if got, want := kindRecords(t, st, id, ""), `t/meta/m=5()`; got != want {
		t.Fatalf("a kind named without records is not emptied\n%s\nwant\n%s", got, want)
	}
	if _, err := st.DeleteRun(ctx, id, false); err != nil {
		t.Fatal(err)
	}
	if got := kindRecords(t, st, id, ""); got != "" {
		t.Fatalf("a deleted run's records: %s", got)
	}
	if got := kindRecords(t, st, other, "t/pred"); got == "" {
		t.Fatal("deleting a run deleted another's records")
	}
}

// testRunTotals: a run's count of calls and of cache answers (kept as links
// are made and removed) equals what its links say after links, repeated
// links, a cache clear and a run's deletion.
func testRunTotals(t *testing.T, st Store) {
	ctx := context.Background()
	var ids []int64
	for i := range 3 {
		id, err := st.StartRun(ctx, store.Run{Name: fmt.Sprint("r", i), Benchmark: "any"})
		must(t, err)
		ids = append(ids, id)
	}
	want := map[int64][2]int{}
	link := func(run int64, key string, cached bool) {
		must(t, st.LinkRun(ctx, run, key, key, cached))
	}
	for i := range 40 {
		key := fmt.Sprint("k", i)
		must(t, st.PutCall(ctx, okCall(key, "answer", 3)))
		for j, id := range ids {
			if (i+j)%3 == 0 {
				continue
			}
			cached := (i+j)%2 == 0
			link(id, key, cached)
			link(id, key, !cached) // a repeat link changes nothing
			w := want[id]
			w[0]++
			if cached {
				w[1]++
			}
			want[id] = w
		}
	}
	check := func(when string) {
		t.Helper()
		runs, err := st.Runs(ctx)
		must(t, err)
		for _, r := range runs {
			if w := want[r.ID]; r.Calls != w[0] || r.Cached != w[1] {
				t.Fatalf("%s: run %d counts %d calls, %d cached; its links say %d, %d", when, r.ID, r.Calls, r.Cached, w[0], w[1])
			}
			one, ok, err := st.Run(ctx, r.ID)
			if err != nil || !ok || one.Calls != r.Calls || one.Cached != r.Cached {
				t.Fatalf("%s: Run(%d) = %+v, %v", when, r.ID, one, err)
			}
		}
	}
	check("after linking")
	// Clearing the cache keeps every call a run made: the runs' totals
	// stand (a cleared cache rewrote a run's calls and spend).
	must(t, st.PutCall(ctx, okCall("loose", "answer", 3))) // no run's
	if n, err := st.DeleteCalls(ctx, store.CallSelection{}); err != nil || n != 1 {
		t.Fatalf("a cache clear deleted %d calls (%v), want the 1 no run made", n, err)
	}
	check("after cache clear")
	must(t, st.PutCall(ctx, okCall("again", "answer", 3)))
	must(t, st.PutCall(ctx, okCall("solo", "answer", 3)))
	link(ids[0], "again", true)
	link(ids[1], "again", false)
	link(ids[0], "solo", false)
	w0, w1 := want[ids[0]], want[ids[1]]
	want[ids[0]], want[ids[1]] = [2]int{w0[0] + 2, w0[1] + 1}, [2]int{w1[0] + 1, w1[1]}
	check("after linking again")
	if _, err := st.DeleteRun(ctx, ids[0], false); err != nil {
		t.Fatal(err)
	}
	delete(want, ids[0])
	check("after deleting a run")
	// The deleted run's one call no other run made goes with the next
	// clear (every k… call and "again" are another run's too); the
	// others' totals stand.
	if n, err := st.DeleteCalls(ctx, store.CallSelection{}); err != nil || n != 1 {
		t.Fatalf("a cache clear after deleting a run deleted %d calls (%v), want the 1 only it made", n, err)
	}
	check("after a cache clear after deleting a run")
}

// testRunModelTotals: a run's per-model statistics (kept as links and calls
// change) equal what its links and their calls say, recomputed here, after
// links to calls stored before and after them, priced and unpriced calls,
// an error answer replaced by a success, a cache clear and a run's deletion.
func testRunModelTotals(t *testing.T, st Store) {
	ctx := context.Background()
	m := &totalsModel{calls: map[string]store.Call{}}
	put := func(c store.Call) {
		must(t, st.PutCall(ctx, c))
		m.calls[c.Key] = c
	}
	linkTo := func(run int64, key string, cached bool) {
		must(t, st.LinkRun(ctx, run, key, key, cached)) // a repeat changes nothing
		m.link(run, key, cached)
	}
	var runs []int64
	for i := range 3 {
		id, err := st.StartRun(ctx, store.Run{Name: fmt.Sprint("m", i), Benchmark: "any"})
		must(t, err)
		runs = append(runs, id)
	}
	check := func(when string) {
		t.Helper()
		checkCacheTotals(t, st, m, when)
		for _, id := range runs {
			checkRunTotals(t, st, m, id, when)
		}
	}
	price := func(v float64) *float64 { return &v }
	for i := range 30 {
		c := okCall(fmt.Sprint("c", i), "answer", int64(i))
		c.Model = []string{"m", "n", "o"}[i%3]
		if i%4 != 0 {
			c.Cost = price(0.001 * float64(i))
		}
		if i%7 == 0 { // linked before its call is stored
			linkTo(runs[i%3], c.Key, false)
		}
		if i%5 == 0 {
			c.Status, c.Response, c.Error = store.StatusError, nil, "boom"
		}
		put(c)
		for j, id := range runs {
			if (i+j)%2 == 0 {
				linkTo(id, c.Key, (i+j)%4 == 0)
			}
		}
	}
	check("after links and calls")
	// A failed call answered later: its error is replaced by the answer.
	fixed := okCall("c5", "now answered", 9)
	fixed.Model, fixed.Cost = "o", price(0.5)
	put(fixed)
	check("after an error is replaced")
	// A clear of one model deletes its calls that no run made; the runs'
	// totals stand.
	if _, err := st.DeleteCalls(ctx, store.CallSelection{Model: "n"}); err != nil {
		t.Fatal(err)
	}
	for k, c := range m.calls {
		if c.Model == "n" && !m.linked(k) {
			delete(m.calls, k)
		}
	}
	check("after a cache clear of one model")
	if _, err := st.DeleteRun(ctx, runs[1], false); err != nil {
		t.Fatal(err)
	}
	m.keepLinks(func(l totalsLink) bool { return l.run != runs[1] })
	check("after deleting a run")
}

// totalsModel is what testRunModelTotals stored: the calls and the runs'
// links to them, from which the totals the store reports are computed.
type totalsModel struct {
	calls map[string]store.Call
	links []totalsLink
}

// linked reports whether some run links the call of key.
func (m *totalsModel) linked(key string) bool {
	for _, l := range m.links {
		if l.key == key {
			return true
		}
	}
	return false
}

type totalsLink struct {
	run    int64
	key    string
	cached bool
}

// link records a run's link to a call (a repeat changes nothing).
func (m *totalsModel) link(run int64, key string, cached bool) {
	for _, l := range m.links {
		if l.run == run && l.key == key {
			return
		}
	}
	m.links = append(m.links, totalsLink{run, key, cached})
}

func (m *totalsModel) keepLinks(keep func(totalsLink) bool) {
	kept := m.links[:0]
	for _, l := range m.links {
		if keep(l) {
			kept = append(kept, l)
		}
	}
	m.links = kept
}

// runTotals are a run's per-model totals: its linked calls, the answered
// ones' tokens, its own spend (cache hits cost it nothing).
func (m *totalsModel) runTotals(run int64) []store.ModelStats {
	by := map[[2]string]*store.ModelStats{}
	var order [][2]string
	for _, l := range m.links {
		c, ok := m.calls[l.key]
		if l.run != run || !ok {
			continue
		}
		k := [2]string{c.Provider, c.Model}
		s := by[k]
		if s == nil {
			s = &store.ModelStats{Provider: c.Provider, Model: c.Model}
			by[k] = s
			order = append(order, k)
		}
		okc := c.Status == store.StatusOK
		countCall(s, c)
		switch {
		case l.cached:
			s.Hits++
		case c.Cost != nil:
			s.Cost += *c.Cost
		case okc:
			s.UnpricedCalls++
		}
	}
	var out []store.ModelStats
	for _, k := range order {
		out = append(out, *by[k])
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Provider < out[j].Provider || (out[i].Provider == out[j].Provider && out[i].Model < out[j].Model)
	})
	return out
}

// countCall counts a call: an answer with its tokens, or an error.
func countCall(s *store.ModelStats, c store.Call) {
	if c.Status == store.StatusOK {
		s.Calls++
		s.InputTokens += c.Usage.InputTokens
		s.OutputTokens += c.Usage.OutputTokens
	} else {
		s.Errors++
	}
}

// cacheTotals are the cache's own statistics: every stored call, and the
// cache hits of every run.
func (m *totalsModel) cacheTotals() map[[2]string]*store.ModelStats {
	out := map[[2]string]*store.ModelStats{}
	for _, c := range m.calls {
		k := [2]string{c.Provider, c.Model}
		s := out[k]
		if s == nil {
			s = &store.ModelStats{Provider: c.Provider, Model: c.Model}
			out[k] = s
		}
		countCall(s, c)
		if c.Status == store.StatusOK && c.Cost == nil {
			s.UnpricedCalls++
		}
		if c.Cost != nil {
			s.Cost += *c.Cost
		}
	}
	for _, l := range m.links {
		if c, ok := m.calls[l.key]; ok && l.cached {
			out[[2]string{c.Provider, c.Model}].Hits++
		}
	}
	return out
}

// checkCacheTotals compares the store's cache statistics with the model's.
func checkCacheTotals(t *testing.T, st Store, m *totalsModel, when string) {
	t.Helper()
	want := m.cacheTotals()
	stats, err := st.Stats(context.Background())
	must(t, err)
	if len(stats) != len(want) {
		t.Fatalf("%s: cache stats %+v, want %d models", when, stats, len(want))
	}
	for _, g := range stats {
		w := want[[2]string{g.Provider, g.Model}]
		if w == nil || math.Abs(g.Cost-w.Cost) > 1e-12 {
			t.Fatalf("%s: cache stats %+v, want %+v", when, g, w)
		}
		g.Cost = w.Cost
		if g != *w {
			t.Fatalf("%s: cache stats %+v, want %+v", when, g, *w)
		}
	}
}

// checkRunTotals compares a run's per-model totals with the model's.
func checkRunTotals(t *testing.T, st Store, m *totalsModel, id int64, when string) {
	t.Helper()
	got, err := st.RunModelStats(context.Background(), id)
	must(t, err)
	w := m.runTotals(id)
	if len(got) != len(w) {
		t.Fatalf("%s: run %d has stats %+v, want %+v", when, id, got, w)
	}
	for i := range w {
		g := got[i]
		if math.Abs(g.Cost-w[i].Cost) > 1e-12 {
			t.Fatalf("%s: run %d %s cost %v, want %v", when, id, w[i].Model, g.Cost, w[i].Cost)
		}
		g.Cost = w[i].Cost
		if g != w[i] {
			t.Fatalf("%s: run %d has %+v, want %+v", when, id, g, w[i])
		}
	}
}

func ptr(v float64) *float64 { return &v }

// deref is what p points at, or nil.
func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// testLevels: a saved concurrency level is read back by its scope only,
// a later save replaces it, and a level saved before since is not given.
func testLevels(t *testing.T, st Store) {
	ctx := context.Background()
	long := time.Now().Add(-time.Hour)
	if _, ok, err := st.Level(ctx, "openai:m", long); err != nil || ok {
		t.Fatalf("a level before any was saved: %v, %v", ok, err)
	}
	must(t, st.SaveLevel(ctx, "openai:m", 48))
	must(t, st.SaveLevel(ctx, "openai:m@http://127.0.0.1:8000", 7))
	must(t, st.SaveLevel(ctx, "openai:m", 115))
	for scope, want := range map[string]int{"openai:m": 115, "openai:m@http://127.0.0.1:8000": 7} {
		if n, ok, err := st.Level(ctx, scope, long); err != nil || !ok || n != want {
			t.Errorf("%s: %d, %v, %v; want %d", scope, n, ok, err, want)
		}
	}
	if _, ok, err := st.Level(ctx, "anthropic:m", long); err != nil || ok {
		t.Errorf("a scope never saved: %v, %v", ok, err)
	}
	if _, ok, err := st.Level(ctx, "openai:m", time.Now().Add(time.Hour)); err != nil || ok {
		t.Errorf("a level saved before since: %v, %v; want none", ok, err)
	}
}
