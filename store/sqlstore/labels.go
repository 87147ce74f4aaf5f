package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fallacylab/fallacylab/store"
)

// PutLabels stores labels in one transaction, replacing same (run, key, kind, source).
func (s *Store) PutLabels(ctx context.Context, labels []store.Label) error {
	return s.write(ctx, func(tx Tx) error {
		for _, l := range labels {
			if _, err := tx.Exec(`INSERT INTO labels (run_id, call_key, kind, source, value, created_at) VALUES (?,?,?,?,?,?)
				ON CONFLICT(run_id, call_key, kind, source) DO UPDATE SET value = excluded.value, created_at = excluded.created_at`,
				l.RunID, l.Key, l.Kind, l.Source, string(l.Value), now()); err != nil {
				return fmt.Errorf("put label %s/%s: %w", l.Kind, l.Key, err)
			}
		}
		return nil
	})
}

// Labels returns a run's labels of one kind.
func (s *Store) Labels(ctx context.Context, runID int64, kind string) ([]store.Label, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT run_id, call_key, kind, source, value FROM labels WHERE run_id = ? AND kind = ? ORDER BY id`, runID, kind)
	if err != nil {
		return nil, fmt.Errorf("labels: %w", err)
	}
	defer rows.Close()
	var out []store.Label
	for rows.Next() {
		var l store.Label
		var v string
		if err := rows.Scan(&l.RunID, &l.Key, &l.Kind, &l.Source, &v); err != nil {
			return nil, err
		}
		l.Value = json.RawMessage(v)
		out = append(out, l)
	}
	return out, rows.Err()
}
