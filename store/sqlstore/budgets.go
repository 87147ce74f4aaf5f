package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// RunBudget is the budget kept with a run in USD (ok false: none).
func (s *Store) RunBudget(ctx context.Context, runID int64) (usd float64, ok bool, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT usd FROM run_max_spend WHERE run_id = ?`, runID).Scan(&usd)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("budget of run %d: %w", runID, err)
	}
	return usd, true, nil
}

// SetRunBudget keeps usd as the run's budget (0 or less: none).
func (s *Store) SetRunBudget(ctx context.Context, runID int64, usd float64) error {
	return s.write(ctx, func(tx Tx) error {
		var err error
		if usd <= 0 {
			_, err = tx.Exec(`DELETE FROM run_max_spend WHERE run_id = ?`, runID)
		} else {
			_, err = tx.Exec(`INSERT INTO run_max_spend (run_id, usd) VALUES (?, ?) ON CONFLICT (run_id) DO UPDATE SET usd = excluded.usd`, runID, usd)
		}
		if err != nil {
			return fmt.Errorf("set the budget of run %d: %w", runID, err)
		}
		return nil
	})
}

// RunSpend is what a run itself has paid for its calls, in USD (cache
// hits cost it nothing), and the most its calls sent and not yet answered
// may cost (MarkSent): those of a process killed with calls in flight,
// which were most likely paid for.
func (s *Store) RunSpend(ctx context.Context, runID int64) (float64, error) {
	var usd float64
	err := s.db.QueryRowContext(ctx, `SELECT COALESCE((SELECT SUM(c.cost) FROM run_calls rc JOIN calls c ON c.key = rc.key
		WHERE rc.run_id = ? AND rc.cached = 0), 0) + COALESCE((SELECT SUM(usd) FROM sent_calls WHERE run_id = ?), 0)`, runID, runID).Scan(&usd)
	if err != nil {
		return 0, fmt.Errorf("spend of run %d: %w", runID, err)
	}
	return usd, nil
}
