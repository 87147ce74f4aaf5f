package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/fallacylab/fallacylab/engine"
)

// SharedBudget holds the budgets of runs whose calls workers make
// (engine.SharedBudget): one short statement books a call's estimated cost,
// one settles it, so the workers together never pass a run's budget.
type SharedBudget struct{ st *Store }

// NewSharedBudget makes the store's shared budgets.
func NewSharedBudget(st *Store) *SharedBudget { return &SharedBudget{st} }

// BudgetScope is the engine.Job.Budget scope of a run's budget.
func BudgetScope(runID int64) string { return "run:" + strconv.FormatInt(runID, 10) }

func runOf(scope string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimPrefix(scope, "run:"), 10, 64)
	if err != nil || !strings.HasPrefix(scope, "run:") {
		return 0, fmt.Errorf("budget scope %q is not a run's", scope)
	}
	return id, nil
}

// SetBudget gives a run a budget of usd for this invocation (nothing spent
// yet, not stopped), as a local run's budget holds for one invocation.
func (s *Store) SetBudget(ctx context.Context, runID int64, usd float64) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO run_budgets (run_id, budget) VALUES (?, ?)
		ON CONFLICT (run_id) DO UPDATE SET budget = excluded.budget, spent = 0, stopped = false`, runID, usd)
	if err == nil {
		_, err = s.db.ExecContext(ctx, `DELETE FROM budget_holds WHERE run_id = ?`, runID)
	}
	if err != nil {
		return fmt.Errorf("budget of run %d: %w", runID, err)
	}
	return nil
}

// ClearBudget leaves a run without a budget (an invocation without
// --budget after one with it: its jobs are no longer held to the old one).
func (s *Store) ClearBudget(ctx context.Context, runID int64) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM run_budgets WHERE run_id = ?`, runID); err != nil {
		return fmt.Errorf("budget of run %d: %w", runID, err)
	}
	if _, err := s.db.ExecContext(ctx, `DELETE FROM budget_holds WHERE run_id = ?`, runID); err != nil {
		return fmt.Errorf("budget of run %d: %w", runID, err)
	}
	return nil
}

