package engine

import (
	"context"
	"time"

	"github.com/fallacylab/fallacylab/store"
)

// Levels keeps the concurrency each provider model's calls held, from one
// run (and process) to the next (the store's part of it): a model's
// adaptive concurrency starts at the level it last held rather than
// ramping from the start again — as Linux keeps a path's TCP metrics
// (ssthresh, RTT) for its next connection. The level kept is the adaptive
// limit itself, cuts for push-back included, so a provider that refused a
// burst is met with the level it settled at, not the ceiling.
type Levels = store.Levels

// levelAge is how old a saved level may be and still be where a model
// starts: a day (a provider's limits, and an account's tier, change).
const levelAge = 24 * time.Hour

// levelSaveEvery is how often a run saves its models' levels while it
// goes on (a worker's one long run), besides at its end.
const levelSaveEvery = 30 * time.Second

// levelScope is the scope a model's level is kept under: its provider, its
// endpoint (a self-hosted server is not another's) and the model.
func (e *Engine) levelScope(provider, model string) string {
	scope := provider + ":" + model
	if e.opt.Endpoint != nil {
		if id := e.opt.Endpoint(provider); id != "" {
			scope += "@" + id
		}
	}
	return scope
}

// startLevel is where a model of lane l starts: the level it last held
// (Options.Levels), up to the ceiling — below the usual start too, where
// the provider pushed the last run down there; the lane's start where
// none is kept, the concurrency is fixed, or the store does not answer
// within a second (a start is never held up by it for long).
func (e *Engine) startLevel(l *lane, model string) int {
	if e.opt.Levels == nil || l.lim.MaxConcurrency <= l.lim.Concurrency {
		return l.lim.Concurrency
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	n, ok, err := e.opt.Levels.Level(ctx, e.levelScope(l.name, model), time.Now().Add(-levelAge))
	if err != nil || !ok {
		return l.lim.Concurrency
	}
	return min(max(n, 1), l.lim.MaxConcurrency)
}

// saveLevels saves the level of every adaptive model the engine has
// called; a failed save loses only the head start of a later run.
func (e *Engine) saveLevels(ctx context.Context) {
	if e.opt.Levels == nil {
		return
	}
	type level struct {
		scope string
		n     int
	}
	var levels []level
	e.mu.Lock()
	for _, l := range e.lanes {
		if l.lim.MaxConcurrency <= l.lim.Concurrency {
			continue
		}
		l.mu.Lock()
		for model, m := range l.models {
			n, _ := m.sem.current()
			levels = append(levels, level{e.levelScope(l.name, model), n})
		}
		l.mu.Unlock()
	}
	e.mu.Unlock()
	for _, lv := range levels {
		if err := e.opt.Levels.SaveLevel(ctx, lv.scope, lv.n); err != nil && e.opt.Log != nil {
			e.opt.Log.Warn("concurrency level not saved", "model", lv.scope, "err", err)
		}
	}
}

// levelSaveWithin bounds one save of the levels: a store that does not
// answer (a database restarting) never holds up the run's end for long.
const levelSaveWithin = 5 * time.Second

// saveLevelsWithin is saveLevels given at most d.
func (e *Engine) saveLevelsWithin(d time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	e.saveLevels(ctx)
}

// keepLevels saves the levels every levelSaveEvery until stop closes,
// then once more.
func (e *Engine) keepLevels(stop <-chan struct{}) {
	t := time.NewTicker(levelSaveEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			e.saveLevelsWithin(levelSaveWithin)
		case <-stop:
			e.saveLevelsWithin(levelSaveWithin)
			return
		}
	}
}
