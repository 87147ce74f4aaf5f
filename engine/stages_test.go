package engine

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/llm"
	"golang.org/x/time/rate"
)

// Each stage of the live path, alone, over a scripted next stage.

func testLane() *lane {
	return &lane{lim: Limits{Concurrency: 4, MaxConcurrency: 4}, est: newEstimator()}
}

func testJob() Job {
	return Job{ID: "j", Spec: llm.Spec{Provider: "p", Model: "m"}, Request: llm.UserPrompt("", "hello there")}
}

func cost(v float64) *float64 { return &v }

func TestRetriedStage(t *testing.T) {
	e := New(Options{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond})
	retryable := &llm.Error{Retryable: true, Message: "503"}
	for _, c := range []struct {
		name      string
		errs      []error // per attempt; nil answers
		attempts  int
		fails     bool
		abandoned bool
	}{
		{"answers at once", []error{nil}, 1, false, false},
		{"retryable then answer", []error{retryable, retryable, nil}, 3, false, false},
		{"gives up at MaxAttempts", []error{retryable, retryable, retryable, retryable, nil}, 4, true, false},
		{"not retryable", []error{&llm.Error{Message: "400"}}, 1, true, false},
		{"budget is final", []error{ErrBudget}, 1, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := 0
			next := func(ctx, callCtx context.Context, l *lane, j Job) (llm.Response, *float64, error) {
				err := c.errs[n]
				n++
				return llm.Response{Text: "ok"}, nil, err
			}
			a := e.retried(next)(context.Background(), context.Background(), testLane(), testJob())
			if a.n != c.attempts || (a.err != nil) != c.fails || a.abandoned != c.abandoned || n != c.attempts {
				t.Fatalf("attempts %d (called %d), err %v, abandoned %v", a.n, n, a.err, a.abandoned)
			}
		})
	}
	// Cancelled while waiting to retry: abandoned, nothing to store.
	ctx, cancel := context.WithCancel(context.Background())
	e = New(Options{MaxAttempts: 10, BaseDelay: time.Hour, MaxDelay: time.Hour})
	next := func(ctx, callCtx context.Context, l *lane, j Job) (llm.Response, *float64, error) {
		cancel()
		return llm.Response{}, nil, &llm.Error{Retryable: true, RetryAfter: time.Hour}
	}
	if a := e.retried(next)(ctx, context.Background(), testLane(), testJob()); !a.abandoned {
		t.Fatalf("cancelled during backoff: %+v", a)
	}
}

func TestLimitedStage(t *testing.T) {
	e := New(Options{})
	l := testLane()
	var inflight, peak atomic.Int64
	next := func(ctx, callCtx context.Context, l *lane, j Job) (llm.Response, *float64, error) {
		n := inflight.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(5 * time.Millisecond)
		inflight.Add(-1)
		return llm.Response{Usage: llm.Usage{InputTokens: 40, OutputTokens: 10}}, nil, nil
	}
	call := e.limited(next)
	done := make(chan struct{})
	for range 20 {
		go func() {
			call(context.Background(), context.Background(), l, testJob())
			done <- struct{}{}
		}()
	}
	for range 20 {
		<-done
	}
	if p := peak.Load(); p != 4 {
		t.Fatalf("peak %d calls in flight through a limit of 4", p)
	}
	// A window of answers all pushed back cuts the concurrency by half;
	// the answers' usage taught the estimator.
	limited := func(ctx, callCtx context.Context, l *lane, j Job) (llm.Response, *float64, error) {
		return llm.Response{}, nil, &llm.Error{Retryable: true, RateLimit: true, Hinted: true}
	}
	if in, _ := l.est.estimate(testJob().Request); in < 20 {
		t.Fatalf("input estimate %d did not learn from 40-token answers", in)
	}
	l = testLane()
	for range 8 {
		e.limited(limited)(context.Background(), context.Background(), l, testJob())
	}
	if got, _ := l.model("m").sem.current(); got != 2 {
		t.Fatalf("limit after a window of 429s: %d, want 2", got)
	}
	// Requests per minute: the second call waits for the bucket.
	l = testLane()
	l.model("m").rpm = rate.NewLimiter(rate.Limit(20), 1) // one request per 50 ms
	start := time.Now()
	for range 3 {
		e.limited(next)(context.Background(), context.Background(), l, testJob())
	}
	if d := time.Since(start); d < 90*time.Millisecond {
		t.Fatalf("3 calls at 20/s took %s", d)
	}
}

