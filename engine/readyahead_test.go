package engine_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm/llmtest"
)

// TestReadyAheadPreparesJobsWhileSlotsAreBusy: with every one of 64 slots
// holding a call, ReadyAhead has 64 jobs more make their cache look-ups
// (and claims) and wait for a slot, ready to take the first an answer
// frees; without it the jobs beyond the slots wait unread in the plan.
func TestReadyAheadPreparesJobsWhileSlotsAreBusy(t *testing.T) {
	for _, ahead := range []bool{false, true} {
		srv := llmtest.New(llmtest.Options{Latency: func(*rand.Rand) time.Duration { return time.Minute }})
		st := &slowLookups{Store: openStore(t)}
		e := engine.New(engine.Options{Store: st, Providers: resolver(srv), Grace: 10 * time.Millisecond, ReadyAhead: ahead,
			Limits: func(string) engine.Limits { return engine.Limits{Concurrency: 64} }})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = e.Run(ctx, plan(256, "openai"), nil)
		}()
		want := 64
		if ahead {
			want = 128
		}
		deadline := time.Now().Add(30 * time.Second)
		for e.Progress().InFlight < 64 || st.looked() < want {
			if time.Now().After(deadline) {
				t.Fatalf("ReadyAhead %v: %d calls in flight, %d jobs looked up; want 64 and %d", ahead, e.Progress().InFlight, st.looked(), want)
			}
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond) // nothing more is read while the slots are busy
		if got := st.looked(); got != want {
			t.Errorf("ReadyAhead %v: %d jobs looked up while 64 calls are in flight, want %d", ahead, got, want)
		}
		cancel()
		<-done
		srv.Close()
	}
}
