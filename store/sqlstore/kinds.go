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
	set := make([]store.Record, len(recs))
	for i, r := range recs {
		r.Kind = kind
		set[i] = r
	}
	return s.putKinds(ctx, runID, []string{kind}, set)
}

// PutRecordKinds replaces, in one transaction, a run's records of every
// kind named with recs (each record names its Kind, one of them), in their
// order: a run's records of several kinds (a setup and its lines) are
// written whole or not at all, and a kind named without records is
// emptied.
func (s *Store) PutRecordKinds(ctx context.Context, runID int64, kinds []string, recs []store.Record) error {
	named := map[string]bool{}
	for _, k := range kinds {
		if k == "" {
			return fmt.Errorf("put records of run %d: no kind", runID)
		}
		named[k] = true
	}
	for i, r := range recs {
		if !named[r.Kind] {
			return fmt.Errorf("put record %d of run %d: its kind %q is not among %q", i+1, runID, r.Kind, kinds)
		}
	}
	return s.putKinds(ctx, runID, kinds, recs)
}

func (s *Store) putKinds(ctx context.Context, runID int64, kinds []string, recs []store.Record) error {
	return s.write(context.WithoutCancel(ctx), func(tx Tx) error {
		if err := bumpRecords(tx, runID); err != nil {
			return err
		}
		for _, kind := range kinds {
			if _, err := tx.Exec(`DELETE FROM records WHERE run_id = ? AND kind = ?`, runID, kind); err != nil {
				return fmt.Errorf("replace %s records of run %d: %w", kind, runID, err)
			}
		}
		ins, err := tx.Prepare(`INSERT INTO records (run_id, kind, seq, rec_key, call_key, body) VALUES (?,?,?,?,?,?)
			ON CONFLICT(run_id, kind, rec_key) DO UPDATE SET call_key = excluded.call_key, body = excluded.body`)
		if err != nil {
			return err
		}
		defer ins.Close()
		seq := map[string]int{}
		for _, r := range recs {
			seq[r.Kind]++
			if r.Key == "" {
				return fmt.Errorf("put %s record %d of run %d: no key", r.Kind, seq[r.Kind], runID)
			}
			if !json.Valid(r.Body) {
				return fmt.Errorf("put %s record %s of run %d: its body is not JSON", r.Kind, r.Key, runID)
			}
			if _, err := ins.Exec(runID, r.Kind, seq[r.Kind], r.Key, nullIfEmpty(r.CallKey), string(r.Body)); err != nil {
				return fmt.Errorf("put %s record %s of run %d: %w", r.Kind, r.Key, runID, err)
			}
		}
		return nil
	})
}

// Records calls fn with a run's records of one kind ("": every kind, by
// kind), in the order they were written, each with the answer of the call
// it names.
func (s *Store) Records(ctx context.Context, runID int64, kind string, fn func(store.Record) error) error {
	q, args := `SELECT r.kind, r.rec_key, COALESCE(r.call_key, ''), r.body, COALESCE(`+s.d.ResponseText+`, '')
		FROM records r LEFT JOIN calls c ON c.key = r.call_key WHERE r.run_id = ?`, []any{runID}
	if kind != "" {
		q, args = q+` AND r.kind = ?`, append(args, kind)
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY r.kind, r.seq`, args...)
	if err != nil {
		return fmt.Errorf("records of run %d: %w", runID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var r store.Record
		var body string
		if err := rows.Scan(&r.Kind, &r.Key, &r.CallKey, &body, &r.Answer); err != nil {
			return fmt.Errorf("records of run %d: %w", runID, err)
		}
		r.Body = json.RawMessage(body)
		if err := fn(r); err != nil {
			return err
		}
	}
	return rows.Err()
}
