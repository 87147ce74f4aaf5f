package sqlstore

import (
	"context"
	"fmt"

	"github.com/fallacylab/fallacylab/store"
)

// PutPhases replaces a phase's counts (every model) in one transaction.
func (s *Store) PutPhases(ctx context.Context, runID int64, counts []store.PhaseCount) error {
	return s.write(ctx, func(tx Tx) error {
		for _, c := range counts {
			if _, err := tx.Exec(`INSERT INTO run_phases (run_id, seq, phase, model, jobs, answered, cached, unusable, failed, skipped, example)
				VALUES (?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(run_id, phase, model) DO UPDATE SET seq = excluded.seq, jobs = excluded.jobs,
				answered = excluded.answered, cached = excluded.cached, unusable = excluded.unusable, failed = excluded.failed,
				skipped = excluded.skipped, example = excluded.example`,
				runID, c.Seq, c.Phase, c.Model, c.Jobs, c.Answered, c.Cached, c.Unusable, c.Failed, c.Skipped, c.Example); err != nil {
				return fmt.Errorf("record phase %s of run %d: %w", c.Phase, runID, err)
			}
		}
		return nil
	})
}

// Phases returns a run's phase counts in phase order, then by model.
func (s *Store) Phases(ctx context.Context, runID int64) ([]store.PhaseCount, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT seq, phase, model, jobs, answered, cached, unusable, failed, skipped, example
		FROM run_phases WHERE run_id = ? ORDER BY seq, phase, model`, runID)
	if err != nil {
		return nil, fmt.Errorf("phases of run %d: %w", runID, err)
	}
	defer rows.Close()
	var out []store.PhaseCount
	for rows.Next() {
		var c store.PhaseCount
		if err := rows.Scan(&c.Seq, &c.Phase, &c.Model, &c.Jobs, &c.Answered, &c.Cached, &c.Unusable, &c.Failed, &c.Skipped, &c.Example); err != nil {
			return nil, fmt.Errorf("phases of run %d: %w", runID, err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
