package engine_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm/llmtest"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/sqlite"
)

// slowLookups is a store whose cache lookups take a while and are
// counted: how many reads are in flight at most, how many there were, and
// which keys were looked up.
type slowLookups struct {
	*sqlite.Store
	inFlight, most, reads atomic.Int64
	mu                    sync.Mutex
	keys                  map[string]bool
}

// looked is how many keys were looked up.
func (s *slowLookups) looked() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.keys)
}

func (s *slowLookups) GetCall(ctx context.Context, key string) (store.Call, bool, error) {
	c, err := s.GetCalls(ctx, []string{key})
	return c[key], err == nil && c[key].Key != "", err
}

func (s *slowLookups) GetCalls(ctx context.Context, keys []string) (map[string]store.Call, error) {
	s.mu.Lock()
	if s.keys == nil {
		s.keys = map[string]bool{}
	}
	for _, k := range keys {
		s.keys[k] = true
	}
	s.mu.Unlock()
	s.reads.Add(1)
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		m := s.most.Load()
		if n <= m || s.most.CompareAndSwap(m, n) {
			break
		}
	}
	time.Sleep(time.Millisecond) // a round trip to a team's store
	return s.Store.GetCalls(ctx, keys)
}

// holdingDispatcher takes every job and holds it until the run is
// stopped, as a queue whose workers have not answered yet; it counts the
// jobs taken and says when all have been.
type holdingDispatcher struct {
	taken atomic.Int64
	want  int64
	all   chan struct{}
	once  sync.Once
}

func (d *holdingDispatcher) Dispatch(ctx context.Context, _ engine.Job, _ string) (store.Call, error) {
	if d.taken.Add(1) == d.want {
		d.once.Do(func() { close(d.all) })
	}
	<-ctx.Done()
	return store.Call{}, ctx.Err()
}

// TestQueuingRunReadsItsLookupsTogether: a run that queues its jobs for
// workers (Dispatch) starts thousands of them at once, each looking in the
// cache first; their look-ups are read together, one read at a time, so
// they neither cost a round trip each nor queue for the store's few
// connections ahead of the run's first insert of a job (and the workers'
// first call). One each, six at a time, the 300 looked up made 300 reads.
func TestQueuingRunReadsItsLookupsTogether(t *testing.T) {
	st := &slowLookups{Store: openStore(t)}
	d := &holdingDispatcher{want: 300, all: make(chan struct{})}
	srv := llmtest.New(llmtest.Options{})
	defer srv.Close()
	o := fastOpts(st.Store, srv)
	o.Store, o.Dispatch, o.Workers = st, d, 8192
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := engine.New(o).Run(ctx, plan(300, "openai"), nil)
		done <- err
	}()
	select {
	case <-d.all:
	case <-time.After(time.Minute):
		t.Fatalf("only %d of 300 jobs queued", d.taken.Load())
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if most := st.most.Load(); most != 1 {
		t.Errorf("%d cache reads in flight at once: want 1", most)
	}
	t.Logf("%d jobs looked up in %d reads", st.looked(), st.reads.Load())
	if n, reads := st.looked(), st.reads.Load(); n != 300 || reads > 100 {
		t.Errorf("%d jobs looked up in %d reads: want 300 in far fewer", n, reads)
	}
}
