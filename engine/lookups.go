package engine

import (
	"context"
	"sync"
	"time"

	"github.com/fallacylab/fallacylab/store"
)

// lookups reads the cache look-ups of the jobs that look at once in one
// read of the store (Store.GetCalls), one read at a time: those that come
// while a read is in flight wait for the next, which reads them all. A run
// starts hundreds of jobs together, each with a look-up: one statement
// each was a round trip each on a shared store (a queuing run of 1,800
// jobs took a second to look up its jobs six at a time, before it could
// queue them), and filled the store's few connections ahead of the
// statements that queue the jobs. Written here, not taken from a library:
// it is a few lines over the store's own read of many keys.
type lookups struct {
	st      Store
	mu      sync.Mutex
	pending []lookup
	reading bool
}

// lookup is a job's look-up waiting for a read.
type lookup struct {
	key string
	ch  chan looked
}

// looked is a look-up's outcome.
type looked struct {
	c   store.Call
	ok  bool
	err error
}

// lookupBatch is the most keys one read looks up; lookupTimeout bounds a
// read (it serves many jobs, and no one job's context).
const (
	lookupBatch   = 1000
	lookupTimeout = time.Minute
)

// get looks key up with the look-ups waiting with it: the stored answer
// (ok), none, or the store's error; or ctx's error, once ctx ends.
func (l *lookups) get(ctx context.Context, key string) (store.Call, bool, error) {
	w := lookup{key: key, ch: make(chan looked, 1)}
	l.mu.Lock()
	l.pending = append(l.pending, w)
	start := !l.reading
	l.reading = true
	l.mu.Unlock()
	if start {
		go l.read()
	}
	select {
	case r := <-w.ch:
		return r.c, r.ok, r.err
	case <-ctx.Done():
		return store.Call{}, false, ctx.Err()
	}
}

// read reads the waiting look-ups, a batch at a time, until none waits.
func (l *lookups) read() {
	for {
		l.mu.Lock()
		n := min(len(l.pending), lookupBatch)
		if n == 0 {
			l.reading = false
			l.pending = nil
			l.mu.Unlock()
			return
		}
		batch := append([]lookup(nil), l.pending[:n]...)
		l.pending = l.pending[n:]
		l.mu.Unlock()
		keys := make([]string, len(batch))
		for i, w := range batch {
			keys[i] = w.key
		}
		ctx, cancel := context.WithTimeout(context.Background(), lookupTimeout)
		calls, err := l.st.GetCalls(ctx, keys)
		cancel()
		for _, w := range batch {
			c, ok := calls[w.key]
			w.ch <- looked{c: c, ok: ok, err: err}
		}
	}
}
