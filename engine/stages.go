package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fallacylab/fallacylab/llm"
)

// A stage makes one model call for a job, or passes it on to the next stage
// with something added, the way restic's backends wrap each other. The live
// path is
//
//	cache (doOnce) → retry → stop → limit → budget → send
//
// and the batch path shares the cache look-up (cachedResult) and the budget
// (reserve). Retries sit outside the limits because every attempt is a
// request that counts against the provider's concurrency, requests/min and
// tokens/min, and a 429 must reach the concurrency limit attempt by attempt;
// the budget sits inside the concurrency slot so only calls about to be sent
// hold a reservation, never jobs waiting in the queue; stop fails at once the
// jobs of an endpoint (or model) that already answered with a bad key (or
// "no such model").
type stage func(ctx, callCtx context.Context, l *lane, j Job) (llm.Response, *float64, error)

// send is the innermost stage: the provider's call, bounded by CallTimeout
// and priced. A call that times out is a retryable error.
func (e *Engine) send(_, callCtx context.Context, l *lane, j Job) (llm.Response, *float64, error) {
	cctx, cancel := context.WithTimeout(callCtx, e.opt.CallTimeout)
	resp, err := call(cctx, l.p, j)
	timedOut := cctx.Err() == context.DeadlineExceeded
	cancel()
	if err != nil {
		if timedOut && callCtx.Err() == nil && !llm.IsRetryable(err) {
			err = &llm.Error{Provider: j.Spec.Provider, Retryable: true, Message: fmt.Sprintf("no answer within %s", e.opt.CallTimeout), Err: err}
		}
		return llm.Response{}, nil, llm.RedactError(err, e.opt.Secrets...)
	}
	var cost *float64
	if c, ok := e.opt.Prices.Cost(j.Spec, resp.Usage); ok {
		cost = &c
	}
	return resp, cost, nil
}

// call sends the job to its provider: its scorer for a scoring request,
// its embeddings endpoint for an embeddings request, else Generate.
func call(ctx context.Context, p llm.Provider, j Job) (llm.Response, error) {
	if len(j.Request.Score) > 0 {
		sc, ok := p.(llm.Scorer)
		if !ok {
			return llm.Response{}, &llm.Error{Provider: j.Spec.Provider, Message: fmt.Sprintf("provider %s is not a scorer", j.Spec.Provider)}
		}
		start := time.Now()
		scores, err := sc.Score(ctx, j.Spec.Model, j.Request.Score)
		if err != nil {
			return llm.Response{}, err
		}
		return llm.Response{Scores: scores, Latency: time.Since(start)}, nil
	}
	if len(j.Request.Embed) == 0 {
		return p.Generate(ctx, j.Spec.Model, j.Request)
	}
	e, ok := p.(llm.Embedder)
	if !ok {
		return llm.Response{}, &llm.Error{Provider: j.Spec.Provider, Message: fmt.Sprintf("provider %s has no embeddings endpoint: use an OpenAI-compatible one", j.Spec.Provider)}
	}
	start := time.Now()
	vecs, usage, err := e.Embed(ctx, j.Spec.Model, j.Request.Embed)
	if err != nil {
		return llm.Response{}, err
	}
	return llm.Response{Vectors: vecs, Usage: usage, Latency: time.Since(start)}, nil
}

// budgeted books the call's worst-case cost (its prompt and every output
// token max_tokens allows) against the budget before next and settles it
// with the actual cost after: a call that could pass the budget, whatever
// its answer's length, is never sent (ErrBudget).
func (e *Engine) budgeted(next stage) stage {
	return func(ctx, callCtx context.Context, l *lane, j Job) (llm.Response, *float64, error) {
		in, out := l.est.worstCase(j)
		if j.Budget != "" && e.opt.SharedBudget != nil {
			return e.sharedBudget(ctx, callCtx, l, j, in, out, next)
		}
		reserved, err := e.reserve(j.Spec, in, out, 1, true)
		if err != nil {
			return llm.Response{}, nil, err
		}
		resp, cost, err := next(ctx, callCtx, l, j)
		e.settle(reserved, cost)
		return resp, cost, err
	}
}

