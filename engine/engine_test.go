package engine_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/fallacylab/fallacylab/store/sqlite"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/llm/anthropic"
	"github.com/fallacylab/fallacylab/llm/gemini"
	"github.com/fallacylab/fallacylab/llm/llmtest"
	"github.com/fallacylab/fallacylab/llm/openai"
	"github.com/fallacylab/fallacylab/store"
)

func openStore(t testing.TB) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(filepath.Join(t.TempDir(), "e.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// resolver sends "openai" and "anthropic" to the test server.
func resolver(srv *llmtest.Server) engine.Resolver {
	return func(name string) (llm.Provider, error) {
		switch name {
		case "openai":
			return openai.New(openai.Config{BaseURL: srv.OpenAIURL(), APIKey: "k", HTTPClient: srv.Client()}), nil
		case "anthropic":
			return anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "k", HTTPClient: srv.Client()}), nil
		case "gemini":
			return gemini.New(gemini.Config{BaseURL: srv.URL, APIKey: "k", HTTPClient: srv.Client()}), nil
		}
		return nil, fmt.Errorf("unknown provider %q", name)
	}
}

func plan(n int, provider string) engine.Plan {
	jobs := make([]engine.Job, n)
	for i := range jobs {
		jobs[i] = engine.Job{ID: fmt.Sprintf("job-%05d", i), Namespace: "test", Spec: llm.Spec{Provider: provider, Model: "m"},
			Request: llm.UserPrompt("", fmt.Sprintf("prompt %d", i/2)), Sample: i % 2}
	}
	return engine.SlicePlan("test", jobs)
}

func fastOpts(st *sqlite.Store, srv *llmtest.Server) engine.Options {
	return engine.Options{Store: st, Providers: resolver(srv), BaseDelay: time.Millisecond, MaxDelay: 20 * time.Millisecond,
		CallTimeout: 300 * time.Millisecond, Limits: func(string) engine.Limits { return engine.Limits{Concurrency: 16} }}
}

func collect(t *testing.T, e *engine.Engine, p engine.Plan) (engine.Summary, map[string]string) {
	t.Helper()
	var mu sync.Mutex
	texts := map[string]string{}
	sum, err := e.Run(context.Background(), p, func(r engine.Result) {
		mu.Lock()
		defer mu.Unlock()
		if r.Err == nil {
			texts[r.Key] = r.Response.Text
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return sum, texts
}

func TestRunCachesAndSamplesAreDistinct(t *testing.T) {
	srv := llmtest.New(llmtest.Options{})
	defer srv.Close()
	st := openStore(t)
	sum, texts := collect(t, engine.New(fastOpts(st, srv)), plan(200, "openai"))
	if sum.Done != 200 || sum.Failed != 0 || sum.Cached != 0 || len(texts) != 200 {
		t.Fatalf("first run: %+v, %d answers", sum.Progress, len(texts))
	}
	if n := len(srv.Ledger()); n != 200 {
		t.Fatalf("two samples of one prompt must be two calls: server saw %d", n)
	}
	sum, _ = collect(t, engine.New(fastOpts(st, srv)), plan(200, "openai"))
	if sum.Cached != 200 || len(srv.Ledger()) != 200 {
		t.Fatalf("re-run must be answered by the cache: %+v ledger %d", sum.Progress, len(srv.Ledger()))
	}
}

func TestChaosEqualsCleanRun(t *testing.T) {
	clean := llmtest.New(llmtest.Options{})
	defer clean.Close()
	_, want := collect(t, engine.New(fastOpts(openStore(t), clean)), plan(400, "openai"))

	chaos := llmtest.New(llmtest.Options{Seed: 7, RetryAfter: 5 * time.Millisecond,
		Rates: llmtest.Rates{RateLimit: 0.10, ServerError: 0.05, Hang: 0.02, Malformed: 0.01}})
	defer chaos.Close()
	st := openStore(t)
	opts := fastOpts(st, chaos)
	opts.MaxAttempts = 12
	sum, got := collect(t, engine.New(opts), plan(400, "openai"))
	if sum.Failed != 0 || len(got) != 400 {
		t.Fatalf("chaos run incomplete: %+v failures %v", sum.Progress, sum.Failures)
	}
	faults := map[llmtest.Fault]int{}
	for _, e := range chaos.Ledger() {
		faults[e.Fault]++
	}
	if faults[llmtest.RateLimited] == 0 || faults[llmtest.Hang] == 0 || faults[llmtest.Malformed] == 0 || faults[llmtest.ServerError] == 0 {
		t.Fatalf("chaos server injected too little: %v", faults)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("job %s: chaos %q, clean %q", k, got[k], v)
		}
	}
	if n, _ := st.CountCalls(context.Background(), store.StatusOK); n != 400 {
		t.Fatalf("stored %d answers, want 400", n)
	}
}

func TestPermanentErrorFailsFastOthersContinue(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Fault: func(c llmtest.Call) llmtest.Fault {
		if strings.HasSuffix(c.Prompt, " 3") {
			return llmtest.BadRequest
		}
		return llmtest.NoFault
	}})
	defer srv.Close()
	st := openStore(t)
	sum, texts := collect(t, engine.New(fastOpts(st, srv)), plan(20, "openai"))
	if sum.Failed != 2 || len(texts) != 18 || len(sum.Failures) != 2 {
		t.Fatalf("want 2 failures and 18 answers: %+v", sum)
	}
	if !strings.Contains(sum.Failures[0].Err, "400 from openai") {
		t.Fatalf("failure message: %s", sum.Failures[0].Err)
	}
	bad := 0
	for _, e := range srv.Ledger() {
		if e.Status == 400 {
			bad++
		}
	}
	if bad != 2 {
		t.Fatalf("permanent errors must not be retried: %d attempts", bad)
	}
	if n, _ := st.CountCalls(context.Background(), store.StatusError); n != 2 {
		t.Fatalf("failures should be recorded: %d", n)
	}
}

