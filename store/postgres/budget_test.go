package postgres_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/store"
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
			ok, err := b.Reserve(ctx, engine.Booking{Scope: scope, Holder: "w1", USD: 0.01})
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
		if err := b.Settle(ctx, engine.Booking{Scope: scope, Holder: "w1", USD: 0.01}, 0.002); err != nil {
			t.Fatal(err)
		}
	}
	more := 0
	for {
		ok, err := b.Reserve(ctx, engine.Booking{Scope: scope, Holder: "w1", USD: 0.01})
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
		b.Settle(ctx, engine.Booking{Scope: scope, Holder: "w1", USD: 0.01}, 0.01)
	}
	if ok, err := b.Reserve(ctx, engine.Booking{Scope: scope, Holder: "w1", USD: 0.06}); ok || err != nil {
		t.Fatalf("a call the rest cannot pay, nothing in flight: %v %v", ok, err)
	}
	if _, spent, stopped, _, _ := st.Budget(ctx, 7); !stopped || spent > 0.25+1e-9 {
		t.Fatalf("spent %v, stopped %v", spent, stopped)
	}
	if ok, _ := b.Reserve(ctx, engine.Booking{Scope: scope, Holder: "w1", USD: 0.0001}); ok {
		t.Fatal("a stopped budget booked another call")
	}
	// The next invocation of the run starts its budget afresh.
	if err := st.SetBudget(ctx, 7, 0.25); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.Reserve(ctx, engine.Booking{Scope: scope, Holder: "w1", USD: 0.01}); !ok || err != nil {
		t.Fatalf("a renewed budget: %v %v", ok, err)
	}
	// Run again without a budget: none is held.
	if err := st.ClearBudget(ctx, 7); err != nil {
		t.Fatal(err)
	}
	if _, _, _, ok, err := st.Budget(ctx, 7); ok || err != nil {
		t.Fatalf("a cleared budget is still there (%v)", err)
	}
	if ok, err := b.Reserve(ctx, engine.Booking{Scope: scope, Holder: "w1", USD: 100}); !ok || err != nil {
		t.Fatalf("a job leased before the budget was cleared is refused: %v %v", ok, err)
	}
	if _, err := b.Reserve(ctx, engine.Booking{Scope: "nonsense", Holder: "w1", USD: 1}); err == nil {
		t.Fatal("a scope that names no run")
	}
}

