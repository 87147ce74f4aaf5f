package cli

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fallacylab/fallacylab/backend"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/store/postgres"
)

// workerLoop is a worker's work: a River client working the queues this
// machine can serve, every job it takes made through one engine run (so
// that its limits, push-back and budget hold across every queue), and a
// heartbeat that keeps its jobs its own and returns a dead worker's to
// the queue.
type workerLoop struct {
	g          *Global
	pg         backend.Jobs
	s          *session
	label      string
	name       string
	eng        *engine.Engine
	serves     servable
	prices     llm.Prices
	take       int
	lease      time.Duration
	untilEmpty bool
	say        func(string, ...any)

	done, failed atomic.Int64
	handed       atomic.Int64 // jobs handed back unmade as the worker stopped
	wk           *postgres.Worker
	feed         chan engine.Job
	ended        chan struct{} // the engine run is over
	seq          atomic.Int64

	mu      sync.Mutex
	waits   map[string]chan engine.Result // by the job's token (its Meta)
	decided map[string]bool               // the queues served or skipped
	infos   map[string]postgres.QueueInfo // the queues served, by name
	served  []string
	away    time.Duration   // the current wait for the store (0: it answers)
	sawWork bool            // a job or a run to wait for was seen (--until-empty)
	older   map[string]bool // the workers of an older protocol said (sayOlder)
	runs    map[int64]bool  // the runs whose jobs this worker took (sayRun)
}

// workerStoreOutage is how long a worker's job waits for a store that does
// not answer (a database restarting) before the worker gives up: it hands
// its jobs back and ends with an error, its paid answers spilled.
const workerStoreOutage = 5 * time.Minute

// storeAway is the longest wait between two tries of a store that does
// not answer.
const storeAway = 30 * time.Second

// stopped is a job's end when the worker stopped before its answer was
// stored (a signal ended its engine run, whose calls in flight end after
// the engine's grace): it goes back to its queue for a worker to make
// later, neither failed nor an attempt spent.
func (w *workerLoop) stopped() error {
	w.handed.Add(1)
	return postgres.HandBack(time.Second)
}

// unreachable notes that the store did not answer, waits before it is
// tried again (1 s, doubling, at most storeAway) and says so: a database
// restarting pauses the worker, it does not end it. It returns false once
// ctx is done.
func (w *workerLoop) unreachable(ctx context.Context, what string, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	w.away = min(max(2*w.away, time.Second), storeAway)
	w.say("the store %s (%s: %v): trying again in %s", postgres.WhyWait(err), what, llm.Redact(err.Error(), secrets(w.s.cfg)...), w.away)
	sleepCtx(ctx, w.away)
	return ctx.Err() == nil
}

// answers notes that the store answered.
func (w *workerLoop) answers() {
	if w.away > 0 {
		w.say("the store answers again")
		w.away = 0
	}
}

func (w *workerLoop) run(ctx context.Context) error {
	w.waits, w.decided, w.infos, w.runs = map[string]chan engine.Result{}, map[string]bool{}, map[string]postgres.QueueInfo{}, map[int64]bool{}
	w.feed, w.ended = make(chan engine.Job), make(chan struct{})
	wk, err := w.pg.NewWorker(postgres.WorkerConfig{ID: w.name, Label: w.label, Proc: w.eng.Proc(), Lease: w.lease, MaxWorkers: w.take, Retention: queueRetention, Work: w.work})
	if err != nil {
		return err
	}
	w.wk = wk
	engineDone := make(chan struct{})
	go func() {
		defer close(engineDone)
		defer close(w.ended)
		w.eng.Run(ctx, engine.Plan{Name: "worker", Jobs: func(yield func(engine.Job) bool) {
			// The plan ends with the worker's context too: the engine
			// waits for its plan before it ends, and the jobs being
			// worked wait for the engine's end to hand themselves back.
			for {
				select {
				case j, ok := <-w.feed:
					if !ok || !yield(j) {
						return
					}
				case <-ctx.Done():
					return
				}
			}
		}}, w.result)
	}()
	defer func() {
		close(w.feed)
		<-engineDone
		leave, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		w.wk.Leave(leave)
		cancel()
	}()
	for {
		err := w.discover(ctx)
		if err == nil {
			// Its row before its first job: a worker killed at once is
			// found silent, and its jobs rescued, like any other.
			err = w.heartbeat(ctx)
		}
		if err == nil {
			err = w.wk.Start(context.WithoutCancel(ctx))
		}
		if err == nil {
			break
		}
		if !w.unreachable(ctx, "start", err) {
			return nil
		}
	}
	w.answers()
	defer func() {
		// Stop taking jobs, and let those being made finish (Ctrl-C ends
		// the engine's calls after its grace).
		w.wk.Stop(context.WithoutCancel(ctx))
	}()
	beat, started := w.beatEvery(), time.Now()
	var said [2]int64
	var saidAt time.Time
	for ctx.Err() == nil {
		if err := w.eng.StoreFailed(); err != nil {
			return fmt.Errorf("the store failed for %s (%w): this worker stops; its jobs go to other workers", workerStoreOutage, err)
		}
		if beat <= 0 {
			beat = w.beatEvery()
			if err := w.heartbeat(ctx); err != nil {
				if !w.unreachable(ctx, "heartbeat", err) {
					break
				}
				continue
			}
			w.answers()
			if d, f := w.done.Load(), w.failed.Load(); !w.g.Quiet && (d != said[0] || f != said[1]) &&
				(time.Since(saidAt) >= workerSayEvery || w.wk.Working() == 0) {
				w.say("%s done, %d failed", plural(int(d), "job", "jobs"), f)
				said, saidAt = [2]int64{d, f}, time.Now()
			}
		}
		if err := w.discover(ctx); err != nil {
			if !w.unreachable(ctx, "list the queues", err) {
				break
			}
			continue
		}
		if w.untilEmpty {
			empty, err := w.empty(ctx, started)
			if err != nil {
				if !w.unreachable(ctx, "queue", err) {
					break
				}
				continue
			}
			if empty {
				break
			}
		}
		step := 100 * time.Millisecond
		sleepCtx(ctx, step)
		beat -= step
	}
	return nil
}

