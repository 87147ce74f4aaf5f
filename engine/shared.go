package engine

import (
	"context"
	"errors"
)

// SharedLimits hold a provider's requests/min and tokens/min across every
// process using one store (workers on several machines): Take waits until
// the shared budget of model allows one more request of about tokens
// tokens, at the configured rates. The engine's own limiters then stand
// aside for the limits the shared ones hold.
type SharedLimits interface {
	Take(ctx context.Context, scope string, rpm float64, tpm float64, tokens int) error
	// Owe takes n requests from the requests bucket of scope without
	// waiting for them (0: nothing): calls the provider still counts that
	// the bucket never paced, so that the next Take waits for them too.
	Owe(ctx context.Context, scope string, rpm float64, n int) error
}

// SharedBudget holds budgets across every process using one store: a
// worker books the estimated cost of a job whose Budget names a scope (the
// run that queued it) before sending it, and settles the actual cost after.
// Reserve's false means the budget would be passed: the job is not sent
// (ErrBudget), and no later job of the scope is.
type SharedBudget interface {
	Reserve(ctx context.Context, b Booking) (bool, error)
	Settle(ctx context.Context, b Booking, actual float64) error
}

// Booking is one call's booking against a shared budget.
type Booking struct {
	// Scope names the budget (Job.Budget).
	Scope string
	// Holder is the booking process (Engine.Proc), so that a dead one's
	// bookings can be told apart and released.
	Holder string
	// Key is the call's cache key: a call a dead process had sent takes
	// that process's booking over when it is made again.
	Key string
	// USD is the call's worst-case cost.
	USD float64
}

// ErrBudgetWait is a SharedBudget's "not now": the call does not fit while
// other calls are booked; it is asked for again once they settle. A call
// told to wait for longer than budgetPatience ends with it (a worker hands
// the job back, so that its place can make the calls being waited for).
var ErrBudgetWait = errors.New("the budget is booked by calls in flight")