// marked records in the store, just before next sends the request, that
// this process sends it (Claimer.MarkSent) with the most it may cost, so
// that a process killed with the call in flight leaves a trace its run's
// spend and budget count (a resumed run never spends the budget twice). A
// mark the store refuses (a full disk) sends nothing: the call would be
// paid for with no trace of it. A worker serves many runs: its marks name
// the job's (Job.Run).
func (e *Engine) marked(next stage) stage {
	return func(ctx, callCtx context.Context, l *lane, j Job) (llm.Response, *float64, error) {
		c := e.claims()
		if c == nil {
			return next(ctx, callCtx, l, j)
		}
		in, out := l.est.worstCase(j)
		usd, _ := e.opt.Prices.Cost(j.Spec, llm.Usage{InputTokens: in, OutputTokens: out})
		run := e.opt.RunID
		if j.Run != 0 {
			run = j.Run
		}
		if err := e.retryStore(callCtx, func() error { return c.MarkSent(callCtx, j.Key(), e.proc, run, usd) }); err != nil {
			if callCtx.Err() == nil {
				e.writeFailed(err)
			}
			return llm.Response{}, nil, fmt.Errorf("%w (%v): free its disk, or bring its database back, and run the same command again", ErrStoreFailed, err)
		}
		return next(ctx, callCtx, l, j)
	}
}

// budgetPatience is how long a call waits for others to settle the shared
// budget before it ends with ErrBudgetWait (unsent, to be made later).
const budgetPatience = time.Second

// sharedBudget books the call's estimated cost against the budget the job
// names, held in the store for every worker, and settles the actual cost.
func (e *Engine) sharedBudget(ctx, callCtx context.Context, l *lane, j Job, in, out int64, next stage) (llm.Response, *float64, error) {
	est, ok := e.opt.Prices.Cost(j.Spec, llm.Usage{InputTokens: in, OutputTokens: out})
	if !ok {
		return llm.Response{}, nil, fmt.Errorf("the run that queued this job has a budget, but this worker does not know the price of %s: add it under prices: in its config", j.Spec)
	}
	b := Booking{Scope: j.Budget, Holder: e.proc, Key: j.Key(), USD: est}
	booked, err := e.opt.SharedBudget.Reserve(ctx, b)
	for wait, waited := 20*time.Millisecond, time.Duration(0); errors.Is(err, ErrBudgetWait); wait = min(2*wait, 500*time.Millisecond) {
		// Others' calls hold the rest of the budget: wait for them to
		// settle rather than stop the run at a fraction of it.
		if waited >= budgetPatience {
			return llm.Response{}, nil, err
		}
		select {
		case <-ctx.Done():
			return llm.Response{}, nil, ctx.Err()
		case <-time.After(wait):
		}
		waited += wait
		booked, err = e.opt.SharedBudget.Reserve(ctx, b)
	}
	if err != nil {
		return llm.Response{}, nil, err
	}
	if !booked {
		return llm.Response{}, nil, ErrBudget
	}
	resp, cost, err := next(ctx, callCtx, l, j)
	actual := 0.0
	if cost != nil {
		actual = *cost
	}
	// A failed settle leaves the estimate booked (the budget stays on the
	// safe side); the answer, paid for, is kept either way.
	if serr := e.opt.SharedBudget.Settle(context.WithoutCancel(ctx), b, actual); serr != nil && e.opt.Log != nil {
		e.opt.Log.Warn("shared budget not settled", "job", j.ID, "err", serr)
	}
	return resp, cost, err
}