func TestRetriesAreBounded(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Fault: func(llmtest.Call) llmtest.Fault { return llmtest.ServerError }})
	defer srv.Close()
	opts := fastOpts(openStore(t), srv)
	opts.MaxAttempts = 3
	sum, _ := collect(t, engine.New(opts), plan(1, "openai"))
	if sum.Failed != 1 || len(srv.Ledger()) != 3 || !strings.Contains(sum.Failures[0].Err, "gave up after 3 attempts") {
		t.Fatalf("%+v ledger %d", sum, len(srv.Ledger()))
	}
}

func TestUnknownProvider(t *testing.T) {
	srv := llmtest.New(llmtest.Options{})
	defer srv.Close()
	sum, _ := collect(t, engine.New(fastOpts(openStore(t), srv)), plan(2, "nope"))
	if sum.Failed != 2 || !strings.Contains(sum.Failures[0].Err, `unknown provider "nope"`) {
		t.Fatalf("%+v", sum)
	}
}

func TestBudgetStopsBeforePassing(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Respond: func(llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Text: "x", InputTokens: 1000, OutputTokens: 1000}
	}})
	defer srv.Close()
	opts := fastOpts(openStore(t), srv)
	opts.Limits = func(string) engine.Limits { return engine.Limits{Concurrency: 1} }
	// $1 per 1M input and output tokens: each call costs $0.002.
	opts.Prices = llm.Prices{"openai:m": {Input: 1, Output: 1}}
	opts.Budget = 0.02
	p := plan(50, "openai")
	jobs := []engine.Job{}
	for j := range p.Jobs {
		j.Request.MaxTokens = 1000
		jobs = append(jobs, j)
	}
	sum, _ := collect(t, engine.New(opts), engine.SlicePlan("b", jobs))
	if !sum.BudgetStopped || sum.Skipped == 0 || sum.Cost > opts.Budget+1e-12 {
		t.Fatalf("budget not enforced: %+v", sum)
	}
	if len(srv.Ledger()) >= 50 {
		t.Fatalf("calls kept going: %d", len(srv.Ledger()))
	}
}

