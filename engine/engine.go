package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/store"
	"golang.org/x/sync/singleflight"
	"golang.org/x/time/rate"
)

// Limits bound the traffic of each model on one provider (providers limit
// per model). Zero RPM or TPM means none set: the engine still learns the
// provider's own limits from its answers.
type Limits struct {
	// Concurrency is where each model's concurrency limit starts (default
	// 8; the CLI's is Adaptive's). MaxConcurrency, when larger, is how far
	// it may grow while the provider keeps up; otherwise Concurrency is
	// also the ceiling.
	Concurrency, MaxConcurrency int
	RPM                         float64
	TPM                         float64
}

// Adaptive returns the limits a model starts from when nothing sets its
// concurrency: 32 calls at once, growing up to 128 while the provider keeps
// up and cut when it pushes back or queues (see adaptive). Thirty-two, not
// 8 or 16, because slow start's ramp costs the run the slots it has not
// opened yet (slowStartGrowth), and each worker of a team ramps on its
// own: on the fake clock, 1,800 calls at 300 ms take one engine 2.29× as
// long as 600 do from 16 (the most three workers can gain over one
// process, before any queue's cost), 2.67× from 32; 1,200 calls of 500 ms
// mean latency reach 94.5–97.2 % of the ideal pool from 16 and 97.5–98.8 %
// from 32, over eight latency seeds; a hidden limit of 600 a minute
// refuses 1.9 % of the calls from either, over four.
func Adaptive() Limits { return Limits{Concurrency: 32, MaxConcurrency: 128} }

// Resolver returns the provider for a provider name.
type Resolver func(name string) (llm.Provider, error)

// Options configure an Engine. Store and Providers are required.
type Options struct {
	Store     Store
	Providers Resolver
	// Limits returns the limits of a provider; nil means 8 concurrent, no rate limits.
	Limits func(provider string) Limits
	Prices llm.Prices
	// Budget in USD stops issuing calls before spend would pass it (0: none).
	Budget float64
	// Signals pass push-back between the processes of one store (nil:
	// each process learns alone).
	Signals SharedSignals
	// SharedBudget holds the budgets jobs name (Job.Budget) across every
	// process on the store: a worker's jobs count against their run's.
	SharedBudget SharedBudget
	// RunID links every call to a run in the store (0: not linked).
	RunID int64
	// MaxAttempts per call, first try included (default 6).
	MaxAttempts int
	// BaseDelay and MaxDelay shape exponential backoff with full jitter
	// (defaults 500ms and 60s).
	BaseDelay, MaxDelay time.Duration
	// CallTimeout bounds one attempt (default 120s).
	CallTimeout time.Duration
	// Grace is how long in-flight calls may finish after cancellation (default 10s).
	Grace time.Duration
	// Workers fixes the number of jobs in flight across providers (default:
	// the sum of the providers' concurrency, growing as providers are first
	// used, and at least 64 so cache hits stream fast).
	Workers int
	// ReadyAhead keeps twice as many workers as the providers'
	// concurrency (with Workers 0): while every slot is busy, as many jobs again
	// make their cache look-ups and claims, so that a slot an answer frees
	// is taken by a job ready to send. For a plan fed a job at a time by a
	// queue (a team's worker, which takes as many jobs): otherwise each job
	// makes its look-ups in its slot's time, three round trips to a shared
	// store, and the slots freed by a wave of answers stand idle meanwhile.
	ReadyAhead bool
	// BatchSize caps the requests in one provider batch (default 2000).
	BatchSize int
	// BatchPoll is the first delay between batch polls; it doubles to 5 minutes
	// (default 10s).
	BatchPoll time.Duration
	// BatchDiscount multiplies the price of batch calls (default 0.5).
	BatchDiscount float64
	// Log, if set, receives one structured record per retry, per job that
	// fails for good, and per batch event. Records hold job ids, models,
	// attempts and error messages: never keys or prompts.
	Log *slog.Logger
	// Cache is how the cache is used: CacheUse (default), CacheRefresh (every
	// call is made again and its answer replaces the stored one) or CacheOnly
	// (answers come from the cache alone; a job it cannot answer fails and
	// nothing is sent).
	Cache CacheMode
	// Endpoint returns the identity of a provider's endpoint for cache keys
	// ("" for a built-in endpoint at its default address); nil: "".
	Endpoint func(provider string) string
	// Secrets are removed (with anything shaped like an API key) from every
	// provider error before it is stored, logged or handed back.
	Secrets []string
	// OnBatch, if set, hears about every provider batch: submitted, each
	// change of the provider's status while polling, and ingested.
	OnBatch func(BatchEvent)
	// Shared, if set, holds the configured requests/min and tokens/min
	// across all processes sharing the store instead of in this one.
	Shared SharedLimits
	// Levels, if set, keeps each model's adaptive concurrency from run to
	// run: a model starts at the level it last held (nil: at Limits').
	Levels Levels
	// Dispatch, if set, sends every job the cache cannot answer to workers
	// in other processes (see Dispatcher) instead of calling it here.
	Dispatch Dispatcher
	// Spill, if set, keeps the paid answers the store refused to the end
	// somewhere else (unwritten.go) and says where.
	Spill func([]store.Call) (where string, err error)
	// DeadOwner, if set, reports whether the owner of a call's claim (an
	// engine's Proc) is known to be dead though on another host (a worker
	// silent past its lease): its claim is taken over at once rather than
	// when its lease runs out, and the call counts as paid twice.
	DeadOwner func(ctx context.Context, owner string) bool
	// StoreOutage is how long a read or write of a shared store may fail
	// (a database restarting) before the job fails (RetryStore); 0: a
	// failure counts at once (a local file: a full disk).
	StoreOutage time.Duration
}

