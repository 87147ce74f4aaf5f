package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/fallacylab/fallacylab/store"
)

// A run's records are rows of one table (migration 009), each under the
// kind a Task declares and its key within the kind, with the Task's own
// JSON: the store knows no benchmark. A record made from a model call
// names the call, whose answer the calls table keeps once and a read joins
// back. Beside them, a Task may keep a snapshot per kind (record_snapshots,
// migration 006): bytes in its own encoding, written in the same
// transaction as the records, dropped whenever they are written without
// one.

// PutRecords replaces a run's records of one kind with recs, in their
// order, in one transaction that moves the run's records version on. A
// key given twice keeps its last record, in the first one's place.
func (s *Store) PutRecords(ctx context.Context, runID int64, kind string, recs []store.Record) error {
	if kind == "" {
		return fmt.Errorf("put records of run %d: no kind", runID)
	}
	set := make([]store.Record, len(recs))
	for i, r := range recs {
		r.Kind = kind
		set[i] = r
	}
	return s.PutRecordSet(ctx, runID, store.RecordSetOf([]string{kind}, set))
}

// PutRecordKinds replaces, in one transaction, a run's records of every
// kind named with recs (each record names its Kind, one of them), in their
// order: a run's records of several kinds (a setup and its lines) are
// written whole or not at all, and a kind named without records is
// emptied.
func (s *Store) PutRecordKinds(ctx context.Context, runID int64, kinds []string, recs []store.Record) error {
	return s.PutRecordSet(ctx, runID, store.RecordSetOf(kinds, recs))
}

// PutRecordSet writes set in one transaction (store.RecordSet): the run's
// records of its kinds replaced by its records, in their order (a key
// given twice keeps its last record in the first one's place), its
// snapshots in place of the kinds' old ones, and the run's records version
// moved on. Records are inserted many rows per statement.
func (s *Store) PutRecordSet(ctx context.Context, runID int64, set store.RecordSet) error {
	named := map[string]bool{}
	for _, k := range set.Kinds {
		if k == "" {
			return fmt.Errorf("put records of run %d: no kind", runID)
		}
		named[k] = true
	}
	for _, sn := range set.Snapshots {
		if !named[sn.Kind] {
			return fmt.Errorf("put records of run %d: a snapshot of %q, not among %q", runID, sn.Kind, set.Kinds)
		}
	}
	return s.write(context.WithoutCancel(ctx), func(tx Tx) error {
		if err := bumpRecords(tx, runID); err != nil {
			return err
		}
		for _, kind := range set.Kinds {
			if _, err := tx.Exec(`DELETE FROM records WHERE run_id = ? AND kind = ?`, runID, kind); err != nil {
				return fmt.Errorf("replace %s records of run %d: %w", kind, runID, err)
			}
			if _, err := tx.Exec(`DELETE FROM record_snapshots WHERE run_id = ? AND kind = ?`, runID, kind); err != nil {
				return fmt.Errorf("replace %s snapshot of run %d: %w", kind, runID, err)
			}
		}
		if err := s.putRecordRows(tx, runID, named, set.Records); err != nil {
			return err
		}
		for _, sn := range set.Snapshots {
			data, err := sn.Data()
			if err != nil {
				return fmt.Errorf("%s snapshot of run %d: %w", sn.Kind, runID, err)
			}
			if data == nil {
				continue
			}
			if _, err := tx.Exec(`INSERT INTO record_snapshots (run_id, kind, format, data) VALUES (?, ?, ?, ?)`,
				runID, sn.Kind, sn.Format, data); err != nil {
				return fmt.Errorf("%s snapshot of run %d: %w", sn.Kind, runID, err)
			}
		}
		return nil
	})
}

// putRecordRows inserts what records yields, rowsPerInsert at a time. The
// records are made and checked on another goroutine (a Task's encoding of
// 72,000 records, say) while the batches before are inserted on this one.
// A key repeated within a batch is merged there (PostgreSQL refuses a row
// twice in one upsert), across batches by the upsert.
func (s *Store) putRecordRows(tx Tx, runID int64, named map[string]bool, records func(put func(store.Record) error) error) error {
	if records == nil {
		return nil
	}
	type row struct {
		r   store.Record
		seq int
	}
	batches := make(chan []row, 4)
	stop := make(chan struct{})
	var made error // set before batches is closed
	go func() {
		defer close(batches)
		seq := map[string]int{}
		at := map[[2]string]int{}
		batch := make([]row, 0, rowsPerInsert)
		send := func() bool {
			select {
			case batches <- batch:
			case <-stop:
				return false
			}
			batch = make([]row, 0, rowsPerInsert)
			clear(at)
			return true
		}
		errStopped := errors.New("stopped")
		made = records(func(r store.Record) error {
			if !named[r.Kind] {
				return fmt.Errorf("put record of run %d: its kind %q is not among those written", runID, r.Kind)
			}
			seq[r.Kind]++
			if r.Key == "" {
				return fmt.Errorf("put %s record %d of run %d: no key", r.Kind, seq[r.Kind], runID)
			}
			if !json.Valid(r.Body) {
				return fmt.Errorf("put %s record %s of run %d: its body is not JSON", r.Kind, r.Key, runID)
			}
			k := [2]string{r.Kind, r.Key}
			if i, ok := at[k]; ok {
				batch[i].r = r
				return nil
			}
			at[k] = len(batch)
			batch = append(batch, row{r, seq[r.Kind]})
			if len(batch) == rowsPerInsert && !send() {
				return errStopped
			}
			return nil
		})
		if made == nil && len(batch) > 0 && !send() {
			made = errStopped
		}
	}()
	ins := newInserter(tx, `INSERT INTO records (run_id, kind, seq, rec_key, call_key, body) VALUES `, 6,
		` ON CONFLICT(run_id, kind, rec_key) DO UPDATE SET call_key = excluded.call_key, body = excluded.body`)
	defer ins.close()
	for batch := range batches {
		err := ins.insert(len(batch), func(i int, args []any) []any {
			b := batch[i]
			return append(args, runID, b.r.Kind, b.seq, b.r.Key, nullIfEmpty(b.r.CallKey), string(b.r.Body))
		}, func(i int) string { return batch[i].r.Kind + " record " + batch[i].r.Key })
		if err != nil {
			close(stop)
			for range batches { // the maker stops at its next batch
			}
			return err
		}
	}
	return made
}

