package engine

import (
	"context"
	"sync"
	"time"
)

// aimd is a concurrency limit that halves on rate-limit responses
// (multiplicative decrease, at most once per window) and grows by one slot per
// limit-many successes (additive increase), never above max.
type aimd struct {
	mu       sync.Mutex
	limit    float64
	max      float64
	inflight int
	changed  chan struct{}
	lastCut  time.Time
	window   time.Duration
}

func newAIMD(max int) *aimd {
	if max < 1 {
		max = 1
	}
	return &aimd{limit: float64(max), max: float64(max), changed: make(chan struct{}), window: time.Second}
}

func (a *aimd) acquire(ctx context.Context) error {
	for {
		a.mu.Lock()
		if a.inflight < int(a.limit) {
			a.inflight++
			a.mu.Unlock()
			return nil
		}
		ch := a.changed
		a.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// release frees a slot; rateLimited reports a 429, ok a success.
func (a *aimd) release(ok, rateLimited bool) {
	a.mu.Lock()
	a.inflight--
	switch {
	case rateLimited:
		if time.Since(a.lastCut) > a.window {
			a.limit = max(1, a.limit/2)
			a.lastCut = time.Now()
		}
	case ok:
		a.limit = min(a.max, a.limit+1/a.limit)
	}
	close(a.changed)
	a.changed = make(chan struct{})
	a.mu.Unlock()
}

// current is the present limit (for progress and tests).
func (a *aimd) current() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return int(a.limit)
}

// ceiling is the configured maximum.
func (a *aimd) ceiling() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return int(a.max)
}
