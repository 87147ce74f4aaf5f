package sqlstore

import (
	"context"
	"fmt"

	"github.com/fallacylab/fallacylab/store"
)

// store.Run returns one run by id; ok is false when there is none.
func (s *Store) Run(ctx context.Context, id int64) (store.Run, bool, error) {
	runs, err := s.runs(ctx, `WHERE r.id = ?`, id)
	if err != nil || len(runs) == 0 {
		return store.Run{}, false, err
	}
	return runs[0], true, nil
}

// RunCalls streams the calls run id used, in job order, to fn. It reads from
// one snapshot of the store, so a run still in progress exports consistently.
func (s *Store) RunCalls(ctx context.Context, id int64, fn func(store.RunCall) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT rc.job, rc.cached, `+callCols+`
		FROM run_calls rc JOIN calls c ON c.key = rc.key WHERE rc.run_id = ? ORDER BY rc.job, c.key`, id)
	if err != nil {
		return fmt.Errorf("calls of run %d: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var rc store.RunCall
		if err := scanCall(rows, &rc.Call, &rc.Job, &rc.Cached); err != nil {
			return fmt.Errorf("calls of run %d: %w", id, err)
		}
		if err := fn(rc); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("calls of run %d: %w", id, err)
	}
	return nil
}

// RunModelStats summarises one run per model: Calls counts every call the run
// used, Hits those the cache answered, and Cost only what the run itself paid
// (cache hits cost nothing again).
func (s *Store) RunModelStats(ctx context.Context, id int64) ([]store.ModelStats, error) {
	// run_model_totals is kept by triggers as links and calls change
	// (migration 014): a few rows per run, however many calls it made.
	rows, err := s.db.QueryContext(ctx, `SELECT provider, model, ok, errors, hits, input_tokens, output_tokens, cost, unpriced
		FROM run_model_totals WHERE run_id = ? ORDER BY provider, model`, id)
	if err != nil {
		return nil, fmt.Errorf("stats of run %d: %w", id, err)
	}
	defer rows.Close()
	var out []store.ModelStats
	for rows.Next() {
		var m store.ModelStats
		if err := rows.Scan(&m.Provider, &m.Model, &m.Calls, &m.Errors, &m.Hits, &m.InputTokens, &m.OutputTokens, &m.Cost, &m.UnpricedCalls); err != nil {
			return nil, fmt.Errorf("stats of run %d: %w", id, err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}
