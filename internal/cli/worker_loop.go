package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/internal/backend"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/store/postgres"
)

// workerLoop is a worker's work: lease what it serves, make it, finish it,
// and ride out a store that is away for a while.
type workerLoop struct {
	g          *Global
	pg         backend.Jobs
	s          *session
	name       string
	eng        *engine.Engine
	serves     servable
	prices     llm.Prices
	take       int
	lease      time.Duration
	untilEmpty bool
	say        func(string, ...any)

	done, failed int
	pruned       time.Time
	mu           sync.Mutex
	held         map[string]bool // the leased jobs being made (renewed)
	away         time.Duration   // the current wait for the store (0: it answers)
}

// storeAway is the longest wait between two tries of a store that does
// not answer.
const storeAway = 30 * time.Second

// unreachable waits before the store is tried again after err, longer
// each time (1 s, doubling, at most storeAway), and says so: a database
// restarting pauses the worker, it does not end it. It returns false once
// ctx is done.
func (w *workerLoop) unreachable(ctx context.Context, what string, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	w.away = min(max(2*w.away, time.Second), storeAway)
	w.say("the store does not answer (%s: %v): trying again in %s", what, llm.Redact(err.Error(), secrets(w.s.cfg)...), w.away)
	sleepCtx(ctx, w.away)
	return ctx.Err() == nil
}

func (w *workerLoop) run(ctx context.Context) error {
	renew, stop := context.WithCancel(ctx)
	defer stop()
	go func() { // keep the leases alive while the calls take their time
		t := time.NewTicker(w.lease / 3)
		defer t.Stop()
		for {
			select {
			case <-renew.Done():
				return
			case <-t.C:
				w.mu.Lock()
				keys := make([]string, 0, len(w.held))
				for k := range w.held {
					keys = append(keys, k)
				}
				w.mu.Unlock()
				if len(keys) > 0 {
					w.pg.Renew(context.WithoutCancel(renew), w.name, keys, w.lease)
				}
			}
		}
	}()
	for ctx.Err() == nil {
		w.prune(ctx)
		leases, err := w.pg.Lease(ctx, w.name, w.take, w.lease, w.serves.Serves)
		if err != nil {
			if !w.unreachable(ctx, "lease", err) {
				break
			}
			continue
		}
		if w.away > 0 {
			w.say("the store answers again")
			w.away = 0
		}
		if len(leases) == 0 {
			if w.untilEmpty {
				empty, err := w.empty(ctx)
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
			sleepCtx(ctx, 300*time.Millisecond)
			continue
		}
		w.hold(leases)
		err = w.make(ctx, leases)
		w.hold(nil)
		if err != nil {
			return err
		}
		if !w.g.Quiet {
			w.say("%d jobs done, %d failed", w.done, w.failed)
		}
	}
	return nil
}

// hold sets the jobs whose leases are renewed: those being made.
func (w *workerLoop) hold(leases []postgres.Lease) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.held = map[string]bool{}
	for _, l := range leases {
		w.held[l.Key] = true
	}
}

// empty reports whether there is nothing left to wait for: no open job
// and no run still queuing — a run between two phases (generations done,
// judgements not yet queued) has none open, and is not done.
func (w *workerLoop) empty(ctx context.Context) (bool, error) {
	open, err := w.pg.OpenJobs(ctx)
	if err != nil {
		return false, err
	}
	runs, err := w.pg.QueuingRuns(ctx)
	return open == 0 && runs == 0, err
}

// prune deletes finished runs' rows, an hour after the run ended, at most
// once a minute (a million done jobs were 650 MB).
func (w *workerLoop) prune(ctx context.Context) {
	if time.Since(w.pruned) < time.Minute {
		return
	}
	w.pruned = time.Now()
	if n, err := w.pg.PruneQueue(ctx, queueRetention); err == nil && n > 0 && !w.g.Quiet {
		w.say("pruned %d finished jobs of runs that ended over %s ago", n, queueRetention)
	}
}

// make makes the leased jobs it serves and finishes each. A job this
// worker cannot make for a reason of its own goes back to the queue for
// another, never failed for the run, and this worker takes no more like
// it; so does a job that failed while the store was failing (its answer,
// if paid, is written when the store answers again, and the next worker
// to take the job finds it).
func (w *workerLoop) make(ctx context.Context, leases []postgres.Lease) error {
	var jobs []engine.Job
	for _, l := range leases {
		pm := l.Job.Spec.Provider + ":" + l.Job.Spec.Model
		why := ""
		if k := w.eng.Place(l.Job).Key(); k != l.Key {
			// This machine names the endpoint otherwise: its answer would
			// be stored under another key.
			why = fmt.Sprintf("%s: it reaches %s at another endpoint than the run's machine (check base_url / cache_as in its config)", pm, l.Job.Spec.Provider)
		} else if _, priced := w.prices.Lookup(l.Job.Spec); l.Job.Budget != "" && !priced {
			why = fmt.Sprintf("%s: the run holds a budget and this worker's config has no price for the model (prices: in its config)", pm)
		}
		if why != "" {
			w.handBack(ctx, l.Key)
			if !slices.Contains(w.serves.Except, pm) {
				w.serves.Except = append(w.serves.Except, pm)
				w.say("skips %s", why)
			}
			continue
		}
		jobs = append(jobs, l.Job)
	}
	var failed []engine.Result
	sum, err := w.eng.Run(ctx, engine.SlicePlan("worker", jobs), func(r engine.Result) {
		if r.Err != nil {
			failed = append(failed, r) // decided once the batch is over
			return
		}
		if w.finish(ctx, r.Key, nil) {
			w.done++
		}
	})
	if err != nil && ctx.Err() == nil {
		return err
	}
	for _, r := range failed {
		if sum.StoreErr != nil || errors.Is(r.Err, engine.ErrStoreFailed) {
			w.handBack(ctx, r.Key)
			continue
		}
		if w.finish(ctx, r.Key, r.Err) {
			w.failed++
		}
	}
	return nil
}

// finish marks a job done or failed, trying again while the store does
// not answer (until the lease would have run out: then another worker has
// the job); it reports whether the mark was made.
func (w *workerLoop) finish(ctx context.Context, key string, failure error) bool {
	deadline := time.Now().Add(w.lease)
	for {
		err := w.pg.Finish(context.WithoutCancel(ctx), w.name, key, failure)
		if err == nil {
			return true
		}
		if time.Now().After(deadline) || !w.unreachable(ctx, "finish a job", err) {
			return false
		}
	}
}

// handBack returns a job to the queue, trying again like finish.
func (w *workerLoop) handBack(ctx context.Context, key string) {
	deadline := time.Now().Add(w.lease)
	for {
		err := w.pg.HandBack(context.WithoutCancel(ctx), w.name, key)
		if err == nil || time.Now().After(deadline) || !w.unreachable(ctx, "hand a job back", err) {
			return
		}
	}
}