// workerSayEvery is how often a busy worker says how many jobs it has
// done (and, at once, when it has none in hand): at each heartbeat it
// said so every 2 s, thirty lines a minute.
const workerSayEvery = 10 * time.Second

// beatEvery is how often the worker beats: five times in each --lease, and no more often than every 200 ms.
func (w *workerLoop) beatEvery() time.Duration { return max(w.lease/5, 200*time.Millisecond) }

// heartbeat marks this worker (and so its jobs) alive and rescues the jobs of
// workers silent for longer than --lease.
func (w *workerLoop) heartbeat(ctx context.Context) error {
	w.mu.Lock()
	serves := strings.Join(w.served, " ")
	w.mu.Unlock()
	if err := w.wk.Beat(ctx, serves); err != nil {
		return err
	}
	n, err := w.wk.Rescue(ctx, w.lease)
	if err != nil {
		return err
	}
	if n > 0 && !w.g.Quiet {
		w.say("returned %s of a worker silent for %s to the queue", plural(int(n), "job", "jobs"), w.lease)
	}
	return w.sayOlder(ctx)
}

// sayOlder says, once for each, which workers alive keep their jobs by an
// older fallacylab's protocol: they return this one's long jobs to the
// queue (where they are made again, and no call is paid twice).
func (w *workerLoop) sayOlder(ctx context.Context) error {
	older, err := w.wk.OlderWorkers(ctx)
	if err != nil {
		return err
	}
	for _, label := range older {
		if w.older[label] {
			continue
		}
		if w.older == nil {
			w.older = map[string]bool{}
		}
		w.older[label] = true
		w.say("worker %s runs an older fallacylab: it returns to the queue this worker's jobs that run longer than its --lease, "+
			"which are then made again (no call is paid twice, the time is lost); run one fallacylab version in a team", label)
	}
	return nil
}

// discover serves the queues runs have opened that this worker can serve,
// and says why it skips the others.
func (w *workerLoop) discover(ctx context.Context) error {
	qs, err := w.pg.Queues(ctx)
	if err != nil {
		return err
	}
	added := false
	for _, q := range qs {
		w.mu.Lock()
		known := w.decided[q.Name]
		w.mu.Unlock()
		if known {
			continue
		}
		pm := q.Provider + ":" + q.Model
		if why := w.cannotServe(q); why != "" {
			w.mu.Lock()
			w.decided[q.Name] = true
			w.mu.Unlock()
			w.say("skips queue %s (%s): %s", q.Name, pm, why)
			continue
		}
		if err := w.wk.Serve(q.Name); err != nil {
			return fmt.Errorf("serve queue %s: %w", q.Name, err)
		}
		w.mu.Lock()
		w.decided[q.Name], w.served, w.infos[q.Name] = true, append(w.served, q.Name), q
		w.mu.Unlock()
		added = true
		if !w.g.Quiet {
			w.say("serves queue %s (%s)", q.Name, pm)
		}
	}
	if !added {
		return nil
	}
	// Said in the workers table at once, not at the next heartbeat:
	// `fallacylab queue` would say meanwhile that no worker serves them.
	w.mu.Lock()
	serves := strings.Join(w.served, " ")
	w.mu.Unlock()
	return w.wk.Beat(ctx, serves)
}

