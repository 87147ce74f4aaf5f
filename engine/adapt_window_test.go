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

// TestSlowStartAddsSlotsPerAnswer: in slow start, each answer to a limit in
// use adds two slots at once (TCP's slow start adds one), so a window's
// growth comes as its answers do rather than at its end; the limit triples
// once per window, up to the ceiling.
func TestSlowStartAddsSlotsPerAnswer(t *testing.T) {
	a := newAdaptive(8, 128)
	fill(t, a)
	a.release(answered, 200*time.Millisecond)
	if lim, _ := a.current(); lim != 10 {
		t.Fatalf("after the first answer the limit is %d, want 10", lim)
	}
	fill(t, a)
	for range 7 { // the first window's other answers
		a.release(answered, 200*time.Millisecond)
		fill(t, a)
	}
	if lim, _ := a.current(); lim != 24 {
		t.Fatalf("after a window of 8 answers the limit is %d, want 24", lim)
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
	answerWindow(t, a, 24, 250*time.Millisecond) // ordinary latency
	if lim, _ := a.current(); lim != 72 {
		t.Fatalf("after two windows the limit is %d, want 72 (no cut)", lim)
	}
	answerWindow(t, a, 72, 250*time.Millisecond)
	answerWindow(t, a, 216, 600*time.Millisecond) // queueing: more than twice the baseline
	lim, _ := a.current()
	if lim >= 648 || a.slowStart {
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
	answerWindow(t, a, 24, 100*time.Millisecond) // the baseline: 100 ms
	answerWindow(t, a, 72, 300*time.Millisecond) // grows to 216 as it is answered, then cut
	lim, _ := a.current()
	if a.slowStart || lim != 194 {
		t.Fatalf("after a window at 3× the baseline: limit %d, slow start %v; want a cut to 194", lim, a.slowStart)
	}
	answerWindow(t, a, 194, 300*time.Millisecond) // holds: answers of calls sent before the cut
	if lim, _ := a.current(); lim != 194 {
		t.Fatalf("the window after the cut moved the limit to %d", lim)
	}
	answerWindow(t, a, 194, 300*time.Millisecond) // as slow: no queue
	if lim, _ := a.current(); !a.slowStart || lim != 194 || a.base != 0.3 {
		t.Fatalf("limit %d, slow start %v, baseline %v s: want 194, slow start again, 0.3 s", lim, a.slowStart, a.base)
	}
	answerWindow(t, a, 194, 300*time.Millisecond)
	if lim, _ := a.current(); lim != 582 {
		t.Fatalf("slow start did not go on: limit %d, want 582", lim)
	}
}

// TestAQueueThatShortensIsCutAgain: the same cut, but the provider queues —
// the latency falls as the calls sent to it do, and is still above twice
// the baseline: the limit is cut again.
func TestAQueueThatShortensIsCutAgain(t *testing.T) {
	a := newAdaptive(8, 1000)
	answerWindow(t, a, 8, 100*time.Millisecond)
	answerWindow(t, a, 24, 100*time.Millisecond)
	answerWindow(t, a, 72, 300*time.Millisecond)  // cut to 194
	answerWindow(t, a, 194, 300*time.Millisecond) // holds
	answerWindow(t, a, 194, 250*time.Millisecond) // shorter: a queue, still over 200 ms
	if lim, _ := a.current(); a.slowStart || lim != 174 {
		t.Fatalf("limit %d, slow start %v: want a second cut to 174", lim, a.slowStart)
	}
}
