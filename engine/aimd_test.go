package engine

import (
	"strings"

	"context"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/llm"
)

func TestAIMD(t *testing.T) {
	a := newAIMD(16)
	ctx := context.Background()
	for range 16 {
		if err := a.acquire(ctx); err != nil {
			t.Fatal(err)
		}
	}
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if err := a.acquire(short); err == nil {
		t.Fatal("17th slot granted at limit 16")
	}
	a.release(false, true)
	if got := a.current(); got != 8 {
		t.Fatalf("429 should halve the limit: %d", got)
	}
	a.release(false, true) // same window: no second cut
	if got := a.current(); got != 8 {
		t.Fatalf("second 429 in one window cut again: %d", got)
	}
	a.lastCut = time.Now().Add(-2 * time.Second)
	a.release(false, true)
	if got := a.current(); got != 4 {
		t.Fatalf("429 in a new window should halve: %d", got)
	}
	for range 13 {
		a.release(true, false)
	}
	for range 200 {
		a.acquire(ctx)
		a.release(true, false)
	}
	if got := a.current(); got != 16 {
		t.Fatalf("successes should grow the limit back to its max: %d", got)
	}
}

func TestEstimatorLearns(t *testing.T) {
	e := newEstimator()
	r := llm.UserPrompt("", strings.Repeat("word ", 400)) // 2000 characters
	in0, out0 := e.estimate(r)
	if out0 != DefaultOutputGuess {
		t.Fatalf("first output guess %d", out0)
	}
	for range 100 {
		e.observe(r, llm.Usage{InputTokens: 2 * in0, OutputTokens: 100})
	}
	in1, out1 := e.estimate(r)
	if in1 < 2*in0*95/100 || out1 != 100 {
		t.Fatalf("estimates not corrected by usage: in %d→%d out %d", in0, in1, out1)
	}
}