// BatchEvent is news about one provider batch.
type BatchEvent struct {
	Provider string
	ID       string
	Status   string // "submitted", the provider's own status word, or "ingested"
	Requests int    // requests in the batch
	Results  int    // with Status "ingested": results stored
	Waited   time.Duration
}

// Result is the outcome of one job.
type Result struct {
	Job      Job
	Key      string
	Response *llm.Response // nil on failure
	Err      error
	Cached   bool
	Attempts int
	Cost     *float64 // nil when the price is unknown
}

// Failure is a job that ended without an answer.
type Failure struct {
	JobID string
	Spec  llm.Spec
	Err   string
}

// ErrBudget marks jobs skipped because the budget would have been passed.
var ErrBudget = errors.New("budget reached: job not sent")

// Progress is a snapshot of a running plan.
type Progress struct {
	Total, Done, Cached, Failed, Skipped int
	Usage                                llm.Usage
	Cost                                 float64
	Unpriced                             int // answered calls with unknown price
	Retries                              int // attempts after the first, over all jobs
	RateLimited                          int // answers that were rate limits (429 and the like)
	Started                              time.Time
	// Requests is how many requests were sent (every attempt); InFlight
	// how many are now; Concurrency the sum of the models' present
	// concurrency limits, which adapt to the providers.
	Requests, InFlight, Concurrency int
}

// Summary is the final Progress plus the failures and how the run ended.
type Summary struct {
	Progress
	Elapsed       time.Duration
	Failures      []Failure
	Interrupted   bool
	BudgetStopped bool
	// StoreErr is the store's first failed write: from then on nothing
	// was sent (unwritten.go). Rewritten paid answers it refused were
	// written at the end after all; Unwritten ones (UnwrittenCost paid for
	// them) were still refused, and kept in SpilledTo (or lost: SpillErr).
	StoreErr      error
	Rewritten     int
	Unwritten     int
	UnwrittenCost float64
	SpilledTo     string
	SpillErr      error
}