// Budget is a run's budget and what the workers spent of it (ok false: the
// run has none).
func (s *Store) Budget(ctx context.Context, runID int64) (budget, spent float64, stopped, ok bool, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT budget, spent, stopped FROM run_budgets WHERE run_id = ?`, runID).Scan(&budget, &spent, &stopped)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, false, false, nil
	}
	return budget, spent, stopped, err == nil, err
}

// Reserve books the call's worst case against the scope's budget for its
// holder (a worker's engine). It does not fit while other calls are
// booked: engine.ErrBudgetWait, and the worker asks again when they have
// settled — most cost far less than the worst case booked — so the run is
// stopped (false, and every later call refused) only when the budget, less
// what was paid, cannot pay for this call with nothing else in flight. A
// run without a budget books anything.
//
// A worker silent past its lease (killed) loses its bookings, at the next
// booking whether it fits or not; the calls it had sent (its sent_calls
// marks) stay booked — they were most likely paid for — at their worst
// case, or at their cost once settled, until they are made again: the
// call made again takes its dead attempts' booking over, and its settled
// cost counts them (at its own cost, as the run's spend does). Calls that
// do not fit because of a dead worker's calls wait for those to be made
// again.
func (b *SharedBudget) Reserve(ctx context.Context, bk engine.Booking) (bool, error) {
	id, err := runOf(bk.Scope)
	if err != nil {
		return false, err
	}
	var booked, wait bool
	err = pgx.BeginTxFunc(ctx, b.st.pg, pgx.TxOptions{}, func(tx pgx.Tx) error {
		var err error
		booked, err = reserve(ctx, tx, id, bk)
		if wait = errors.Is(err, engine.ErrBudgetWait); wait {
			// Committed all the same: the dead workers' bookings it let
			// go stay gone. Rolled back, they were let go only by a
			// booking that fit — never, when they were what kept every
			// other from fitting (a run stalled so for minutes).
			return nil
		}
		return err
	})
	switch {
	case err != nil:
		return false, fmt.Errorf("budget of run %d: %w", id, err)
	case wait:
		return false, engine.ErrBudgetWait
	}
	return booked, nil
}

// reserve is Reserve's transaction: the run's budget row is locked, so
// the workers book one at a time.
func reserve(ctx context.Context, tx pgx.Tx, id int64, bk engine.Booking) (bool, error) {
	var budget, spent float64
	var stopped bool
	err := tx.QueryRow(ctx, `SELECT budget, spent, stopped FROM run_budgets WHERE run_id = $1 FOR UPDATE`, id).Scan(&budget, &spent, &stopped)
	if errors.Is(err, pgx.ErrNoRows) {
		return true, nil // the run has no budget (any more)
	}
	if err != nil || stopped {
		return false, err
	}
	// A holder is alive while its worker beats within its lease.
	if _, err := tx.Exec(ctx, `DELETE FROM budget_holds h WHERE h.run_id = $1 AND h.holder <> $2 AND NOT EXISTS (
		SELECT 1 FROM workers w WHERE w.proc = h.holder AND w.heartbeat_at >= now() - w.lease_ms * interval '1 millisecond')`, id, bk.Holder); err != nil {
		return false, err
	}
	// Held: the live workers' bookings; orphaned: the worst case of the
	// calls sent by processes that hold nothing (dead), other than this
	// one, not yet made again.
	var held, orphaned float64
	if err := tx.QueryRow(ctx, `SELECT
		COALESCE((SELECT SUM(usd) FROM budget_holds WHERE run_id = $1), 0),
		COALESCE((SELECT SUM(s.usd) FROM sent_calls s WHERE s.run_id = $1 AND s.key <> $2 AND NOT EXISTS (
			SELECT 1 FROM budget_holds h WHERE h.run_id = $1 AND h.holder = s.owner)), 0)`, id, bk.Key).Scan(&held, &orphaned); err != nil {
		return false, err
	}
	const slack = 1e-9 // a nano-dollar for float sums
	switch {
	case spent+held+orphaned+bk.USD <= budget+slack:
		_, err := tx.Exec(ctx, `INSERT INTO budget_holds (run_id, holder, usd) VALUES ($1, $2, $3)
			ON CONFLICT (run_id, holder) DO UPDATE SET usd = budget_holds.usd + excluded.usd`, id, bk.Holder, bk.USD)
		return err == nil, err
	case spent+bk.USD > budget+slack:
		// It would not fit with nothing in flight: the run stops.
		_, err := tx.Exec(ctx, `UPDATE run_budgets SET stopped = true WHERE run_id = $1`, id)
		return false, err
	}
	return false, engine.ErrBudgetWait
}

// Settle replaces the booking by the call's actual cost.
func (b *SharedBudget) Settle(ctx context.Context, bk engine.Booking, actual float64) error {
	id, err := runOf(bk.Scope)
	if err != nil {
		return err
	}
	err = pgx.BeginTxFunc(ctx, b.st.pg, pgx.TxOptions{}, func(tx pgx.Tx) error {
		// The budget's row first, as Reserve locks it: no deadlock.
		if _, err := tx.Exec(ctx, `UPDATE run_budgets SET spent = spent + $1 WHERE run_id = $2`, actual, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE budget_holds SET usd = GREATEST(usd - $1, 0) WHERE run_id = $2 AND holder = $3`, bk.USD, id, bk.Holder); err != nil {
			return err
		}
		// The call's sent mark holds its actual cost from now on, not
		// its worst case: should this worker die before the answer is
		// stored, the mark counts what the call cost (already in the
		// spend) rather than the worst case again, which left the
		// calls to make again more than the budget had room for.
		_, err := tx.Exec(ctx, `UPDATE sent_calls SET usd = GREATEST(usd - $1 + $2, 0) WHERE key = $3 AND owner = $4`, bk.USD, actual, bk.Key, bk.Holder)
		return err
	})
	if err != nil {
		return fmt.Errorf("budget of run %d: %w", id, err)
	}
	return nil
}
