package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fallacylab/fallacylab/store"
)

// PutRecords replaces a run's records of one kind with recs, in their
// order, in one transaction that moves the run's records version on. A
// key given twice keeps its last record, in the first one's place. Any
// kind a benchmark declares is stored this way (migration 009): the
// store knows none of them.
func (s *Store) PutRecords(ctx context.Context, runID int64, kind string, recs []store.Record) error {
	if kind == "" {
		return fmt.Errorf("put records of run %d: no kind", runID)
	}
	return s.write(context.WithoutCancel(ctx), func(tx Tx) error {
		if err := bumpRecords(tx, runID); err != nil {
			return err
		}
		if _, err := tx.Exec(`DELETE FROM records WHERE run_id = ? AND kind = ?`, runID, kind); err != nil {
			return fmt.Errorf("replace %s records of run %d: %w", kind, runID, err)
		}
		ins, err := tx.Prepare(`INSERT INTO records (run_id, kind, seq, rec_key, call_key, body) VALUES (?,?,?,?,?,?)
			ON CONFLICT(run_id, kind, rec_key) DO UPDATE SET call_key = excluded.call_key, body = excluded.body`)
		if err != nil {
			return err
		}
		defer ins.Close()
		for i, r := range recs {
			if r.Key == "" {
				return fmt.Errorf("put %s record %d of run %d: no key", kind, i+1, runID)
			}
			if !json.Valid(r.Body) {
				return fmt.Errorf("put %s record %s of run %d: its body is not JSON", kind, r.Key, runID)
			}
			if _, err := ins.Exec(runID, kind, i+1, r.Key, nullIfEmpty(r.CallKey), string(r.Body)); err != nil {
				return fmt.Errorf("put %s record %s of run %d: %w", kind, r.Key, runID, err)
			}
		}
		return nil
	})
}

// Records calls fn with a run's records of one kind ("": every kind, by
// kind), in the order they were written.
func (s *Store) Records(ctx context.Context, runID int64, kind string, fn func(store.Record) error) error {
	q, args := `SELECT kind, rec_key, COALESCE(call_key, ''), body FROM records WHERE run_id = ?`, []any{runID}
	if kind != "" {
		q, args = q+` AND kind = ?`, append(args, kind)
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY kind, seq`, args...)
	if err != nil {
		return fmt.Errorf("records of run %d: %w", runID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var r store.Record
		var body string
		if err := rows.Scan(&r.Kind, &r.Key, &r.CallKey, &body); err != nil {
			return fmt.Errorf("records of run %d: %w", runID, err)
		}
		r.Body = json.RawMessage(body)
		if err := fn(r); err != nil {
			return err
		}
	}
	return rows.Err()
}