// Engine runs plans. It is safe to run one plan at a time per Engine.
type Engine struct {
	opt   Options
	mu    sync.Mutex
	lanes map[string]*lane
	proc  string // this engine's name in the shared signals and call claims
	// repaid counts the calls made again after their claim's owner died.
	repaid atomic.Int64
	began  time.Time // when the Run in progress began

	prog   Progress
	progMu sync.Mutex
	spent  float64 // actual plus reserved cost, guarded by progMu
	// inflight counts the live calls holding a reservation, and settled
	// (on progMu) wakes the calls waiting for room in the budget.
	inflight int
	settled  *sync.Cond
	// storeErr is the store's first failed write and unwritten the paid
	// answers it refused, guarded by progMu (unwritten.go).
	storeErr  error
	unwritten []store.Call
	// spilled are the kept answers Spill took when they were refused, and
	// spilledTo where; guarded by spillMu (which also orders the spills).
	spillMu   sync.Mutex
	spilled   map[string]bool
	spilledTo string
	// batchReserved is the budget booked for each batch job not yet
	// ingested (by key), guarded by progMu.
	batchReserved map[string]float64
	stopping      atomic.Bool
	sent          atomic.Int64 // requests sent (attempts), for progress
	failures      []Failure
	flights       singleflight.Group // identical jobs in flight share one call
	pool          *pool              // workers of the Run in progress, guarded by mu
	// call is the live path below the cache: retry → stop → limit → budget → send.
	call func(ctx, callCtx context.Context, l *lane, j Job) attempts
	// lookups reads the jobs' cache look-ups together.
	lookups *lookups
}

// lane is one provider: its client, its token estimates, its permanent
// failures, and the limits of each of its models.
type lane struct {
	p   llm.Provider
	lim Limits
	est *estimator

	mu         sync.Mutex
	fatal      error            // stops every job of the lane (bad key)
	fatalModel map[string]error // stops one model's jobs (not found)
	models     map[string]*modelLimits
	grown      func()                 // the engine's pool follows the sum of the ceilings
	start      func(model string) int // where a model's concurrency starts (nil: lim.Concurrency)
	log        *slog.Logger
	name       string
	team       bool // its gates learn limits with the other processes of the store (Options.Signals and Shared)
}

// note returns how a model's gate tells the log what it learned.
func (l *lane) note(model string) func(string, ...any) {
	if l.log == nil {
		return nil
	}
	return func(msg string, args ...any) {
		l.log.Info(msg, append([]any{"model", l.name + ":" + model}, args...)...)
	}
}

// modelLimits bound one model's calls: its adaptive concurrency, the
// configured requests/min and tokens/min, and the gate that learns the
// provider's own limits.
type modelLimits struct {
	sem  *adaptive
	rpm  *rate.Limiter
	tpm  *rate.Limiter
	gate *gate
	sig  signals
}

// model returns the limits of one of the lane's models, made on first use.
func (l *lane) model(name string) *modelLimits {
	l.mu.Lock()
	m, ok := l.models[name]
	l.mu.Unlock()
	if ok {
		return m
	}
	start := l.lim.Concurrency
	if l.start != nil {
		start = l.start(name) // may read the store: not under l.mu
	}
	l.mu.Lock()
	m, ok = l.models[name]
	if !ok {
		m = &modelLimits{sem: newAdaptive(start, l.lim.MaxConcurrency), gate: newGate(l.note(name)), sig: signals{seen: -1}}
		m.gate.team = l.team
		if l.lim.RPM > 0 {
			m.rpm = rate.NewLimiter(rate.Limit(l.lim.RPM/60), 1)
		}
		if l.lim.TPM > 0 {
			m.tpm = rate.NewLimiter(rate.Limit(l.lim.TPM/60), max(1, int(l.lim.TPM/10)))
		}
		if l.models == nil {
			l.models = map[string]*modelLimits{}
		}
		l.models[name] = m
	}
	l.mu.Unlock()
	if note := l.note(name); !ok && start != l.lim.Concurrency && note != nil {
		note("concurrency starts at the level the model last held on this store", "level", start)
	}
	if !ok && l.grown != nil {
		l.grown()
	}
	return m
}

