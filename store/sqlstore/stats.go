package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/fallacylab/fallacylab/store"
)

// Stats returns per-model cache statistics.
func (s *Store) Stats(ctx context.Context) ([]store.ModelStats, error) {
	q := statsFromCalls
	if s.d.CallTotals {
		q = statsFromTotals
	}
	rows, err := s.db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("cache stats: %w", err)
	}
	defer rows.Close()
	var out []store.ModelStats
	for rows.Next() {
		var m store.ModelStats
		var hits sql.NullInt64
		if err := rows.Scan(&m.Provider, &m.Model, &m.Calls, &m.Errors, &m.InputTokens, &m.OutputTokens, &m.Cost, &m.UnpricedCalls, &hits); err != nil {
			return nil, err
		}
		m.Hits = int(hits.Int64)
		out = append(out, m)
	}
	return out, rows.Err()
}

// statsFromTotals reads the counts the store keeps (Dialect.CallTotals).
const statsFromTotals = `SELECT c.provider, c.model, c.ok, c.errors, c.input_tokens, c.output_tokens, c.cost, c.unpriced,
		COALESCE((SELECT SUM(t.hits) FROM run_model_totals t WHERE t.provider = c.provider AND t.model = c.model),0)
		FROM call_totals c ORDER BY c.provider, c.model`

// statsFromCalls counts the calls.
const statsFromCalls = `SELECT c.provider, c.model,
		SUM(CASE WHEN c.status = 'ok' THEN 1 ELSE 0 END), SUM(CASE WHEN c.status = 'error' THEN 1 ELSE 0 END),
		COALESCE(SUM(CASE WHEN c.status='ok' THEN c.input_tokens END),0),
		COALESCE(SUM(CASE WHEN c.status='ok' THEN c.output_tokens END),0),
		COALESCE(SUM(c.cost),0), SUM(CASE WHEN c.status = 'ok' AND c.cost IS NULL THEN 1 ELSE 0 END),
		COALESCE((SELECT SUM(t.hits) FROM run_model_totals t WHERE t.provider = c.provider AND t.model = c.model),0)
		FROM calls c GROUP BY c.provider, c.model ORDER BY c.provider, c.model`

// OutputTokens returns the mean output tokens and the number of stored
// successful calls of a model in a namespace, so estimates can start from what
// the model actually wrote before.
func (s *Store) OutputTokens(ctx context.Context, provider, model, namespace string) (mean float64, n int, err error) {
	var avg sql.NullFloat64
	err = s.db.QueryRowContext(ctx, `SELECT AVG(output_tokens), COUNT(*) FROM calls
		WHERE provider = ? AND model = ? AND namespace = ? AND status = 'ok'`, provider, model, namespace).Scan(&avg, &n)
	if err != nil {
		return 0, 0, fmt.Errorf("output tokens of %s:%s: %w", provider, model, err)
	}
	return avg.Float64, n, nil
}
