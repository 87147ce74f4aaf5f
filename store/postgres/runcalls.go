package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/fallacylab/fallacylab/store"

	"github.com/fallacylab/fallacylab/llm"
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
	rows, err := s.db.QueryContext(ctx, `SELECT rc.job, rc.cached, c.key, c.namespace, c.provider, c.model, c.request,
		COALESCE(c.response,''), c.status, COALESCE(c.error,''), c.attempts, c.input_tokens, c.output_tokens,
		c.reasoning_tokens, c.cost, c.latency_ms, COALESCE(c.batch_id,''), c.created_at
		FROM run_calls rc JOIN calls c ON c.key = rc.key WHERE rc.run_id = ? ORDER BY rc.job, c.key`, id)
	if err != nil {
		return fmt.Errorf("calls of run %d: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var rc store.RunCall
		var req, resp, created string
		var cost sql.NullFloat64
		var latMS int64
		if err := rows.Scan(&rc.Job, &rc.Cached, &rc.Key, &rc.Namespace, &rc.Provider, &rc.Model, &req, &resp, &rc.Status,
			&rc.Error, &rc.Attempts, &rc.Usage.InputTokens, &rc.Usage.OutputTokens, &rc.Usage.ReasoningTokens,
			&cost, &latMS, &rc.BatchID, &created); err != nil {
			return fmt.Errorf("calls of run %d: %w", id, err)
		}
		rc.Request = json.RawMessage(req)
		if resp != "" {
			var r llm.Response
			if err := json.Unmarshal([]byte(resp), &r); err != nil {
				return fmt.Errorf("run %d call %s: stored response unreadable: %w", id, rc.Key, err)
			}
			rc.Response = &r
		}
		if cost.Valid {
			rc.Cost = &cost.Float64
		}
		rc.Latency = time.Duration(latMS) * time.Millisecond
		rc.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
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
	rows, err := s.db.QueryContext(ctx, `SELECT c.provider, c.model,
		SUM(CASE WHEN c.status = 'ok' THEN 1 ELSE 0 END), SUM(CASE WHEN c.status = 'error' THEN 1 ELSE 0 END), SUM(rc.cached),
		COALESCE(SUM(CASE WHEN c.status='ok' THEN c.input_tokens END),0),
		COALESCE(SUM(CASE WHEN c.status='ok' THEN c.output_tokens END),0),
		COALESCE(SUM(CASE WHEN rc.cached = 0 THEN c.cost END),0),
		SUM(CASE WHEN c.status = 'ok' AND rc.cached = 0 AND c.cost IS NULL THEN 1 ELSE 0 END)
		FROM run_calls rc JOIN calls c ON c.key = rc.key WHERE rc.run_id = ?
		GROUP BY c.provider, c.model ORDER BY c.provider, c.model`, id)
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