// ceilings is the sum of the lane's models' concurrency ceilings.
func (l *lane) ceilings() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, m := range l.models {
		n += m.sem.ceiling()
	}
	return n
}

// New builds an engine.
func New(opt Options) *Engine {
	if opt.MaxAttempts <= 0 {
		opt.MaxAttempts = 6
	}
	if opt.BaseDelay <= 0 {
		opt.BaseDelay = 500 * time.Millisecond
	}
	if opt.MaxDelay <= 0 {
		opt.MaxDelay = time.Minute
	}
	if opt.CallTimeout <= 0 {
		opt.CallTimeout = 2 * time.Minute
	}
	if opt.Grace <= 0 {
		opt.Grace = 10 * time.Second
	}
	if opt.BatchSize <= 0 {
		opt.BatchSize = 2000
	}
	if opt.BatchPoll <= 0 {
		opt.BatchPoll = 10 * time.Second
	}
	if opt.BatchDiscount <= 0 {
		opt.BatchDiscount = 0.5
	}
	if opt.Limits == nil {
		opt.Limits = func(string) Limits { return Limits{Concurrency: 8} }
	}
	e := &Engine{opt: opt, lanes: map[string]*lane{}, proc: newProcID()}
	e.settled = sync.NewCond(&e.progMu)
	e.lookups = &lookups{st: opt.Store}
	// stopped twice: before a job waits for a slot, and again once it has
	// one, for the jobs that were waiting when the first bad answer came.
	e.call = e.retried(e.stopped(e.limited(e.stopped(e.budgeted(e.marked(e.send))))))
	return e
}

func (e *Engine) lane(name string) (*lane, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if l, ok := e.lanes[name]; ok {
		return l, nil
	}
	p, err := e.opt.Providers(name)
	if err != nil {
		return nil, err
	}
	lim := e.opt.Limits(name)
	if lim.Concurrency <= 0 {
		lim.Concurrency = 8
	}
	lim.MaxConcurrency = max(lim.MaxConcurrency, lim.Concurrency)
	l := &lane{p: p, lim: lim, est: newEstimator(), grown: e.growPool, log: e.opt.Log, name: name, team: e.opt.Signals != nil && e.opt.Shared != nil}
	l.start = func(model string) int { return e.startLevel(l, model) }
	e.lanes[name] = l
	return l, nil
}

// growPool starts workers to cover the concurrency ceilings of every model
// opened so far.
func (e *Engine) growPool() {
	total := e.poolSize()
	e.mu.Lock()
	p := e.pool
	e.mu.Unlock()
	p.grow(total)
}

// Progress returns a snapshot of the plan being run.
func (e *Engine) Progress() Progress {
	e.progMu.Lock()
	p := e.prog
	e.progMu.Unlock()
	p.Requests = int(e.sent.Load())
	e.mu.Lock()
	for _, l := range e.lanes {
		l.mu.Lock()
		for _, m := range l.models {
			lim, in := m.sem.current()
			p.Concurrency += lim
			p.InFlight += in
		}
		l.mu.Unlock()
	}
	e.mu.Unlock()
	return p
}

// pool is the set of workers of one Run. It starts with enough workers to
// stream cache hits and grows whenever a provider lane opens, so that the
// workers always cover the sum of the providers' concurrency: --concurrency
// 100 really keeps 100 calls in flight.
type pool struct {
	mu    sync.Mutex
	n     int
	limit int // > 0: never more workers than this (Options.Workers)
	start func()
}

// grow starts workers until there are at least n.
func (p *pool) grow(n int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.limit > 0 {
		n = min(n, p.limit)
	}
	for p.n < n {
		p.n++
		p.start()
	}
}

// minWorkers is how many workers a Run starts with before any lane is open:
// enough to stream cache hits fast.
const minWorkers = 64