// cannotServe is why this worker cannot make a queue's calls ("" if it
// can): no key for its provider, another endpoint, or no price for a
// budgeted run's model.
func (w *workerLoop) cannotServe(q postgres.QueueInfo) string {
	if !slices.Contains(w.serves.Providers, q.Provider) {
		for _, why := range w.serves.why {
			if rest, ok := strings.CutPrefix(why, q.Provider+": "); ok {
				return rest // the queue's line names the provider
			}
		}
		return fmt.Sprintf("this worker's config has no provider %s", q.Provider)
	}
	j := engine.Job{}
	j.Spec.Provider, j.Spec.Model = q.Provider, q.Model
	if w.eng.Place(j).Endpoint != q.Endpoint {
		// This machine names the endpoint otherwise: its answers would be
		// stored under other keys.
		return fmt.Sprintf("it reaches %s at another endpoint than the run's machine (check base_url / cache_as in its config)", q.Provider)
	}
	if _, priced := w.prices.Lookup(j.Spec); q.Budgeted && !priced {
		return "the run holds a budget and this worker's config has no price for the model (prices: in its config)"
	}
	return ""
}

// skip stops serving a queue whose job this worker found it cannot make.
func (w *workerLoop) skip(queue, why string) {
	w.mu.Lock()
	i := slices.Index(w.served, queue)
	if i >= 0 {
		w.served = slices.Delete(w.served, i, i+1)
	}
	w.mu.Unlock()
	if i < 0 {
		return
	}
	w.say("skips queue %s: %s", queue, why)
	go w.wk.Unserve(context.Background(), queue) // it waits for the queue's jobs being made: not from within one
}

// skipProvider stops serving queue and every other of its provider at its
// endpoint:
// the provider refused this worker's key (401, 403), so every call of
// it from here would be refused too; the jobs go to workers whose key it
// takes.
func (w *workerLoop) skipProvider(queue, why string) {
	w.mu.Lock()
	provider, endpoint := w.infos[queue].Provider, w.infos[queue].Endpoint
	queues := []string{queue}
	for _, name := range w.served {
		if q := w.infos[name]; name != queue && q.Provider == provider && q.Endpoint == endpoint {
			queues = append(queues, name)
		}
	}
	w.mu.Unlock()
	for _, q := range queues {
		w.skip(q, why)
	}
}

// untilEmptyGrace is how long a worker --until-empty that has seen no work
// yet waits for some: started with the command that queues a run, it may
// look before the run has queued anything.
const untilEmptyGrace = 30 * time.Second

// empty reports whether there is nothing left to wait for: no job open in
// a queue this worker serves or has not listed yet, none being made here,
// and no run still queuing between two phases (generations done,
// judgements not yet queued: it has no job open, and is not done) — and,
// for a worker that has seen no work since it started, untilEmptyGrace has
// passed.
//
// The runs between phases are counted before the open jobs and again
// after: a run that had jobs open at the first count has them in queues
// named by then, which the jobs count sees (listed or not), or has ended
// them and is between phases (or done) at the second. Counted the other
// way round, a run that named a new queue and queued its jobs between the
// worker's listing of the queues and its count left the worker seeing
// neither (TestWorkerStartedBeforeItsRunWaits, now and then).
func (w *workerLoop) empty(ctx context.Context, started time.Time) (bool, error) {
	w.mu.Lock()
	var skipped []string
	for q := range w.decided {
		if !slices.Contains(w.served, q) {
			skipped = append(skipped, q)
		}
	}
	waiting := len(w.waits)
	w.mu.Unlock()
	if waiting > 0 || w.wk.Working() > 0 {
		w.sawWork = true
		return false, nil
	}
	between := func() (bool, error) {
		runs, err := w.pg.BetweenPhases(ctx)
		w.sawWork = w.sawWork || runs > 0
		return err != nil || runs > 0, err
	}
	if wait, err := between(); wait {
		return false, err
	}
	open, err := w.pg.OpenCallJobsBut(ctx, skipped)
	if err != nil || open > 0 {
		w.sawWork = w.sawWork || open > 0
		return false, err
	}
	if wait, err := between(); wait {
		return false, err
	}
	if !w.sawWork {
		// Work this worker cannot serve is work too: the run it waits for
		// has queued it.
		w.mu.Lock()
		known := slices.Collect(maps.Keys(w.decided))
		w.mu.Unlock()
		all, err := w.pg.OpenJobs(ctx, known)
		if err != nil {
			return false, err
		}
		w.sawWork = all > 0
	}
	return w.sawWork || w.done.Load()+w.failed.Load() > 0 || time.Since(started) >= untilEmptyGrace, nil
}