// recordSelect reads records r joined to their calls c (scanRecords).
func (s *Store) recordSelect() string {
	return `SELECT r.kind, r.rec_key, COALESCE(r.call_key, ''), r.body, COALESCE(` + s.d.ResponseText + `, ''),
		CASE WHEN r.call_key IS NOT NULL AND c.key IS NULL THEN 1 ELSE 0 END FROM records r LEFT JOIN calls c ON c.key = r.call_key WHERE r.run_id = ?`
}

// scanRecords calls fn with each row's record.
func scanRecords(rows *sql.Rows, runID int64, fn func(store.Record) error) error {
	defer rows.Close()
	for rows.Next() {
		var r store.Record
		var body string
		var missing int
		if err := rows.Scan(&r.Kind, &r.Key, &r.CallKey, &body, &r.Answer, &missing); err != nil {
			return fmt.Errorf("records of run %d: %w", runID, err)
		}
		r.CallMissing = missing != 0
		r.Body = json.RawMessage(body)
		if err := fn(r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Records calls fn with a run's records of one kind ("": every kind, by
// kind), in the order they were written, each with the answer of the call
// it names.
func (s *Store) Records(ctx context.Context, runID int64, kind string, fn func(store.Record) error) error {
	q, args := s.recordSelect(), []any{runID}
	if kind != "" {
		q, args = q+` AND r.kind = ?`, append(args, kind)
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY r.kind, r.seq`, args...)
	if err != nil {
		return fmt.Errorf("records of run %d: %w", runID, err)
	}
	return scanRecords(rows, runID, fn)
}

// keysPerQuery is how many keys one RecordsByKey query asks for.
const keysPerQuery = 500

// RecordsByKey calls fn with the run's records of kind whose keys are
// among keys (a key it lacks is skipped), in the order they were written
// within each query of keysPerQuery keys.
func (s *Store) RecordsByKey(ctx context.Context, runID int64, kind string, keys []string, fn func(store.Record) error) error {
	for lo := 0; lo < len(keys); lo += keysPerQuery {
		part := keys[lo:min(len(keys), lo+keysPerQuery)]
		args := []any{runID, kind}
		for _, k := range part {
			args = append(args, k)
		}
		rows, err := s.db.QueryContext(ctx, s.recordSelect()+` AND r.kind = ? AND r.rec_key IN (`+
			strings.TrimSuffix(strings.Repeat("?,", len(part)), ",")+`) ORDER BY r.seq`, args...)
		if err != nil {
			return fmt.Errorf("records of run %d: %w", runID, err)
		}
		if err := scanRecords(rows, runID, fn); err != nil {
			return err
		}
	}
	return nil
}

// Snapshot reads a run's snapshot of kind in format; ok is false when it
// has none of that format.
func (s *Store) Snapshot(ctx context.Context, runID int64, kind string, format int) (data []byte, ok bool, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT data FROM record_snapshots WHERE run_id = ? AND kind = ? AND format = ?`, runID, kind, format).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("%s snapshot of run %d: %w", kind, runID, err)
	}
	return data, true, nil
}

// Snapshots calls fn with each of a run's snapshots (store copy).
func (s *Store) Snapshots(ctx context.Context, runID int64, fn func(kind string, format int, data []byte) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT kind, format, data FROM record_snapshots WHERE run_id = ? ORDER BY kind`, runID)
	if err != nil {
		return fmt.Errorf("snapshots of run %d: %w", runID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind string
		var format int
		var data []byte
		if err := rows.Scan(&kind, &format, &data); err != nil {
			return fmt.Errorf("snapshots of run %d: %w", runID, err)
		}
		if err := fn(kind, format, data); err != nil {
			return err
		}
	}
	return rows.Err()
}

// bumpRecords moves a run's records version on, in the transaction that
// writes its records.
func bumpRecords(tx Tx, runID int64) error {
	if _, err := tx.Exec(`UPDATE runs SET records_version = records_version + 1 WHERE id = ?`, runID); err != nil {
		return fmt.Errorf("records version of run %d: %w", runID, err)
	}
	return nil
}

// CountRecords is how many records of every kind a run has (labels
// included): it changes whenever a phase stores its records.
func (s *Store) CountRecords(ctx context.Context, runID int64) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM labels WHERE run_id = ?1) + (SELECT COUNT(*) FROM records WHERE run_id = ?1)`, runID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("records of run %d: %w", runID, err)
	}
	return n, nil
}
