package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/store"
)

// RunBatch executes the plan through the providers' batch APIs: cached jobs
// are answered at once; the rest are grouped per provider and model (OpenAI
// and Gemini batches hold one model each) into batches of at most BatchSize,
// each recorded in the store before polling starts. Batches left pending by an
// earlier (killed) run are polled and ingested, never resubmitted. Results go
// into the same cache as live calls.
func (e *Engine) RunBatch(ctx context.Context, plan Plan, onResult func(Result)) (Summary, error) {
	e.reset(plan)
	waiting := map[string]Job{} // key → job of this plan awaiting a batch result
	type group struct{ provider, model string }
	pending := map[group][]Job{}
	size := map[group]int64{} // canonical bytes of pending[g]
	providers := map[string]bool{}
	emit := func(r Result) {
		e.account(r)
		if onResult != nil {
			onResult(r)
		}
	}
	st := e.opt.Store
	flush := func(g group) error {
		jobs := pending[g]
		if len(jobs) == 0 {
			return nil
		}
		pending[g], size[g] = nil, 0
		return e.submit(ctx, g.provider, jobs)
	}
	for j := range plan.Jobs {
		if err := ctx.Err(); err != nil {
			return e.summary(ctx), nil
		}
		j = e.placed(j)
		key := j.Key()
		if r, hit := e.cachedResult(ctx, j, key); hit {
			if r.Err != nil && !errors.Is(r.Err, ErrNotCached) {
				return e.summary(ctx), r.Err
			}
			emit(r)
			continue
		}
		if _, dup := waiting[key]; dup {
			continue
		}
		waiting[key] = j
		if !providers[j.Spec.Provider] {
			providers[j.Spec.Provider] = true
			if err := e.resolveUnconfirmed(ctx, j.Spec.Provider); err != nil {
				return e.summary(ctx), err
			}
		}
		inFlight, err := st.InPendingBatch(ctx, key)
		if err != nil {
			return e.summary(ctx), err
		}
		if inFlight {
			continue // an earlier run submitted it: wait for that batch
		}
		// The budget is reserved before submission: a batch is paid for
		// whole once sent, so a job that would pass it is never sent.
		if ok, err := e.reserveBatch(j, key); err != nil {
			return e.summary(ctx), err
		} else if !ok {
			delete(waiting, key)
			emit(Result{Job: j, Key: key, Err: ErrBudget})
			continue
		}
		g := group{j.Spec.Provider, j.Spec.Model}
		maxItems, maxBytes, err := e.batchLimits(g.provider)
		if err != nil {
			return e.summary(ctx), err
		}
		n := int64(len(j.Canonical()))
		if maxBytes > 0 && len(pending[g]) > 0 && size[g]+n > maxBytes {
			if err := flush(g); err != nil {
				return e.summary(ctx), err
			}
		}
		pending[g] = append(pending[g], j)
		size[g] += n
		if len(pending[g]) >= maxItems {
			if err := flush(g); err != nil {
				return e.summary(ctx), err
			}
		}
	}
	for g := range pending {
		if err := flush(g); err != nil {
			return e.summary(ctx), err
		}
	}
	for p := range providers {
		if err := e.drain(ctx, p, waiting, emit); err != nil {
			return e.summary(ctx), err
		}
	}
	return e.summary(ctx), nil
}

// reserveBatch books a batch job's estimated (discounted) cost against the
// budget; false means the budget would be passed and the job is not sent.
func (e *Engine) reserveBatch(j Job, key string) (bool, error) {
	if e.opt.Budget <= 0 {
		return true, nil
	}
	l, err := e.lane(j.Spec.Provider)
	if err != nil {
		return false, err
	}
	in, out := l.est.worstCase(j)
	amount, err := e.reserve(j.Spec, in, out, e.opt.BatchDiscount, false)
	if errors.Is(err, ErrBudget) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	e.progMu.Lock()
	if e.batchReserved == nil {
		e.batchReserved = map[string]float64{}
	}
	e.batchReserved[key] += amount
	e.progMu.Unlock()
	return true, nil
}

// settleBatch replaces a batch job's reservation by its actual cost.
func (e *Engine) settleBatch(key string, cost *float64) {
	e.progMu.Lock()
	reserved := e.batchReserved[key]
	delete(e.batchReserved, key)
	e.progMu.Unlock()
	e.settle(reserved, cost)
}

