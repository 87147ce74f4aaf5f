package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

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
		ON CONFLICT (run_id) DO UPDATE SET budget = excluded.budget, spent = 0, reserved = 0, stopped = false`, runID, usd)
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

// Reserve books usd against the scope's budget. It does not fit while
// other calls are booked: engine.ErrBudgetWait, and the worker asks again
// when they have settled — most cost far less than the worst case booked —
// so the run is stopped (false, and every later call refused) only when
// the budget, less what was paid, cannot pay for this call with nothing
// else in flight. A run without a budget books anything.
func (b *SharedBudget) Reserve(ctx context.Context, scope string, usd float64) (bool, error) {
	id, err := runOf(scope)
	if err != nil {
		return false, err
	}
	res, err := b.st.db.ExecContext(ctx, `UPDATE run_budgets SET reserved = reserved + ? WHERE run_id = ? AND NOT stopped AND spent + reserved + ? <= budget + 1e-9`, usd, id, usd) // a nano-dollar for float sums
	if err != nil {
		return false, fmt.Errorf("budget of run %d: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return err == nil, err
	}
	// Stopped only if it would not fit with nothing in flight.
	res, err = b.st.db.ExecContext(ctx, `UPDATE run_budgets SET stopped = true WHERE run_id = ? AND (stopped OR spent + ? > budget + 1e-9)`, id, usd)
	if err != nil {
		return false, fmt.Errorf("budget of run %d: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, err
	}
	if n == 1 {
		return false, nil
	}
	var exists bool
	if err := b.st.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM run_budgets WHERE run_id = ?)`, id).Scan(&exists); err != nil {
		return false, fmt.Errorf("budget of run %d: %w", id, err)
	}
	if !exists {
		return true, nil // the run has no budget (any more)
	}
	return false, engine.ErrBudgetWait
}

// Settle replaces a reservation by the actual cost.
func (b *SharedBudget) Settle(ctx context.Context, scope string, reserved, actual float64) error {
	id, err := runOf(scope)
	if err != nil {
		return err
	}
	if _, err := b.st.db.ExecContext(ctx, `UPDATE run_budgets SET reserved = GREATEST(reserved - ?, 0), spent = spent + ? WHERE run_id = ?`, reserved, actual, id); err != nil {
		return fmt.Errorf("budget of run %d: %w", id, err)
	}
	return nil
}