// limited holds one of the model's concurrency slots (adaptive: it grows
// while the provider keeps up and shrinks in proportion to its push-back),
// waits for the configured requests/min and tokens/min and for the gate
// (the provider's own limits, learned from its answers) before next, and
// learns from the answer: latency, push-back, rate-limit headers, tokens.
func (e *Engine) limited(next stage) stage {
	return func(ctx, callCtx context.Context, l *lane, j Job) (llm.Response, *float64, error) {
		m := l.model(j.Spec.Model)
		if err := m.sem.acquire(ctx); err != nil {
			return llm.Response{}, nil, err
		}
		estIn, estOut := l.est.estimateJob(j)
		if e.opt.Shared != nil && (l.lim.RPM > 0 || l.lim.TPM > 0) {
			// The limits hold across every worker of the store.
			if err := e.opt.Shared.Take(ctx, l.name+":"+j.Spec.Model, l.lim.RPM, l.lim.TPM, int(estIn+estOut)); err != nil {
				m.sem.release(unsent, 0)
				return llm.Response{}, nil, err
			}
		} else if m.rpm != nil {
			if err := m.rpm.Wait(ctx); err != nil {
				m.sem.release(unsent, 0)
				return llm.Response{}, nil, err
			}
		}
		if m.tpm != nil && e.opt.Shared == nil {
			if err := m.tpm.WaitN(ctx, min(int(estIn+estOut), m.tpm.Burst())); err != nil {
				m.sem.release(unsent, 0)
				return llm.Response{}, nil, err
			}
		}
		t, err := e.paced(ctx, l, m, j, estIn+estOut)
		if err != nil {
			m.sem.release(unsent, 0)
			return llm.Response{}, nil, err
		}
		sinkCtx, sink := llm.WithQuotaSink(callCtx)
		e.sent.Add(1)
		resp, cost, err := next(ctx, sinkCtx, l, j)
		quota, hasQuota := sink.Quota()
		m.gate.done(t, err, quota, hasQuota)
		switch {
		case err == nil:
			m.sem.release(answered, time.Since(t.sent))
		case isPushback(err):
			m.sem.release(pushback, 0)
		default:
			m.sem.release(failed, 0)
		}
		e.signal(m, l.name+":"+j.Spec.Model, isPushback(err))
		if err != nil {
			return resp, cost, err
		}
		l.est.observe(j.Request, resp.Usage)
		if m.tpm != nil {
			if extra := int(resp.Usage.Total() - (estIn + estOut)); extra > 0 {
				m.tpm.ReserveN(time.Now(), min(extra, m.tpm.Burst())) // pay the underestimate forward
			}
		}
		return resp, cost, nil
	}
}

// paced waits for the gate and, while the processes of the store hold a
// limit they learned together, for the shared bucket first: n calls in any
// window w, paced evenly (the bucket holds one call, so n−1 a window
// leaves room for it). A call that began to wait at the gate before the
// team held the limit goes back to the bucket.
func (e *Engine) paced(ctx context.Context, l *lane, m *modelLimits, j Job, tokens int64) (ticket, error) {
	for {
		n, w, debt := m.gate.pace()
		paced := n > 0 && e.opt.Shared != nil
		if paced {
			scope, rpm := "pace:"+l.name+":"+j.Spec.Model, float64(max(1, n-1))/w.Minutes()
			err := e.opt.Shared.Owe(ctx, scope, rpm, debt)
			if err == nil {
				err = e.opt.Shared.Take(ctx, scope, rpm, 0, 0)
			}
			if err != nil {
				return ticket{}, err
			}
		}
		t, err := m.gate.wait(ctx, tokens, paced || e.opt.Shared == nil)
		if !errors.Is(err, errPace) {
			return t, err
		}
	}
}

// attempts is what retrying a job came to.
type attempts struct {
	resp      llm.Response
	cost      *float64
	n         int  // attempts made
	abandoned bool // cancelled: no outcome to store
	err       error
}

// retried runs next until it answers, fails for good or MaxAttempts is
// reached, waiting with exponential backoff and full jitter (at least the
// server's Retry-After) between attempts. A push-back (429, 529, 503) is
// "not yet", not a failure: it does not use up MaxAttempts; up to
// maxPushbacks of them are retried within maxPushbackWait of the first
// attempt (a 30 % share of random 429s gives six in a row to one job in
// 1,400, which must not fail it).
func (e *Engine) retried(next stage) func(ctx, callCtx context.Context, l *lane, j Job) attempts {
	return func(ctx, callCtx context.Context, l *lane, j Job) attempts {
		start := time.Now()
		failures, pushbacks := 0, 0
		for n := 1; ; n++ {
			resp, cost, err := next(ctx, callCtx, l, j)
			pushed := isPushback(err)
			if pushed {
				pushbacks++
			} else if err != nil {
				failures++
			}
			switch {
			case err == nil:
				return attempts{resp: resp, cost: cost, n: n}
			case errors.Is(err, ErrBudget) || errors.Is(err, ErrBudgetWait):
				return attempts{n: n, err: err}
			case ctx.Err() != nil && !llm.IsRetryable(err) && errors.Is(err, context.Canceled):
				return attempts{n: n, abandoned: true}
			case !llm.IsRetryable(err):
				return attempts{n: n, err: err}
			case pushed && (pushbacks >= maxPushbacks || time.Since(start) > maxPushbackWait):
				return attempts{n: n, err: fmt.Errorf("gave up after %d attempts (%d pushed back by the provider over %s): %w", n, pushbacks, time.Since(start).Round(time.Second), err)}
			case !pushed && failures >= e.opt.MaxAttempts:
				return attempts{n: n, err: fmt.Errorf("gave up after %d attempts: %w", n, err)}
			}
			wait := e.backoff(min(n, max(failures, 1)+pushbacks/4), err)
			e.noteRetry(j, n, wait, err)
			if !sleep(ctx, wait) {
				return attempts{n: n, abandoned: true}
			}
		}
	}
}