// beatWorker marks a worker of engine proc alive now, with its lease: the
// budget reads its bookings as a live worker's until the lease has passed.
func beatWorker(t *testing.T, st *postgres.Store, proc string, lease time.Duration) {
	t.Helper()
	w, err := st.NewWorker(postgres.WorkerConfig{ID: proc, Label: proc, Proc: proc, Lease: lease, MaxWorkers: 1, Retention: time.Hour,
		Work: func(context.Context, string, postgres.CallArgs) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Beat(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
}

// A worker killed with calls booked (#42): its bookings are released once
// it has been silent past its lease, so the others spend the rest of the
// budget; what it had sent stays booked (most likely paid for) until the
// call is made again, which takes the booking over. Before, a killed
// worker's bookings stayed for ever and a run whose budget was nearly
// spent waited on them without end.
func TestSharedBudgetReleasesADeadWorkersBookings(t *testing.T) {
	ctx := context.Background()
	st := freshStore(t)
	if err := st.SetBudget(ctx, 9, 0.10); err != nil {
		t.Fatal(err)
	}
	beat := func(proc string, lease time.Duration) { beatWorker(t, st, proc, lease) }
	b, scope := postgres.NewSharedBudget(st), postgres.BudgetScope(9)
	booking := func(holder, key string, usd float64) engine.Booking {
		return engine.Booking{Scope: scope, Holder: holder, Key: key, USD: usd}
	}
	reserve := func(holder, key string, usd float64) error {
		ok, err := b.Reserve(ctx, booking(holder, key, usd))
		if err == nil && !ok {
			return errors.New("refused: the run is stopped")
		}
		return err
	}
	beat("live", time.Minute)
	beat("doomed", 50*time.Millisecond)
	if err := reserve("doomed", "k-sent", 0.02); err != nil {
		t.Fatal(err)
	}
	if err := reserve("doomed", "k-unsent", 0.02); err != nil {
		t.Fatal(err)
	}
	// The doomed worker sent one of its two calls, then died.
	if err := st.MarkSent(ctx, "k-sent", "doomed", 9, 0.02); err != nil {
		t.Fatal(err)
	}
	if err := reserve("live", "a", 0.05); err != nil {
		t.Fatal(err)
	}
	if err := reserve("live", "b", 0.02); !errors.Is(err, engine.ErrBudgetWait) {
		t.Fatalf("the doomed worker still beats: its bookings hold (%v)", err)
	}
	time.Sleep(200 * time.Millisecond) // past the doomed worker's lease
	// 0.05 live + 0.02 sent by the dead + 0.02 fits 0.10; 0.02 more does
	// not, and waits (for the dead worker's call to be made again), as the
	// run could still pay for it.
	if err := reserve("live", "b", 0.02); err != nil {
		t.Fatalf("a dead worker's bookings still hold the budget: %v", err)
	}
	if err := reserve("live", "c", 0.02); !errors.Is(err, engine.ErrBudgetWait) {
		t.Fatalf("the dead worker's sent call no longer counts, or stops the run: %v", err)
	}
	// Made again, the dead worker's call takes its booking over: it fits.
	if err := reserve("live", "k-sent", 0.02); err != nil {
		t.Fatalf("the call the dead worker sent, made again: %v", err)
	}
	// Stored, its cost counts the dead attempt (the engine's), and the
	// mark goes.
	cost := 0.004
	if _, err := st.PutAnswer(ctx, store.Call{Key: "k-sent", Namespace: "test", Provider: "openai", Model: "m", Status: store.StatusOK,
		Response: &llm.Response{Text: "ok"}, Attempts: 2, Cost: &cost}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"k-sent", "b"} {
		if err := b.Settle(ctx, booking("live", k, 0.02), cost/2); err != nil {
			t.Fatal(err)
		}
	}
	// Spent 0.004; booked 0.05: 0.046 left.
	if err := reserve("live", "d", 0.045); err != nil {
		t.Fatalf("after the re-made call: %v", err)
	}
	if _, spent, stopped, _, _ := st.Budget(ctx, 9); stopped || spent < 0.0039 || spent > 0.0041 {
		t.Fatalf("spent %v, stopped %v", spent, stopped)
	}
	// A call the budget cannot pay with nothing in flight stops the run.
	if err := reserve("live", "e", 0.0961); err == nil || errors.Is(err, engine.ErrBudgetWait) {
		t.Fatalf("a call the rest cannot pay: %v", err)
	}
}

// TestSharedBudgetDeadWorkersSettledCallCountsItsCost: a worker settles a
// call (its cost in the spend) and dies before the answer is stored, with
// two more calls sent and booked. Its settled call's mark then counts the
// call's cost, not its worst case again: the calls to make again fit the
// budget. Counted at the worst case twice over, they did not, and every
// worker waited for ever (a run stalled so, once in five runs of
// TestWorkersSpendTheBudgetThroughKills). The dead worker's bookings are let
// go by a booking that waits too, not only by one that fits.
func TestSharedBudgetDeadWorkersSettledCallCountsItsCost(t *testing.T) {
	ctx := context.Background()
	st := freshStore(t)
	if err := st.SetBudget(ctx, 9, 0.05); err != nil {
		t.Fatal(err)
	}
	beat := func(proc string, lease time.Duration) { beatWorker(t, st, proc, lease) }
	b, scope := postgres.NewSharedBudget(st), postgres.BudgetScope(9)
	const worst = 0.0131
	booking := func(holder, key string) engine.Booking {
		return engine.Booking{Scope: scope, Holder: holder, Key: key, USD: worst}
	}
	send := func(holder, key string) {
		t.Helper()
		if ok, err := b.Reserve(ctx, booking(holder, key)); err != nil || !ok {
			t.Fatalf("book %s: %v %v", key, ok, err)
		}
		if err := st.MarkSent(ctx, key, holder, 9, worst); err != nil {
			t.Fatal(err)
		}
	}
	beat("live", time.Minute)
	beat("doomed", 50*time.Millisecond)
	send("live", "paid")
	if err := b.Settle(ctx, booking("live", "paid"), 0.012); err != nil {
		t.Fatal(err)
	}
	send("doomed", "settled")
	if err := b.Settle(ctx, booking("doomed", "settled"), 0.0005); err != nil {
		t.Fatal(err)
	}
	send("doomed", "x")
	send("doomed", "y")
	time.Sleep(200 * time.Millisecond) // past the doomed worker's lease
	// A new call waits: 0.0125 spent + 3 of the dead's calls + 0.0131.
	if _, err := b.Reserve(ctx, booking("live", "new")); !errors.Is(err, engine.ErrBudgetWait) {
		t.Fatalf("a new call: %v", err)
	}
	var holds int
	if err := st.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM budget_holds WHERE holder = 'doomed' AND usd > 0`).Scan(&holds); err != nil || holds != 0 {
		t.Fatalf("the dead worker still holds %d bookings (%v)", holds, err)
	}
	// Made again, each of the dead worker's sent calls fits.
	if ok, err := b.Reserve(ctx, booking("live", "x")); err != nil || !ok {
		t.Fatalf("the dead worker's call made again: %v %v", ok, err)
	}
}