// TestBudgetHoldsForCJK (#41 item 8): prompts billed at a token a
// character (CJK text, three bytes a character: above the four bytes a
// token the estimate starts from) never take the spend past the budget,
// even with many calls in flight before the estimator learns the ratio:
// the reservation bounds a prompt by a token a byte.
func TestBudgetHoldsForCJK(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Latency: func(*rand.Rand) time.Duration { return 20 * time.Millisecond },
		Respond: func(c llmtest.Call) llmtest.Reply {
			return llmtest.Reply{Text: "好", InputTokens: utf8.RuneCountInString(c.Prompt), OutputTokens: 1}
		}})
	defer srv.Close()
	opts := fastOpts(openStore(t), srv)
	opts.CallTimeout = 10 * time.Second
	opts.Limits = func(string) engine.Limits { return engine.Limits{Concurrency: 16} }
	opts.Prices = llm.Prices{"openai:m": {Input: 1000, Output: 1000}} // $0.001 a token
	text := strings.Repeat("谬误检测", 750)                               // 3,000 characters, 9,000 bytes
	jobs := make([]engine.Job, 40)
	for i := range jobs {
		jobs[i] = engine.Job{ID: fmt.Sprint(i), Namespace: "cjk", Spec: llm.Spec{Provider: "openai", Model: "m"},
			Request: llm.Request{Messages: []llm.Message{{Role: "user", Content: fmt.Sprint(i, text)}}, MaxTokens: 1}}
	}
	opts.Budget = 30 // about ten calls of $3
	sum, _ := collect(t, engine.New(opts), engine.SlicePlan("cjk", jobs))
	billed := 0.0
	for _, e := range srv.Ledger() {
		if e.Answered() {
			billed += 0.001 * float64(utf8.RuneCountInString(e.Call.Prompt)+1)
		}
	}
	t.Logf("%d calls, $%.3f billed of $%.2f (the run counts $%.3f)", len(srv.Ledger()), billed, opts.Budget, sum.Cost)
	if billed > opts.Budget+1e-9 || sum.Cost > opts.Budget+1e-9 || sum.Done == 0 {
		t.Fatalf("$%.3f billed (the run counts $%.3f) on a budget of $%.2f", billed, sum.Cost, opts.Budget)
	}
}

func TestDryRunCallsNothing(t *testing.T) {
	srv := llmtest.New(llmtest.Options{})
	defer srv.Close()
	st := openStore(t)
	opts := fastOpts(st, srv)
	opts.Prices = llm.DefaultPrices()
	collect(t, engine.New(opts), plan(10, "openai"))
	before := len(srv.Ledger())
	p := plan(30, "openai")
	est, err := engine.New(opts).DryRun(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(srv.Ledger()) != before || est.Jobs != 30 || est.Cached != 10 || est.CostKnown || est.Models[0].InputTokens == 0 {
		t.Fatalf("dry run: %+v ledger %d→%d", est, before, len(srv.Ledger()))
	}
}

func uniquePlan(n int) engine.Plan {
	jobs := make([]engine.Job, n)
	for i := range jobs {
		jobs[i] = engine.Job{ID: fmt.Sprintf("job-%05d", i), Namespace: "test", Spec: llm.Spec{Provider: "openai", Model: "m"},
			Request: llm.UserPrompt("", fmt.Sprintf("unique %d", i))}
	}
	return engine.SlicePlan("unique", jobs)
}

func TestCancelLeavesStoreConsistentAndResumes(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Latency: func(*rand.Rand) time.Duration { return 2 * time.Millisecond }})
	defer srv.Close()
	st := openStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	var mu sync.Mutex
	sum, err := engine.New(fastOpts(st, srv)).Run(ctx, uniquePlan(1000), func(engine.Result) {
		mu.Lock()
		n++
		if n == 100 {
			cancel()
		}
		mu.Unlock()
	})
	if err != nil || !sum.Interrupted || sum.Done >= 1000 {
		t.Fatalf("cancel ignored: %+v %v", sum.Progress, err)
	}
	storedKeys, _ := st.OKKeys(context.Background())
	if len(storedKeys) < sum.Done {
		t.Fatalf("results reported but not stored: %d < %d", len(storedKeys), sum.Done)
	}
	storedPrompts := map[string]bool{}
	for j := range uniquePlan(1000).Jobs {
		if storedKeys[j.Key()] {
			storedPrompts[j.Request.Messages[0].Content] = true
		}
	}
	before := len(srv.Ledger())
	sum2, _ := collect(t, engine.New(fastOpts(st, srv)), uniquePlan(1000))
	if sum2.Failed != 0 || sum2.Cached != len(storedKeys) || sum2.Done != 1000 {
		t.Fatalf("resume: %+v (stored %d)", sum2.Progress, len(storedKeys))
	}
	for _, e := range srv.Ledger()[before:] {
		if storedPrompts[e.Call.Prompt] {
			t.Fatalf("%q was stored before the re-run but requested again", e.Call.Prompt)
		}
	}
}

