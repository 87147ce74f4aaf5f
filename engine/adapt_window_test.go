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
	answerWindow(t, a, 8, 100*time.Millisecond)  // the first window: the fastest
	answerWindow(t, a, 16, 250*time.Millisecond) // ordinary latency
	if lim, _ := a.current(); lim != 32 {
		t.Fatalf("after two windows the limit is %d, want 32 (no cut)", lim)
	}
	answerWindow(t, a, 32, 250*time.Millisecond)
	answerWindow(t, a, 64, 600*time.Millisecond) // queueing: more than twice the baseline
	lim, _ := a.current()
	if lim >= 128 || a.slowStart {
		t.Fatalf("queueing did not cut: limit %d, slow start %v", lim, a.slowStart)
	}
}

// answerWindow releases n calls answered with latency lat, each in a slot
// taken for it.
func answerWindow(t *testing.T, a *adaptive, n int, lat time.Duration) {
	t.Helper()
	for range n {
		fill(t, a)
		a.release(answered, lat)
	}
}

// TestACutLatencyDoesNotAnswerWasNoQueue: a baseline taken in slow start
// (100 ms, the fastest of the calls just sent) makes the provider's own
// latency (300 ms) pass for queueing, and the limit is cut; the window
// after the cut holds, and the next, as slow as the one that cut, shows no
// queue shortened: the latency becomes the baseline and slow start goes
// on. Before, the cut ended slow start and each window cut again.
func TestACutLatencyDoesNotAnswerWasNoQueue(t *testing.T) {
	a := newAdaptive(8, 1000)
	answerWindow(t, a, 8, 100*time.Millisecond)
	answerWindow(t, a, 16, 100*time.Millisecond) // the baseline: 100 ms
	answerWindow(t, a, 32, 300*time.Millisecond) // cut
	lim, _ := a.current()
	if a.slowStart || lim != 57 {
		t.Fatalf("after a window at 3× the baseline: limit %d, slow start %v; want a cut to 57", lim, a.slowStart)
	}
	answerWindow(t, a, 57, 300*time.Millisecond) // holds: answers of calls sent before the cut
	if lim, _ := a.current(); lim != 57 {
		t.Fatalf("the window after the cut moved the limit to %d", lim)
	}
	answerWindow(t, a, 57, 300*time.Millisecond) // as slow: no queue
	if lim, _ := a.current(); !a.slowStart || lim != 57 || a.base != 0.3 {
		t.Fatalf("limit %d, slow start %v, baseline %v s: want 57, slow start again, 0.3 s", lim, a.slowStart, a.base)
	}
	answerWindow(t, a, 57, 300*time.Millisecond)
	if lim, _ := a.current(); lim != 114 {
		t.Fatalf("slow start did not go on: limit %d, want 114", lim)
	}
}

// TestAQueueThatShortensIsCutAgain: the same cut, but the provider queues —
// the latency falls as the calls sent to it do, and is still above twice
// the baseline: the limit is cut again.
func TestAQueueThatShortensIsCutAgain(t *testing.T) {
	a := newAdaptive(8, 1000)
	answerWindow(t, a, 8, 100*time.Millisecond)
	answerWindow(t, a, 16, 100*time.Millisecond)
	answerWindow(t, a, 32, 300*time.Millisecond) // cut to 57
	answerWindow(t, a, 57, 300*time.Millisecond) // holds
	answerWindow(t, a, 57, 250*time.Millisecond) // shorter: a queue, still over 200 ms
	if lim, _ := a.current(); a.slowStart || lim != 51 {
		t.Fatalf("limit %d, slow start %v: want a second cut to 51", lim, a.slowStart)
	}
}