// Run executes the plan, calling onResult (serialised, may be nil) for every
// job. It returns when every job has a result, or after cancellation once the
// in-flight calls have finished or the grace period has passed.
func (e *Engine) Run(ctx context.Context, plan Plan, onResult func(Result)) (Summary, error) {
	e.reset(plan)
	callCtx, stopCalls := graceContext(ctx, e.opt.Grace)
	defer stopCalls()
	if c := e.claims(); c != nil && e.opt.Dispatch == nil {
		stop := make(chan struct{})
		defer close(stop)
		go e.renewClaims(c, stop)
	}
	if e.opt.Levels != nil {
		stop, saved := make(chan struct{}), make(chan struct{})
		go func() { e.keepLevels(stop); close(saved) }()
		defer func() { close(stop); <-saved }() // the run's last levels saved before it returns
	}

	jobs := make(chan Job)
	go func() {
		defer close(jobs)
		for j := range plan.Jobs {
			j = e.placed(j)
			select {
			case jobs <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	var resMu sync.Mutex
	emit := func(r Result) {
		e.account(r)
		if onResult != nil {
			resMu.Lock()
			onResult(r)
			resMu.Unlock()
		}
	}
	var wg sync.WaitGroup
	p := &pool{limit: e.opt.Workers, start: func() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if r, ok := e.do(ctx, callCtx, j); ok {
					emit(r)
				}
			}
		}()
	}}
	e.mu.Lock()
	e.pool = p // lanes opened from now on grow the pool
	e.mu.Unlock()
	if e.opt.Workers > 0 {
		p.grow(e.opt.Workers)
	} else {
		p.grow(max(minWorkers, e.poolSize()))
	}
	wg.Wait()
	e.mu.Lock()
	e.pool = nil
	e.mu.Unlock()
	sum := e.summary(ctx)
	e.flushUnwritten(&sum)
	return sum, nil
}

// poolSize is how many workers a Run keeps for the lanes open: their
// concurrency, twice it with ReadyAhead.
func (e *Engine) poolSize() int {
	n := e.laneConcurrency()
	if e.opt.ReadyAhead {
		n *= 2
	}
	return n
}

// laneConcurrency is the sum of the open models' concurrency ceilings.
func (e *Engine) laneConcurrency() int {
	e.mu.Lock()
	lanes := make([]*lane, 0, len(e.lanes))
	for _, l := range e.lanes {
		lanes = append(lanes, l)
	}
	e.mu.Unlock()
	n := 0
	for _, l := range lanes {
		n += l.ceilings()
	}
	return n
}

func (e *Engine) reset(plan Plan) {
	e.progMu.Lock()
	e.prog = Progress{Total: plan.Len, Started: time.Now()}
	e.began = e.prog.Started
	e.sent.Store(0)
	e.spent = 0
	e.batchReserved = nil
	e.failures = nil
	e.storeErr, e.unwritten = nil, nil
	e.spillMu.Lock()
	e.spilled, e.spilledTo = nil, ""
	e.spillMu.Unlock()
	e.progMu.Unlock()
	e.stopping.Store(false)
}

func (e *Engine) summary(ctx context.Context) Summary {
	e.progMu.Lock()
	defer e.progMu.Unlock()
	s := Summary{Progress: e.prog, Elapsed: time.Since(e.prog.Started), Interrupted: ctx.Err() != nil, BudgetStopped: e.stopping.Load(), StoreErr: e.storeErr}
	s.Failures = append(s.Failures, e.failures...)
	sort.Slice(s.Failures, func(i, k int) bool { return s.Failures[i].JobID < s.Failures[k].JobID })
	return s
}

// account adds a result to the progress counters.
func (e *Engine) account(r Result) {
	e.progMu.Lock()
	defer e.progMu.Unlock()
	e.prog.Done++
	switch {
	case r.Cached:
		e.prog.Cached++
	case errors.Is(r.Err, ErrBudget) || errors.Is(r.Err, ErrBudgetWait):
		e.prog.Skipped++
	case r.Err != nil:
		e.prog.Failed++
		if r.Cost != nil { // paid for, then lost: the spend is real
			e.prog.Cost += *r.Cost
		}
		e.failures = append(e.failures, Failure{JobID: r.Job.ID, Spec: r.Job.Spec, Err: r.Err.Error()})
	default:
		u := r.Response.Usage
		e.prog.Usage.InputTokens += u.InputTokens
		e.prog.Usage.OutputTokens += u.OutputTokens
		e.prog.Usage.ReasoningTokens += u.ReasoningTokens
		if r.Cost != nil {
			e.prog.Cost += *r.Cost
		} else {
			e.prog.Unpriced++
		}
	}
}