var _ = errors.New

func TestDuplicateJobsInFlightShareOneCall(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Latency: func(*rand.Rand) time.Duration { return 20 * time.Millisecond }})
	defer srv.Close()
	jobs := make([]engine.Job, 50)
	for i := range jobs {
		jobs[i] = engine.Job{ID: fmt.Sprint(i), Namespace: "dup", Spec: llm.Spec{Provider: "openai", Model: "m"}, Request: llm.UserPrompt("", "same")}
	}
	sum, texts := collect(t, engine.New(fastOpts(openStore(t), srv)), engine.SlicePlan("dup", jobs))
	if len(srv.Ledger()) != 1 || sum.Done != 50 || sum.Cached != 49 || len(texts) != 1 {
		t.Fatalf("50 identical concurrent jobs: %d calls, %+v", len(srv.Ledger()), sum.Progress)
	}
}

// busyBudget is a shared budget booked by others for good: every Reserve
// says to wait.
type busyBudget struct{ asked atomic.Int64 }

func (b *busyBudget) Reserve(context.Context, engine.Booking) (bool, error) {
	b.asked.Add(1)
	return false, engine.ErrBudgetWait
}
func (b *busyBudget) Settle(context.Context, engine.Booking, float64) error { return nil }

// A job whose shared budget stays booked by others ends with
// ErrBudgetWait after a while, unsent and with nothing stored (#42): a
// worker hands it back, so that its place can make the calls — a dead
// worker's, made again — that the budget waits for. Before, it waited in
// its place for ever.
func TestSharedBudgetWaitEnds(t *testing.T) {
	srv := llmtest.New(llmtest.Options{})
	defer srv.Close()
	st := openStore(t)
	opts := fastOpts(st, srv)
	b := &busyBudget{}
	opts.SharedBudget, opts.Prices = b, llm.Prices{"openai:m": {Input: 1, Output: 1}}
	p := plan(4, "openai")
	var jobs []engine.Job
	for j := range p.Jobs {
		j.Budget = "run:1"
		jobs = append(jobs, j)
	}
	var errs []error
	var mu sync.Mutex
	sum, err := engine.New(opts).Run(context.Background(), engine.SlicePlan("b", jobs), func(r engine.Result) {
		mu.Lock()
		defer mu.Unlock()
		errs = append(errs, r.Err)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		if !errors.Is(e, engine.ErrBudgetWait) {
			t.Fatalf("a job the budget had no room for: %v", e)
		}
	}
	if len(errs) != 4 || sum.Failed != 0 || len(srv.Ledger()) != 0 || b.asked.Load() < 8 {
		t.Fatalf("%d results, %d failed, %d sent, asked %d times", len(errs), sum.Failed, len(srv.Ledger()), b.asked.Load())
	}
	if keys, err := st.OKKeys(context.Background()); err != nil || len(keys) != 0 {
		t.Fatalf("stored %d answers (%v)", len(keys), err)
	}
	var n int
	if err := st.DB().QueryRow(`SELECT COUNT(*) FROM calls`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d calls stored for jobs never sent (%v)", n, err)
	}
}
