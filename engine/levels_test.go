package engine_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/llm/llmtest"
)

// promptPlan is n jobs of distinct prompts made of text.
func promptPlan(n int, text string) engine.Plan {
	jobs := make([]engine.Job, n)
	for i := range jobs {
		jobs[i] = engine.Job{ID: fmt.Sprintf("%s-%04d", text, i), Namespace: "test", Spec: llm.Spec{Provider: "openai", Model: "m"},
			Request: llm.UserPrompt("", fmt.Sprintf("%s %d", text, i))}
	}
	return engine.SlicePlan("test", jobs)
}

// TestModelStartsAtItsLastLevel: a second process on the store starts a
// model's adaptive concurrency at the level the first one's run ended at
// (saved with the store), not at 16 again: held answers show how many
// calls it sends before its first answer. A level below 16 is where it
// starts too; a fixed concurrency (--concurrency) is kept as set.
func TestModelStartsAtItsLastLevel(t *testing.T) {
	st := openStore(t)
	adaptive := func(string) engine.Limits { return engine.Adaptive() }
	first := llmtest.New(llmtest.Options{Latency: func(*rand.Rand) time.Duration { return 10 * time.Millisecond }})
	defer first.Close()
	o := fastOpts(st, first)
	o.Limits, o.Levels, o.CallTimeout = adaptive, st, 10*time.Second
	collect(t, engine.New(o), promptPlan(400, "ramp"))
	saved, ok, err := st.Level(context.Background(), "openai:m", time.Now().Add(-time.Minute))
	if err != nil || !ok || saved <= engine.Adaptive().Concurrency {
		t.Fatalf("level saved after the ramp: %d, %v, %v; want more than the start", saved, ok, err)
	}

	// before is how many calls a new engine sends before any is answered
	// (the answers held until that many have come, or 10 s).
	before := func(lim func(string) engine.Limits, want int) int64 {
		var arrived atomic.Int64
		open := make(chan struct{})
		srv := llmtest.New(llmtest.Options{Respond: func(llmtest.Call) llmtest.Reply {
			arrived.Add(1)
			<-open
			return llmtest.Reply{Text: "ok"}
		}})
		defer srv.Close()
		o := fastOpts(st, srv)
		o.Limits, o.Levels, o.CallTimeout = lim, st, time.Minute
		done := make(chan error, 1)
		go func() {
			_, err := engine.New(o).Run(context.Background(), promptPlan(200, fmt.Sprintf("held %d", want)), nil)
			done <- err
		}()
		deadline := time.Now().Add(10 * time.Second)
		for arrived.Load() < int64(want) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(20 * time.Millisecond) // any call past want would have come by now
		n := arrived.Load()
		close(open)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := before(adaptive, saved); n != int64(saved) {
		t.Errorf("adaptive: %d calls before the first answer, want the saved level %d", n, saved)
	}
	// A provider that pushed the last run below the usual start is met
	// where it settled.
	if err := st.SaveLevel(context.Background(), "openai:m", 5); err != nil {
		t.Fatal(err)
	}
	if n := before(adaptive, 5); n != 5 {
		t.Errorf("after a run pushed down to 5: %d calls before the first answer, want 5", n)
	}
	fixed := func(string) engine.Limits { return engine.Limits{Concurrency: 8} }
	if n := before(fixed, 8); n != 8 {
		t.Errorf("--concurrency 8: %d calls before the first answer, want 8", n)
	}
}
