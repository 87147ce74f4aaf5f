package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/fallacylab/fallacylab/store"
)

// Dispatcher hands jobs to other processes — workers sharing the store —
// instead of calling providers here. Dispatch returns once the job's answer
// is committed to the store under key, or with the error the job failed
// with; a cancelled ctx abandons the wait (the job stays queued).
type Dispatcher interface {
	Dispatch(ctx context.Context, j Job, key string) error
}

// dispatched is the dispatch stage: the job goes to a worker, and its
// answer is read back from the store and linked to this run. ok is false
// when the wait was abandoned.
func (e *Engine) dispatched(ctx context.Context, j Job, key string) (Result, bool) {
	res := Result{Job: j, Key: key}
	if err := e.opt.Dispatch.Dispatch(ctx, j, key); err != nil {
		if ctx.Err() != nil {
			return res, false
		}
		if errors.Is(err, ErrBudget) {
			e.stopping.Store(true) // the run's budget, held by the workers, is spent
		}
		res.Err = err
		return res, true
	}
	var c store.Call
	var ok bool
	err := storeRetry(ctx, func() (err error) {
		c, ok, err = e.opt.Store.GetCall(context.WithoutCancel(ctx), key)
		return err
	})
	switch {
	case err != nil:
		res.Err = err
	case !ok:
		res.Err = fmt.Errorf("a worker finished job %s but its answer is not in the store", j.ID)
	default:
		res.Response, res.Cost, res.Attempts = c.Response, c.Cost, c.Attempts
		res.Err = storeRetry(ctx, func() error { return e.opt.Store.LinkRun(context.WithoutCancel(ctx), e.opt.RunID, key, j.ID, false) })
	}
	return res, true
}

// storeRetry is RetryStore for up to two minutes: a database restarting
// while a worker's answer is read pauses the job, it does not fail it.
func storeRetry(ctx context.Context, op func() error) error {
	return RetryStore(ctx, 2*time.Minute, op)
}

// RetryStore runs an operation on a shared store — a read, or a write that
// may be made twice — again while it fails, waiting 0.5 s, then twice as
// long each time (at most 15 s), for up to limit; it returns the last error
// then, or when ctx ends.
func RetryStore(ctx context.Context, limit time.Duration, op func() error) error {
	wait, deadline := 500*time.Millisecond, time.Now().Add(limit)
	for {
		err := op()
		if err == nil || ctx.Err() != nil || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, 15*time.Second)
	}
}

// JobFromCanonical is the job whose canonical document (Job.Canonical) is b,
// as a worker rebuilds a queued job: its key is the same as the original's.
func JobFromCanonical(b []byte) (Job, error) {
	var d keyDoc
	if err := json.Unmarshal(b, &d); err != nil {
		return Job{}, fmt.Errorf("queued job: %w", err)
	}
	if d.V != 1 {
		return Job{}, fmt.Errorf("queued job: document version %d (this fallacylab reads 1)", d.V)
	}
	j := Job{Namespace: d.Namespace, Request: d.Request, Sample: d.Sample, Endpoint: d.Endpoint}
	j.Spec.Provider, j.Spec.Model = d.Provider, d.Model
	return j, nil
}