// How long a job keeps retrying push-backs (429, 529, 503) from its
// provider, which say "not yet" rather than "no".
const (
	maxPushbacks    = 50
	maxPushbackWait = 15 * time.Minute
)

// reserve books the worst-case cost of a call, times factor (the batch
// discount, or 1), against the budget. Shared by the live and batch paths.
// A live call (wait) that does not fit while others' reservations are out
// waits for them to settle — most cost less than their worst case — and
// the budget stops the run only when it does not fit with nothing in
// flight; a batch job that does not fit is not sent.
func (e *Engine) reserve(s llm.Spec, in, out int64, factor float64, wait bool) (float64, error) {
	if e.opt.Budget <= 0 {
		return 0, nil
	}
	est, ok := e.opt.Prices.Cost(s, llm.Usage{InputTokens: in, OutputTokens: out})
	if !ok {
		return 0, fmt.Errorf("budget set but the price of %s is unknown: add it under prices: in the config", s)
	}
	est *= factor
	e.progMu.Lock()
	defer e.progMu.Unlock()
	for e.spent+est > e.opt.Budget || e.stopping.Load() {
		if !wait || e.inflight == 0 || e.stopping.Load() {
			e.stopping.Store(true)
			e.settled.Broadcast()
			return 0, ErrBudget
		}
		e.settled.Wait()
	}
	e.spent += est
	if wait {
		e.inflight++
	}
	return est, nil
}

// settle replaces a live call's reservation by the actual cost (nil:
// nothing was paid, or the price is unknown), in one step so no other call
// sees the gap, and wakes the calls waiting for room.
func (e *Engine) settle(reserved float64, cost *float64) {
	e.progMu.Lock()
	defer e.progMu.Unlock()
	e.spent -= reserved
	if cost != nil {
		e.spent += *cost
	}
	if reserved > 0 {
		e.inflight--
		e.settled.Broadcast()
	}
}

// stopped fails a job at once, without a call, once its endpoint answered
// a bad key or missing permission, or its model was not found there: every
// other call would get the same answer (and the user one message, not 50).
func (e *Engine) stopped(next stage) stage {
	return func(ctx, callCtx context.Context, l *lane, j Job) (llm.Response, *float64, error) {
		if err := l.stoppedBy(j.Spec.Model); err != nil {
			return llm.Response{}, nil, fmt.Errorf("not sent: %s already answered %w", j.Spec.Provider, err)
		}
		resp, cost, err := next(ctx, callCtx, l, j)
		if err != nil {
			l.stop(j.Spec.Model, err)
		}
		return resp, cost, err
	}
}

// stop records a permanent error that reaches beyond its job.
func (l *lane) stop(model string, err error) {
	scope := llm.FailScope(err)
	if scope == llm.ScopeNone {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if scope == llm.ScopeEndpoint && l.fatal == nil {
		l.fatal = err
	}
	if scope == llm.ScopeModel {
		if l.fatalModel == nil {
			l.fatalModel = map[string]error{}
		}
		if l.fatalModel[model] == nil {
			l.fatalModel[model] = err
		}
	}
}

// stoppedBy is the error that stops the model's jobs on this lane, or nil.
func (l *lane) stoppedBy(model string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fatal != nil {
		return l.fatal
	}
	return l.fatalModel[model]
}