func TestBudgetedStage(t *testing.T) {
	prices := llm.Prices{"p:m": {Input: 1e6, Output: 1e6}} // $1 a token
	e := New(Options{Budget: 1000, Prices: prices})
	sent := 0
	next := func(ctx, callCtx context.Context, l *lane, j Job) (llm.Response, *float64, error) {
		sent++
		return llm.Response{}, cost(300), nil
	}
	call := e.budgeted(next)
	job := testJob()
	job.Request.MaxTokens = 400
	var err error
	for err == nil {
		_, _, err = call(context.Background(), context.Background(), testLane(), job)
	}
	// Each call is reserved at its worst case: its prompt and all 400
	// output tokens it may write.
	in, out := testLane().est.worstCase(job)
	est := float64(in + out) // $1 a token
	if out != 400 {
		t.Fatalf("worst-case output %d, want max_tokens", out)
	}
	want := 0
	for spent := 0.0; spent+est <= 1000; spent += 300 {
		want++
	}
	if !errors.Is(err, ErrBudget) || sent != want || want == 0 || e.spent != float64(300*want) {
		t.Fatalf("sent %d at $300 each under $1000 (up to $%.0f each), want %d: spent %v, err %v", sent, est, want, e.spent, err)
	}
	// A failed call gives its reservation back.
	e = New(Options{Budget: 1000, Prices: prices})
	failing := func(ctx, callCtx context.Context, l *lane, j Job) (llm.Response, *float64, error) {
		return llm.Response{}, nil, errors.New("boom")
	}
	e.budgeted(failing)(context.Background(), context.Background(), testLane(), testJob())
	if e.spent != 0 {
		t.Fatalf("a failed call keeps $%v booked", e.spent)
	}
	// An unknown price under a budget is an error, not a free call.
	e = New(Options{Budget: 1000})
	if _, _, err := e.budgeted(next)(context.Background(), context.Background(), testLane(), testJob()); err == nil || errors.Is(err, ErrBudget) {
		t.Fatalf("unknown price: %v", err)
	}
}

// hangingProvider never answers before its context ends.
type hangingProvider struct{}

func (hangingProvider) Name() string { return "p" }
func (hangingProvider) Generate(ctx context.Context, _ string, _ llm.Request) (llm.Response, error) {
	<-ctx.Done()
	return llm.Response{}, ctx.Err()
}

func TestSendStage(t *testing.T) {
	e := New(Options{CallTimeout: 20 * time.Millisecond, Prices: llm.Prices{"p:m": {Input: 1, Output: 1}}})
	l := testLane()
	l.p = hangingProvider{}
	_, _, err := e.send(context.Background(), context.Background(), l, testJob())
	if !llm.IsRetryable(err) {
		t.Fatalf("a call with no answer within the timeout: %v, want a retryable error", err)
	}
	l.p = Offline{Provider: "p"}
	if _, _, err := e.send(context.Background(), context.Background(), l, testJob()); !errors.Is(err, ErrOffline) {
		t.Fatalf("offline provider: %v", err)
	}
}

// Push-back other processes got counts in the window as if this one's:
// 32 answers here and 8 refusals elsewhere are a 20 % share, which cuts a
// limit of 40 to 36; others' answers are not counted.
func TestAdaptiveAbsorbsOthersPushback(t *testing.T) {
	a := newAdaptive(40, 40)
	for range 32 {
		if err := a.acquire(context.Background()); err != nil {
			t.Fatal(err)
		}
		a.release(answered, 10*time.Millisecond)
	}
	a.absorb(8)
	if l, _ := a.current(); l != 36 {
		t.Fatalf("limit %d after 8 of 40 pushed back, want 36", l)
	}
}
