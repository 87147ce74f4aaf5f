package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/store/postgres"
)

// Two processes exchange push-back: each sees the other's count, never its
// own, and the longest hold anyone published, in the database's clock.
func TestSharedSignals(t *testing.T) {
	ctx := context.Background()
	sig := postgres.NewSharedSignals(freshStore(t))
	if team, err := sig.Exchange(ctx, "openai:m", "a", engine.Signal{Pushed: 5, Hold: 2 * time.Second}); err != nil || team.OthersPushed != 0 || team.HoldLeft < 1900*time.Millisecond {
		t.Fatalf("a alone: %+v, %v", team, err)
	}
	team, err := sig.Exchange(ctx, "openai:m", "b", engine.Signal{Pushed: 1})
	if err != nil || team.OthersPushed != 5 || team.HoldLeft < 1500*time.Millisecond || team.HoldLeft > 2*time.Second {
		t.Fatalf("b: %+v, %v", team, err)
	}
	// a's count is its running total: publishing 7 replaces 5; a shorter
	// hold does not shorten the longer one.
	sig.Exchange(ctx, "openai:m", "a", engine.Signal{Pushed: 7, Hold: 10 * time.Millisecond})
	if team, _ := sig.Exchange(ctx, "openai:m", "b", engine.Signal{Pushed: 1}); team.OthersPushed != 7 || team.HoldLeft < time.Second {
		t.Fatalf("b again: %+v", team)
	}
	if team, _ := sig.Exchange(ctx, "openai:other", "b", engine.Signal{}); team.OthersPushed != 0 {
		t.Fatalf("another model sees %d push-backs", team.OthersPushed)
	}
}

// The processes learn an unhinted limit together: their streaks of bare
// 429s add up (a learned one's does not count), the first one by name of
// those that learned leads, and the window one measured is the others'.
func TestSharedSignalsLearnTogether(t *testing.T) {
	ctx := context.Background()
	sig := postgres.NewSharedSignals(freshStore(t))
	sig.Exchange(ctx, "openai:m", "a", engine.Signal{Streak: 4})
	sig.Exchange(ctx, "openai:m", "b", engine.Signal{Streak: 5})
	team, err := sig.Exchange(ctx, "openai:m", "c", engine.Signal{Streak: 2})
	if err != nil || team.OthersStreak != 9 || team.OthersLearned || team.Leader || team.Window != 0 {
		t.Fatalf("c among two streaks: %+v, %v", team, err)
	}
	// b learns: its streak no longer counts, and it leads (a has not learned).
	if team, _ := sig.Exchange(ctx, "openai:m", "b", engine.Signal{Learned: true}); !team.Leader || team.OthersStreak != 6 {
		t.Fatalf("b, the only one that learned: %+v", team)
	}
	if team, _ := sig.Exchange(ctx, "openai:m", "c", engine.Signal{Streak: 3}); team.OthersStreak != 4 || !team.OthersLearned || team.Leader {
		t.Fatalf("c after b learned: %+v", team)
	}
	// a learns too: "a" < "b", so a leads now; b's measured window is a's.
	sig.Exchange(ctx, "openai:m", "b", engine.Signal{Learned: true, Window: 3100 * time.Millisecond})
	team, _ = sig.Exchange(ctx, "openai:m", "a", engine.Signal{Learned: true})
	if !team.Leader || team.Window != 3100*time.Millisecond {
		t.Fatalf("a learned: %+v", team)
	}
	if team, _ := sig.Exchange(ctx, "openai:m", "b", engine.Signal{Learned: true, Window: 3100 * time.Millisecond}); team.Leader || team.Window != 0 {
		t.Fatalf("b after a learned (its own window is not the others'): %+v", team)
	}
	if team, _ := sig.Exchange(ctx, "openai:other", "c", engine.Signal{}); team.OthersStreak != 0 || team.OthersLearned || team.Window != 0 {
		t.Fatalf("another model: %+v", team)
	}
}
