package postgres_test

import (
	"context"
	"sync"
	"testing"

	"github.com/fallacylab/fallacylab/store/postgres"
)

// Many workers booking at once never pass a run's budget: of 64 calls of
// $0.01 against $0.25, exactly 25 are booked; then every booking is
// refused, and settling an actual cost below the estimate frees the rest.
func TestSharedBudgetHolds(t *testing.T) {
	ctx := context.Background()
	st := freshStore(t)
	if err := st.SetBudget(ctx, 7, 0.25); err != nil {
		t.Fatal(err)
	}
	b := postgres.NewSharedBudget(st)
	scope := postgres.BudgetScope(7)
	var mu sync.Mutex
	booked := 0
	var wg sync.WaitGroup
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := b.Reserve(ctx, scope, 0.01)
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				booked++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	budget, spent, stopped, ok, err := st.Budget(ctx, 7)
	if err != nil || !ok || booked != 25 || spent > budget+1e-9 || !stopped {
		t.Fatalf("%d booked; budget %v spent %v stopped %v (%v)", booked, budget, spent, stopped, err)
	}
	if ok, _ := b.Reserve(ctx, scope, 0.0001); ok {
		t.Fatal("a stopped budget booked another call")
	}
	if err := b.Settle(ctx, scope, 0.01, 0.002); err != nil {
		t.Fatal(err)
	}
	if _, spent2, _, _, _ := st.Budget(ctx, 7); spent2 > spent-0.008+1e-12 || spent2 < spent-0.008-1e-12 {
		t.Fatalf("settled: spent %v, want %v", spent2, spent-0.008)
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
