package postgres_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/store/postgres"
)

// Many workers booking at once never pass a run's budget: of 64 calls of
// $0.01 against $0.25, exactly 25 are booked and the others are told to
// wait (the budget is booked by calls in flight, not spent). Settling the
// booked calls at their actual cost — far below the estimate — frees room
// for more; the run is stopped only when a call cannot be paid with
// nothing in flight (#42 item 2: stopping at the first call that did not
// fit spent 9 % of the budget).
func TestSharedBudgetHolds(t *testing.T) {
	ctx := context.Background()
	st := freshStore(t)
	if err := st.SetBudget(ctx, 7, 0.25); err != nil {
		t.Fatal(err)
	}
	b := postgres.NewSharedBudget(st)
	scope := postgres.BudgetScope(7)
	var mu sync.Mutex
	booked, waits := 0, 0
	var wg sync.WaitGroup
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := b.Reserve(ctx, scope, 0.01)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case errors.Is(err, engine.ErrBudgetWait):
				waits++
			case err != nil:
				t.Error(err)
			case ok:
				booked++
			}
		}()
	}
	wg.Wait()
	budget, spent, stopped, ok, err := st.Budget(ctx, 7)
	if err != nil || !ok || booked != 25 || waits != 39 || spent != 0 || stopped {
		t.Fatalf("%d booked, %d told to wait; budget %v spent %v stopped %v (%v)", booked, waits, budget, spent, stopped, err)
	}
	// The 25 calls cost $0.002 each: $0.05 spent, room for 20 more.
	for range 25 {
		if err := b.Settle(ctx, scope, 0.01, 0.002); err != nil {
			t.Fatal(err)
		}
	}
	more := 0
	for {
		ok, err := b.Reserve(ctx, scope, 0.01)
		if err != nil || !ok {
			break
		}
		more++
	}
	if more != 20 {
		t.Fatalf("%d more booked after the settles, want 20", more)
	}
	// With nothing in flight, a call the rest cannot pay stops the run.
	for range 20 {
		b.Settle(ctx, scope, 0.01, 0.01)
	}
	if ok, err := b.Reserve(ctx, scope, 0.06); ok || err != nil {
		t.Fatalf("a call the rest cannot pay, nothing in flight: %v %v", ok, err)
	}
	if _, spent, stopped, _, _ := st.Budget(ctx, 7); !stopped || spent > 0.25+1e-9 {
		t.Fatalf("spent %v, stopped %v", spent, stopped)
	}
	if ok, _ := b.Reserve(ctx, scope, 0.0001); ok {
		t.Fatal("a stopped budget booked another call")
	}
	// The next invocation of the run starts its budget afresh.
	if err := st.SetBudget(ctx, 7, 0.25); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.Reserve(ctx, scope, 0.01); !ok || err != nil {
		t.Fatalf("a renewed budget: %v %v", ok, err)
	}
	// Run again without a budget: none is held.
	if err := st.ClearBudget(ctx, 7); err != nil {
		t.Fatal(err)
	}
	if _, _, _, ok, err := st.Budget(ctx, 7); ok || err != nil {
		t.Fatalf("a cleared budget is still there (%v)", err)
	}
	if ok, err := b.Reserve(ctx, scope, 100); !ok || err != nil {
		t.Fatalf("a job leased before the budget was cleared is refused: %v %v", ok, err)
	}
	if _, err := b.Reserve(ctx, "nonsense", 1); err == nil {
		t.Fatal("a scope that names no run")
	}
}