// noteRetry counts a retry (and a rate limit) and logs it.
func (e *Engine) noteRetry(j Job, attempt int, wait time.Duration, err error) {
	var le *llm.Error
	limited := errors.As(err, &le) && le.RateLimit
	e.progMu.Lock()
	e.prog.Retries++
	if limited {
		e.prog.RateLimited++
	}
	e.progMu.Unlock()
	if e.opt.Log != nil {
		e.opt.Log.Warn("retry", "job", j.ID, "model", j.Spec.String(), "attempt", attempt, "wait", wait.Round(time.Millisecond).String(),
			"rate_limited", limited, "err", err.Error())
	}
}

// graceContext returns a context for calls that ends Grace after parent ends.
func graceContext(parent context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	go func() {
		select {
		case <-parent.Done():
			t := time.NewTimer(grace)
			defer t.Stop()
			select {
			case <-t.C:
			case <-ctx.Done():
			}
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// do runs one job. Jobs with the same key that are in flight at the same
// time share one call: the others get its answer as a cache hit, so a plan
// with duplicate requests never pays twice even under concurrency.
func (e *Engine) do(ctx, callCtx context.Context, j Job) (Result, bool) {
	key := j.Key()
	type out struct {
		r  Result
		ok bool
	}
	leader := false
	v, _, _ := e.flights.Do(key, func() (any, error) {
		leader = true
		r, ok := e.doOnce(ctx, callCtx, j, key)
		return out{r, ok}, nil
	})
	o := v.(out)
	if !leader {
		// Another job made the call; this one is answered without paying.
		r := o.r
		r.Job = j
		if r.Err == nil && o.ok {
			r.Cached = true
		}
		return r, o.ok
	}
	return o.r, o.ok
}

// doOnce runs one job: cache, then calls with retries. ok is false when the
// job was abandoned because of cancellation (it has no result and is not stored).
func (e *Engine) doOnce(ctx, callCtx context.Context, j Job, key string) (Result, bool) {
	// A worker's job (Run set) was queued because its run found no answer
	// in the cache; where calls are claimed, the look after the claim
	// (answeredMeanwhile) finds one stored since, so a look before it
	// would be a second round trip to the store for every call.
	if j.Run == 0 || e.claims() == nil {
		r, hit := e.cachedResult(callCtx, j, key)
		if hit {
			return r, true
		}
	}
	res := Result{Job: j, Key: key}
	if ctx.Err() != nil {
		return res, false
	}
	if e.opt.Dispatch != nil {
		j.Refresh = j.Refresh || e.opt.Cache == CacheRefresh // the worker calls again too
		return e.dispatched(ctx, j, key)
	}
	if serr := e.storeFailed(); serr != nil {
		res.Err = fmt.Errorf("%w (%v): free its disk, or bring its database back, and run the same command again", ErrStoreFailed, serr)
		return res, true
	}
	l, err := e.lane(j.Spec.Provider)
	if err != nil {
		res.Err = err
		return res, true
	}
	// Claimed in the store before it is paid: another process running the
	// same plan waits for this answer instead of paying for it again.
	claims := e.claims()
	if claims != nil {
		r, hit, _, err := e.claim(ctx, callCtx, claims, j, key)
		switch {
		case hit:
			return r, true
		case err != nil && ctx.Err() != nil:
			return res, false
		case err != nil:
			e.writeFailed(err)
			res.Err = fmt.Errorf("claim the call in the store: %w", err)
			return res, true
		}
	}
	a := e.call(ctx, callCtx, l, j)
	if a.abandoned {
		e.release(claims, key)
		return res, false
	}
	res.Attempts = a.n
	if a.err == nil {
		res.Response, res.Cost = &a.resp, a.cost
		stored, cerr := e.commit(callCtx, res)
		if cerr != nil {
			// Paid for but not stored: a failed job, counted and
			// reported, so the run cannot end as a success; the answer
			// is kept to be written at the end, and nothing more is sent.
			e.writeFailed(cerr)
			e.keep(e.callOf(res))
			res.Response, res.Err = nil, fmt.Errorf("answer received but not stored (kept to be written when the run ends): %w", cerr)
			e.logFailure(j, a.n, res.Err)
		} else if stored.other != nil {
			// An answer stored first (by another process) stays the
			// cache's, and the records read their text from the cache:
			// this job goes on with it.
			res.Response = stored.other
		} else if stored.attempts > res.Attempts {
			// Processes that sent this call and never stored it (killed
			// with it in flight, or slow past their claim) had most
			// likely paid for it: the store counted their attempts and
			// cost in this answer's, so the spend is what was sent.
			res.Attempts, res.Cost = stored.attempts, stored.cost
			e.repaid.Add(1)
		}
		return res, true
	}
	res.Err = a.err
	if errors.Is(a.err, ErrBudget) || errors.Is(a.err, ErrBudgetWait) {
		e.release(claims, key)
		return res, true
	}
	e.logFailure(j, a.n, a.err)
	stored, cerr := e.commit(callCtx, res)
	switch {
	case cerr != nil:
		e.writeFailed(cerr)
		res.Err = fmt.Errorf("%w (and recording the failure: %v)", a.err, cerr)
	case stored.other != nil:
		// Another process has the answer this call failed to get.
		res.Err, res.Response, res.Cached = nil, stored.other, true
	}
	return res, true
}

// CacheMode is how a run uses the call cache.
type CacheMode string

// Cache modes.
const (
	CacheUse     CacheMode = ""        // answer from the cache, call and store the rest
	CacheRefresh CacheMode = "refresh" // call everything again; new answers replace stored ones
	CacheOnly    CacheMode = "only"    // answer from the cache alone; send nothing
)

// ErrNotCached fails a job that --cache only cannot answer.
var ErrNotCached = errors.New("not in the cache (--cache only sends nothing)")

// refreshes reports whether j is made again even when the cache holds its
// answer: --cache refresh, or a refreshing run's job a worker makes.
func (e *Engine) refreshes(j Job) bool { return e.opt.Cache == CacheRefresh || j.Refresh }

// cachedResult is the cache stage, shared by the live and batch paths: the
// stored answer for key, linked to the run. hit is false when there is none;
// a store error is a hit whose result carries the error.
func (e *Engine) cachedResult(ctx context.Context, j Job, key string) (r Result, hit bool) {
	r = Result{Job: j, Key: key}
	if e.refreshes(j) {
		return r, false
	}
	var c store.Call
	var ok bool
	err := e.retryStore(ctx, func() (err error) {
		c, ok, err = e.lookups.get(ctx, key)
		return err
	})
	if err != nil {
		r.Err = err
		return r, true
	}
	if !ok {
		if e.opt.Cache == CacheOnly {
			r.Err = ErrNotCached
			return r, true
		}
		return r, false
	}
	r.Response, r.Cached, r.Cost = c.Response, true, c.Cost
	if err := e.retryStore(ctx, func() error { return e.opt.Store.LinkRun(ctx, e.opt.RunID, key, j.ID, true) }); err != nil {
		e.writeFailed(err)
		r.Err = err
	}
	return r, true
}

// Proc is this engine's name in the shared signals and call claims.
func (e *Engine) Proc() string { return e.proc }

// Repaid is how many calls this engine made again after the process that
// held their claim died (each counted as paid twice).
func (e *Engine) Repaid() int64 { return e.repaid.Load() }

// Place sets the job's endpoint identity, which enters its cache key: the
// key under which this engine caches the job is Place(j).Key().
func (e *Engine) Place(j Job) Job { return e.placed(j) }

// placed sets the job's endpoint identity, which enters its cache key.
func (e *Engine) placed(j Job) Job {
	if e.opt.Endpoint != nil && j.Endpoint == "" {
		j.Endpoint = e.opt.Endpoint(j.Spec.Provider)
	}
	return j
}

func (e *Engine) logFailure(j Job, attempts int, err error) {
	if e.opt.Log != nil {
		e.opt.Log.Error("job failed", "job", j.ID, "model", j.Spec.String(), "attempts", attempts, "err", err.Error())
	}
}

// committed is what the store kept of a result: another process's
// answer, stored first (other), or this result's own, counting the attempts
// at the key that other processes sent and never stored (attempts, cost).
type committed struct {
	other    *llm.Response
	attempts int
	cost     *float64
}

// commit stores a call's outcome and links it to the run, in one write.
func (e *Engine) commit(ctx context.Context, r Result) (stored committed, err error) {
	err = e.retryStore(ctx, func() (err error) {
		stored, err = e.commitOnce(ctx, r)
		return err
	})
	return stored, err
}

// retryStore runs a store operation again while it fails, for up to
// Options.StoreOutage (once when it is 0).
func (e *Engine) retryStore(ctx context.Context, op func() error) error {
	if e.opt.StoreOutage <= 0 {
		return op()
	}
	return RetryStore(ctx, e.opt.StoreOutage, op)
}

// commitOnce is one try of commit.
func (e *Engine) commitOnce(ctx context.Context, r Result) (committed, error) {
	c := e.callOf(r)
	own := committed{attempts: c.Attempts, cost: c.Cost}
	cl, ok := e.opt.Store.(Claimer)
	if !ok {
		return own, e.opt.Store.PutCall(ctx, c) // and links it to the run: one write
	}
	c.Owner = e.proc // its sent marks are this process's
	stored, err := cl.PutAnswer(ctx, c)
	switch {
	case err != nil:
		return committed{}, err
	case stored.Status == store.StatusOK && stored.Response != nil && stored.Response != c.Response:
		return committed{other: stored.Response}, nil
	case stored.Response == c.Response:
		return committed{attempts: stored.Attempts, cost: stored.Cost}, nil
	}
	return own, nil
}

// callOf is the stored form of a call's outcome.
func (e *Engine) callOf(r Result) store.Call {
	c := store.Call{Key: r.Key, Namespace: r.Job.Namespace, Provider: r.Job.Spec.Provider, Model: r.Job.Spec.Model,
		Request: r.Job.Canonical(), Attempts: r.Attempts, Cost: r.Cost, Replace: e.refreshes(r.Job),
		RunID: e.opt.RunID, Job: r.Job.ID}
	if r.Err != nil {
		c.Status, c.Error = store.StatusError, r.Err.Error()
	} else {
		c.Status, c.Response, c.Usage, c.Latency = store.StatusOK, r.Response, r.Response.Usage, r.Response.Latency
	}
	return c
}

// backoff is exponential with full jitter, at least the server's Retry-After.
func (e *Engine) backoff(attempt int, err error) time.Duration {
	ceil := e.opt.BaseDelay << min(attempt-1, 20)
	if ceil > e.opt.MaxDelay || ceil <= 0 {
		ceil = e.opt.MaxDelay
	}
	d := time.Duration(rand.Int64N(int64(ceil) + 1))
	var le *llm.Error
	switch {
	case errors.As(err, &le) && le.RetryAfter > 0:
		d = le.RetryAfter + time.Duration(rand.Int64N(int64(le.RetryAfter)/10+1))
	case le != nil && le.Hinted:
		// "Retry-After: 0": the server says now; a little jitter keeps
		// the retries of one moment apart.
		d = time.Duration(rand.Int64N(int64(e.opt.BaseDelay)/10 + 1))
	}
	return d
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
