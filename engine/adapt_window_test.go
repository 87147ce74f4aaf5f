package engine

import (
	"context"
	"testing"
	"time"
)

// fill takes every free slot of a.
func fill(t *testing.T, a *adaptive) {
	t.Helper()
	for {
		lim, in := a.current()
		if in >= lim {
			return
		}
		if err := a.acquire(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSlowStartAddsASlotPerAnswer: in slow start, each answer to a limit in
// use adds a slot at once (TCP's slow start), so a window's growth comes as
// its answers do rather than at its end; the limit still doubles once per
// window, up to the ceiling.
func TestSlowStartAddsASlotPerAnswer(t *testing.T) {
	a := newAdaptive(8, 128)
	fill(t, a)
	a.release(answered, 200*time.Millisecond)
	if lim, _ := a.current(); lim != 9 {
		t.Fatalf("after the first answer the limit is %d, want 9", lim)
	}
	fill(t, a)
	for range 7 { // the first window's other answers
		a.release(answered, 200*time.Millisecond)
		fill(t, a)
	}
	if lim, _ := a.current(); lim != 16 {
		t.Fatalf("after a window of 8 answers the limit is %d, want 16", lim)
	}
	for range 200 {
		a.release(answered, 200*time.Millisecond)
		fill(t, a)
	}
	if lim, _ := a.current(); lim != 128 {
		t.Fatalf("the limit is %d, want the ceiling", lim)
	}
}

// TestFirstWindowSetsNoBaseline: the first window's answers are the
// fastest of the calls sent together at the start; a baseline taken from
// them made ordinary latency (here 2.5 times theirs) pass for queueing and
// cut the limit, ending slow start. The baseline comes from the windows
// after it; queueing beyond twice that still cuts.
func TestFirstWindowSetsNoBaseline(t *testing.T) {
	a := newAdaptive(8, 1000)
	answer := func(n int, lat time.Duration) {
		for range n {
			fill(t, a)
			a.release(answered, lat)
		}
	}
	answer(8, 100*time.Millisecond)  // the first window: the fastest
	answer(16, 250*time.Millisecond) // ordinary latency
	if lim, _ := a.current(); lim != 32 {
		t.Fatalf("after two windows the limit is %d, want 32 (no cut)", lim)
	}
	answer(32, 250*time.Millisecond)
	answer(64, 600*time.Millisecond) // queueing: more than twice the baseline
	lim, _ := a.current()
	if lim >= 128 || a.slowStart {
		t.Fatalf("queueing did not cut: limit %d, slow start %v", lim, a.slowStart)
	}
}