// batchLimits is BatchSize capped by what the provider's batch API accepts.
func (e *Engine) batchLimits(provider string) (int, int64, error) {
	b, err := e.batcher(provider)
	if err != nil {
		return 0, 0, err
	}
	items := e.opt.BatchSize
	var bytes int64
	if l, ok := b.(llm.BatchLimiter); ok {
		maxItems, maxBytes := l.BatchLimits()
		if maxItems > 0 {
			items = min(items, maxItems)
		}
		bytes = maxBytes
	}
	return items, bytes, nil
}

func (e *Engine) batcher(provider string) (llm.Batcher, error) {
	l, err := e.lane(provider)
	if err != nil {
		return nil, err
	}
	b, ok := l.p.(llm.Batcher)
	if !ok {
		return nil, fmt.Errorf("provider %s has no batch API: run without --batch", provider)
	}
	return b, nil
}

func (e *Engine) submit(ctx context.Context, provider string, jobs []Job) error {
	b, err := e.batcher(provider)
	if err != nil {
		return err
	}
	items := make([]llm.BatchItem, len(jobs))
	rec := store.Batch{Provider: provider}
	for i, j := range jobs {
		items[i] = llm.BatchItem{CustomID: j.Key(), Model: j.Spec.Model, Request: j.Request}
		rec.Items = append(rec.Items, store.BatchItem{Key: items[i].CustomID, Namespace: j.Namespace, Model: j.Spec.Model, Request: j.Canonical()})
	}
	// Record the batch under a token of ours before asking the provider, so
	// that if the answer is lost (crash, dropped connection) a re-run finds
	// the batch by its token instead of paying for it again.
	token := newToken()
	if err := e.opt.Store.SaveBatchIntent(ctx, token, rec); err != nil {
		return fmt.Errorf("record %s batch before submitting: %w", provider, err)
	}
	id, err := b.SubmitBatch(ctx, token, items)
	if err != nil {
		if refused(err) {
			// The provider answered with a refusal: no batch exists.
			e.opt.Store.DropBatch(context.WithoutCancel(ctx), token)
		}
		return fmt.Errorf("submit %s batch of %d: %w", provider, len(jobs), llm.RedactError(err, e.opt.Secrets...))
	}
	if err := e.opt.Store.ConfirmBatch(context.WithoutCancel(ctx), token, id); err != nil {
		return fmt.Errorf("record %s batch %s (it was submitted; the next run finds it by its token): %w", provider, id, err)
	}
	e.notify(BatchEvent{Provider: provider, ID: id, Status: "submitted", Requests: len(items)})
	return nil
}

// refused reports an error the provider sent as its answer (a 4xx other than
// a timeout or rate limit): the request was seen and turned down, so no batch
// was created. Transport errors and 5xx leave the outcome unknown.
func refused(err error) bool {
	var le *llm.Error
	return errors.As(err, &le) && le.Status >= 400 && le.Status < 500 && !le.Retryable
}

func newToken() string {
	b := make([]byte, 12)
	rand.Read(b)
	return "fallacylab-" + hex.EncodeToString(b)
}

// resolveUnconfirmed settles batches whose submission outcome is unknown:
// found by token with the provider, they are polled like any other; not
// found, they are forgotten and their jobs submitted again. A provider that
// cannot look batches up (Anthropic) has them forgotten too, with a warning:
// the batch may exist and be paid twice.
func (e *Engine) resolveUnconfirmed(ctx context.Context, provider string) error {
	recs, err := e.opt.Store.UnconfirmedBatches(ctx, provider)
	if err != nil || len(recs) == 0 {
		return err
	}
	b, err := e.batcher(provider)
	if err != nil {
		return err
	}
	finder, canFind := b.(llm.BatchFinder)
	for _, rec := range recs {
		if canFind {
			id, found, err := finder.FindBatch(ctx, rec.ID)
			if err != nil {
				return fmt.Errorf("look up %s batch %s, whose submission had no answer: %w", provider, rec.ID, err)
			}
			if found {
				if err := e.opt.Store.ConfirmBatch(ctx, rec.ID, id); err != nil {
					return err
				}
				e.notify(BatchEvent{Provider: provider, ID: id, Status: "found after a lost answer", Requests: len(rec.Items)})
				continue
			}
			e.notify(BatchEvent{Provider: provider, ID: rec.ID, Status: "never reached the provider: submitting again", Requests: len(rec.Items)})
		} else {
			e.notify(BatchEvent{Provider: provider, ID: rec.ID, Status: "submission unconfirmed and cannot be looked up: submitting again (it may be paid twice)", Requests: len(rec.Items)})
		}
		if err := e.opt.Store.DropBatch(ctx, rec.ID); err != nil {
			return err
		}
	}
	return nil
}

