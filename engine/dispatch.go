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
// is committed to the store under key, with that answer, linked to the
// engine's run (as the store's PutAnswer links what this process stores);
// or with the error the job failed with; a cancelled ctx abandons the
// wait (the job stays queued).
type Dispatcher interface {
	Dispatch(ctx context.Context, j Job, key string) (store.Call, error)
}

// dispatched is the dispatch stage: the job goes to a worker, which
// answers it in the store; the dispatcher reads it back, linked to this
// run. ok is false when the wait was abandoned.
func (e *Engine) dispatched(ctx context.Context, j Job, key string) (Result, bool) {
	res := Result{Job: j, Key: key}
	c, err := e.opt.Dispatch.Dispatch(ctx, j, key)
	if err != nil {
		if ctx.Err() != nil {
			return res, false
		}
		if errors.Is(err, ErrBudget) {
			e.stopping.Store(true) // the run's budget, held by the workers, is spent
		}
		res.Err = err
		return res, true
	}
	res.Response, res.Cost, res.Attempts = c.Response, c.Cost, c.Attempts
	return res, true
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
