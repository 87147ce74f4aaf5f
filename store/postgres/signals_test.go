package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/store/postgres"
)

// Two processes exchange push-back: each sees the other's count, never its
// own, and the longest hold anyone published, in the database's clock.
func TestSharedSignals(t *testing.T) {
	ctx := context.Background()
	sig := postgres.NewSharedSignals(freshStore(t))
	if others, left, err := sig.Exchange(ctx, "openai:m", "a", 5, 2*time.Second); err != nil || others != 0 || left < 1900*time.Millisecond {
		t.Fatalf("a alone: %d, %v, %v", others, left, err)
	}
	others, left, err := sig.Exchange(ctx, "openai:m", "b", 1, 0)
	if err != nil || others != 5 || left < 1500*time.Millisecond || left > 2*time.Second {
		t.Fatalf("b: others %d, hold left %v, %v", others, left, err)
	}
	// a's count is its running total: publishing 7 replaces 5; a shorter
	// hold does not shorten the longer one.
	sig.Exchange(ctx, "openai:m", "a", 7, 10*time.Millisecond)
	if others, left, _ := sig.Exchange(ctx, "openai:m", "b", 1, 0); others != 7 || left < time.Second {
		t.Fatalf("b again: others %d, hold left %v", others, left)
	}
	if others, _, _ := sig.Exchange(ctx, "openai:other", "b", 0, 0); others != 0 {
		t.Fatalf("another model sees %d push-backs", others)
	}
}