// work makes one job River gave this worker (postgres.WorkerConfig.Work):
// through the worker's engine run, answered from the shared cache first.
// A job it cannot make for a reason of its own goes back to the queue for
// another worker, never failed for the run; so does one that failed while
// the store was failing (its answer, if paid, is written when the store
// answers again, and the next worker to take the job finds it).
func (w *workerLoop) work(ctx context.Context, queue string, a postgres.CallArgs) error {
	j, err := engine.JobFromCanonical([]byte(a.Job))
	if err != nil {
		return postgres.Fail(err)
	}
	j.ID, j.Refresh, j.Run = a.JobID, a.Refresh, a.Run
	w.sayRun(a.Run)
	if j.Refresh {
		j.RefreshAfter = time.Now() // an answer stored before this worker took the job is the one to replace
	}
	if a.Budgeted {
		j.Budget = postgres.BudgetScope(a.Run)
	}
	pm := j.Spec.Provider + ":" + j.Spec.Model
	if k := w.eng.Place(j).Key(); k != a.Key {
		w.skip(queue, fmt.Sprintf("%s: it reaches %s at another endpoint than the run's machine (check base_url / cache_as in its config)", pm, j.Spec.Provider))
		return postgres.HandBack(time.Second)
	}
	if _, priced := w.prices.Lookup(j.Spec); a.Budgeted && !priced {
		w.skip(queue, fmt.Sprintf("%s: the run holds a budget and this worker's config has no price for the model (prices: in its config)", pm))
		return postgres.HandBack(time.Second)
	}
	token := strconv.FormatInt(w.seq.Add(1), 10)
	j.Meta = token
	ch := make(chan engine.Result, 1)
	w.mu.Lock()
	w.waits[token] = ch
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		delete(w.waits, token)
		w.mu.Unlock()
	}()
	select {
	case w.feed <- j:
	case <-ctx.Done():
		return ctx.Err()
	case <-w.ended:
		return w.stopped()
	}
	var r engine.Result
	select {
	case r = <-ch:
	case <-w.ended:
		select {
		case r = <-ch:
		default:
			return w.stopped()
		}
	}
	switch {
	case r.Err == nil:
		w.done.Add(1)
		return nil
	case errors.Is(r.Err, engine.ErrStoreFailed) || w.eng.StoreFailed() != nil:
		// The store failed for longer than workerStoreOutage: the job
		// goes back, and the loop ends the worker.
		return postgres.HandBack(2 * time.Second)
	case errors.Is(r.Err, context.Canceled) || ctx.Err() != nil:
		return r.Err // River gives it to a worker later
	case errors.Is(r.Err, engine.ErrBudgetWait):
		// The run's budget is booked by calls in flight, or by calls a
		// dead worker sent that are to be made again: the job goes back,
		// and its place takes one of those.
		return postgres.HandBack(250 * time.Millisecond)
	case llm.FailScope(r.Err) == llm.ScopeEndpoint:
		// The provider refused this worker's key: a reason of its own,
		// not the call's. The job goes back for a worker it accepts.
		w.skipProvider(queue, fmt.Sprintf("%s refused this worker's key, so its jobs are left to other workers (%s)",
			j.Spec.Provider, llm.Redact(r.Err.Error(), secrets(w.s.cfg)...)))
		return postgres.HandBack(time.Second)
	}
	w.failed.Add(1)
	return postgres.Fail(r.Err)
}

// sayRun says, once for each run, that this worker makes its jobs: the
// run's id and name, so that a worker's log tells whose calls its keys
// paid for. The name is read aside, not on the job's way.
func (w *workerLoop) sayRun(run int64) {
	w.mu.Lock()
	seen := w.runs[run]
	w.runs[run] = true
	w.mu.Unlock()
	if seen || w.g.Quiet {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		name := ""
		if r, ok, err := w.s.st.Run(ctx, run); err == nil && ok {
			name = fmt.Sprintf(" (%s)", r.Name)
		}
		w.say("makes the jobs of run %d%s", run, name)
	}()
}

// result hands the engine's result of a job to the work call waiting on it.
func (w *workerLoop) result(r engine.Result) {
	token, _ := r.Job.Meta.(string)
	w.mu.Lock()
	ch := w.waits[token]
	w.mu.Unlock()
	if ch != nil {
		ch <- r
	}
}
