package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	c, ok, err := e.opt.Store.GetCall(context.WithoutCancel(ctx), key)
	switch {
	case err != nil:
		res.Err = err
	case !ok:
		res.Err = fmt.Errorf("a worker finished job %s but its answer is not in the store", j.ID)
	default:
		res.Response, res.Cost, res.Attempts = c.Response, c.Cost, c.Attempts
		res.Err = e.opt.Store.LinkRun(context.WithoutCancel(ctx), e.opt.RunID, key, j.ID, false)
	}
	return res, true
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