func (e *Engine) notify(ev BatchEvent) {
	if e.opt.Log != nil {
		e.opt.Log.Info("batch", "provider", ev.Provider, "id", ev.ID, "status", ev.Status, "requests", ev.Requests,
			"results", ev.Results, "waited", ev.Waited.Round(time.Second).String())
	}
	if e.opt.OnBatch != nil {
		e.opt.OnBatch(ev)
	}
}

// drain polls every pending batch of a provider and ingests its results.
func (e *Engine) drain(ctx context.Context, provider string, waiting map[string]Job, emit func(Result)) error {
	b, err := e.batcher(provider)
	if err != nil {
		return err
	}
	batches, err := e.opt.Store.PendingBatches(ctx, provider)
	if err != nil {
		return err
	}
	for _, rec := range batches {
		if err := e.awaitBatch(ctx, b, rec); err != nil {
			return err
		}
		if err := e.ingest(ctx, b, rec, waiting, emit); err != nil {
			return err
		}
	}
	return nil
}

func (e *Engine) awaitBatch(ctx context.Context, b llm.Batcher, rec store.Batch) error {
	delay := e.opt.BatchPoll
	failures := 0
	start, last := time.Now(), ""
	for {
		st, err := b.PollBatch(ctx, rec.ID)
		if err == nil && st.Status != last {
			last = st.Status
			e.notify(BatchEvent{Provider: rec.Provider, ID: rec.ID, Status: st.Status, Requests: len(rec.Items), Waited: time.Since(start)})
		}
		switch {
		case err == nil && st.Done:
			return nil
		case err != nil && (!llm.IsRetryable(err) || failures >= e.opt.MaxAttempts):
			return err
		case err != nil:
			failures++
		}
		if !sleep(ctx, delay) {
			return ctx.Err()
		}
		delay = min(2*delay, 5*time.Minute)
	}
}

func (e *Engine) ingest(ctx context.Context, b llm.Batcher, rec store.Batch, waiting map[string]Job, emit func(Result)) error {
	items := map[string]store.BatchItem{}
	for _, it := range rec.Items {
		items[it.Key] = it
	}
	seen := map[string]bool{}
	err := b.BatchResults(ctx, rec.ID, func(r llm.BatchResult) error {
		it, ok := items[r.CustomID]
		if !ok {
			return nil // not ours
		}
		seen[r.CustomID] = true
		spec := llm.Spec{Provider: rec.Provider, Model: it.Model}
		c := store.Call{Key: it.Key, Namespace: it.Namespace, Provider: rec.Provider, Model: it.Model, Request: it.Request, Attempts: 1, BatchID: rec.ID,
			Replace: e.opt.Cache == CacheRefresh}
		res := Result{Key: it.Key, Attempts: 1}
		if r.Err != nil {
			rerr := llm.RedactError(r.Err, e.opt.Secrets...)
			c.Status, c.Error, res.Err = store.StatusError, rerr.Error(), rerr
		} else {
			resp := r.Response
			c.Status, c.Response, c.Usage = store.StatusOK, &resp, resp.Usage
			if cost, ok := e.opt.Prices.Cost(spec, resp.Usage); ok {
				cost *= e.opt.BatchDiscount
				c.Cost = &cost
			}
			res.Response, res.Cost = &resp, c.Cost
		}
		j, mine := waiting[it.Key]
		if mine {
			c.RunID, c.Job = e.opt.RunID, j.ID // linked in the same write
		}
		if err := e.opt.Store.PutCall(ctx, c); err != nil {
			return err
		}
		e.settleBatch(it.Key, c.Cost)
		if mine {
			res.Job = j
			delete(waiting, it.Key)
			emit(res)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("ingest batch %s: %w", rec.ID, err)
	}
	for key := range items {
		if !seen[key] {
			if j, mine := waiting[key]; mine {
				delete(waiting, key)
				emit(Result{Job: j, Key: key, Err: fmt.Errorf("batch %s returned no result for this job", rec.ID)})
			}
		}
	}
	if err := e.opt.Store.SetBatchStatus(ctx, rec.ID, store.BatchIngested); err != nil {
		return err
	}
	e.notify(BatchEvent{Provider: rec.Provider, ID: rec.ID, Status: "ingested", Requests: len(rec.Items), Results: len(seen)})
	return nil
}
