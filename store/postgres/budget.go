package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
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

// Reserve books usd against the scope's budget; false: it would pass the
// budget (or a call already would have), and the budget is stopped. A run
// without a budget books anything.
func (b *SharedBudget) Reserve(ctx context.Context, scope string, usd float64) (bool, error) {
	id, err := runOf(scope)
	if err != nil {
		return false, err
	}
	res, err := b.st.db.ExecContext(ctx, `UPDATE run_budgets SET spent = spent + ? WHERE run_id = ? AND NOT stopped AND spent + ? <= budget + 1e-9`, usd, id, usd) // a nano-dollar for float sums
	if err != nil {
		return false, fmt.Errorf("budget of run %d: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return err == nil, err
	}
	res, err = b.st.db.ExecContext(ctx, `UPDATE run_budgets SET stopped = true WHERE run_id = ?`, id)
	if err != nil {
		return false, fmt.Errorf("budget of run %d: %w", id, err)
	}
	n, err := res.RowsAffected()
	return n == 0 && err == nil, err // no row: the run has no budget (any more)
}

// Settle replaces a reservation by the actual cost.
func (b *SharedBudget) Settle(ctx context.Context, scope string, reserved, actual float64) error {
	id, err := runOf(scope)
	if err != nil {
		return err
	}
	if _, err := b.st.db.ExecContext(ctx, `UPDATE run_budgets SET spent = spent - ? + ? WHERE run_id = ?`, reserved, actual, id); err != nil {
		return fmt.Errorf("budget of run %d: %w", id, err)
	}
	return nil
}
