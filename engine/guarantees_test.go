package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/llm/llmtest"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/sqlite"
)

// A store whose inserts fail after the provider answered: every job is a
// failed job, counted, never dropped; after the first refusal nothing more
// is sent, and the answers paid for are kept to the end (Unwritten).
func TestFailedCommitIsAFailedJob(t *testing.T) {
	srv := llmtest.New(llmtest.Options{})
	defer srv.Close()
	st := refusingStore(t)
	opts := fastOpts(st, srv)
	opts.Prices = llm.Prices{"openai:m": {Input: 1, Output: 1}}
	var results, failed int
	sum, err := engine.New(opts).Run(context.Background(), plan(20, "openai"), func(r engine.Result) {
		results++
		if r.Err != nil {
			failed++
			notStored := strings.Contains(r.Err.Error(), "not stored")
			notSent := errors.Is(r.Err, engine.ErrStoreFailed)
			if !(notStored || notSent) || !strings.Contains(r.Err.Error(), "disk says no") {
				t.Errorf("error %q does not say the answer was not stored, or not sent", r.Err)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if results != 20 || failed != 20 || sum.Failed != 20 || len(sum.Failures) != 20 {
		t.Fatalf("results %d, failed %d, summary %+v", results, failed, sum.Progress)
	}
	if sum.Cost <= 0 {
		t.Fatalf("the calls were paid for but the summary says $%v", sum.Cost)
	}
	if paid := len(srv.Ledger()); sum.StoreErr == nil || sum.Unwritten != paid || paid == 0 {
		t.Fatalf("%d calls paid, %d kept unwritten (store error %v)", paid, sum.Unwritten, sum.StoreErr)
	}
}

// TestRefusedAnswersSpilledBeforeReported (#41 item 9): a paid answer the
// store refuses is in Options.Spill before its job's result is reported,
// not only when the plan ends: a process killed (kill -9) after the
// refusal has lost none of them.
func TestRefusedAnswersSpilledBeforeReported(t *testing.T) {
	srv := llmtest.New(llmtest.Options{})
	defer srv.Close()
	st := refusingStore(t)
	opts := fastOpts(st, srv)
	var mu sync.Mutex
	spilled := map[string]int{}
	opts.Spill = func(cs []store.Call) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range cs {
			spilled[c.Key]++
		}
		return "the test's spill", nil
	}
	notStored := 0
	sum, err := engine.New(opts).Run(context.Background(), plan(20, "openai"), func(r engine.Result) {
		if r.Err == nil || errors.Is(r.Err, engine.ErrStoreFailed) {
			return // not sent: nothing paid
		}
		notStored++
		mu.Lock()
		defer mu.Unlock()
		if spilled[r.Key] != 1 {
			t.Errorf("job %s reported with its paid answer spilled %d times", r.Job.ID, spilled[r.Key])
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if notStored == 0 || notStored != len(srv.Ledger()) || sum.Unwritten != notStored || sum.SpilledTo != "the test's spill" {
		t.Fatalf("%d paid, %d reported not stored, %d unwritten, spilled to %q", len(srv.Ledger()), notStored, sum.Unwritten, sum.SpilledTo)
	}
	if len(spilled) != notStored {
		t.Fatalf("%d answers spilled for %d paid (the end of the plan spilled them again?)", len(spilled), notStored)
	}
}

// refusingStore is a store that refuses every answer, as a full disk does
// ("disk says no").
func refusingStore(t *testing.T) *sqlite.Store {
	t.Helper()
	st := openStore(t)
	if _, err := st.DB().Exec(`CREATE TRIGGER no_calls BEFORE INSERT ON calls BEGIN SELECT RAISE(ABORT, 'disk says no'); END`); err != nil {
		t.Fatal(err)
	}
	return st
}

// --concurrency 100 keeps 100 calls in flight, not the 64 workers the
// engine starts with.
func TestConcurrencyAbove64(t *testing.T) {
	var inflight, peak atomic.Int64
	srv := llmtest.New(llmtest.Options{Respond: func(c llmtest.Call) llmtest.Reply {
		n := inflight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(150 * time.Millisecond)
		inflight.Add(-1)
		return llmtest.Reply{Text: "ok"}
	}})
	defer srv.Close()
	st := openStore(t)
	opts := fastOpts(st, srv)
	opts.CallTimeout = 10 * time.Second
	opts.Limits = func(string) engine.Limits { return engine.Limits{Concurrency: 100} }
	jobs := make([]engine.Job, 300)
	for i := range jobs {
		jobs[i] = engine.Job{ID: string(rune('a'+i%26)) + strings.Repeat("x", i), Namespace: "c", Spec: llm.Spec{Provider: "openai", Model: "m"},
			Request: llm.UserPrompt("", strings.Repeat("p", i+1))}
	}
	sum, err := engine.New(opts).Run(context.Background(), engine.SlicePlan("c", jobs), nil)
	if err != nil || sum.Done != 300 || sum.Failed != 0 {
		t.Fatalf("%v %+v", err, sum.Progress)
	}
	if p := peak.Load(); p != 100 {
		t.Fatalf("peak %d calls in flight, want 100", p)
	}
}

// Under --batch the budget is reserved before submission: jobs that would
// pass it are never sent, and the summary says the budget stopped the run.
func TestBudgetUnderBatch(t *testing.T) {
	srv := llmtest.New(llmtest.Options{})
	defer srv.Close()
	st := openStore(t)
	opts := fastOpts(st, srv)
	opts.BatchPoll = time.Millisecond
	// About 3 input tokens per job and, without max_tokens, up to
	// engine.WorstOutputTokens of output at $1 a token, discounted by half:
	// about $4,100 reserved a job, so $20,000 sends a few jobs.
	opts.Prices = llm.Prices{"openai:m": {Input: 1e6, Output: 1e6}, "openai:m2": {Input: 1e6, Output: 1e6}}
	opts.Budget = 20000
	sum, err := engine.New(opts).RunBatch(context.Background(), batchPlan(40, "openai"), nil)
	if err != nil {
		t.Fatal(err)
	}
	sent := len(srv.Ledger())
	if sent == 0 || sent >= 40 || !sum.BudgetStopped || sum.Skipped != 40-sent {
		t.Fatalf("%d of 40 sent, summary %+v, budget stopped %v", sent, sum.Progress, sum.BudgetStopped)
	}
	if sum.Cost > opts.Budget {
		t.Fatalf("spent $%.2f of a $%.2f budget", sum.Cost, opts.Budget)
	}
}

// A wrong key: the endpoint's first 401 stops its other jobs, which fail
// with the one message instead of each making its own 401 call.
func TestBadKeyStopsTheEndpoint(t *testing.T) {
	srv := llmtest.New(llmtest.Options{APIKey: "the-right-key"})
	defer srv.Close()
	st := openStore(t)
	opts := fastOpts(st, srv)
	opts.Limits = func(string) engine.Limits { return engine.Limits{Concurrency: 4} }
	sum, err := engine.New(opts).Run(context.Background(), plan(50, "openai"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Ledger()); n > 4 {
		t.Fatalf("%d calls with a bad key, want at most the 4 in flight at the first answer", n)
	}
	if sum.Failed != 50 {
		t.Fatalf("%d of 50 failed", sum.Failed)
	}
	stopped := 0
	for _, f := range sum.Failures {
		if !strings.Contains(f.Err, "401") {
			t.Fatalf("failure without the 401: %s", f.Err)
		}
		if strings.Contains(f.Err, "not sent") {
			stopped++
		}
	}
	if stopped < 46 {
		t.Fatalf("%d jobs stopped without a call", stopped)
	}
}

// A model that does not exist stops that model's jobs only.
func TestMissingModelStopsOnlyThatModel(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Fault: func(c llmtest.Call) llmtest.Fault {
		if c.Model == "gone" {
			return llmtest.NotFound
		}
		return llmtest.NoFault
	}})
	defer srv.Close()
	st := openStore(t)
	opts := fastOpts(st, srv)
	opts.Limits = func(string) engine.Limits { return engine.Limits{Concurrency: 1} }
	jobs := make([]engine.Job, 20)
	for i := range jobs {
		m := []string{"gone", "here"}[i%2]
		jobs[i] = engine.Job{ID: fmt.Sprint(i), Namespace: "nf", Spec: llm.Spec{Provider: "openai", Model: m}, Request: llm.UserPrompt("", fmt.Sprint("p", i))}
	}
	sum, err := engine.New(opts).Run(context.Background(), engine.SlicePlan("nf", jobs), nil)
	if err != nil {
		t.Fatal(err)
	}
	gone := 0
	for _, e := range srv.Ledger() {
		if e.Call.Model == "gone" {
			gone++
		}
	}
	if sum.Failed != 10 || sum.Done != 20 || gone != 1 {
		t.Fatalf("failed %d of 20 (want the 10 of the missing model), %d calls to it (want 1)", sum.Failed, gone)
	}
}

// A job of a built-in endpoint keeps the canonical bytes (so the cache keys)
// it always had; the endpoint identity enters only when there is one.
func TestEndpointInCacheKey(t *testing.T) {
	j := engine.Job{Namespace: "ask", Spec: llm.Spec{Provider: "openai", Model: "m"}, Request: llm.UserPrompt("", "hi")}
	if c := string(j.Canonical()); strings.Contains(c, "endpoint") || !strings.HasPrefix(c, `{"v":1,"namespace":"ask","provider":"openai","model":"m","request":`) {
		t.Fatalf("canonical of a built-in endpoint's job: %s", c)
	}
	k := j.Key()
	j.Endpoint = "http://other:8000/v1"
	if j.Key() == k || !strings.Contains(string(j.Canonical()), `"endpoint":"http://other:8000/v1"`) {
		t.Fatal("the endpoint does not enter the key")
	}
	e := engine.New(engine.Options{Endpoint: func(p string) string { return "id-of-" + p }})
	if got := e.Place(engine.Job{Spec: llm.Spec{Provider: "x"}}).Endpoint; got != "id-of-x" {
		t.Fatalf("Place: %q", got)
	}
}
