package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/maphash"
)

// upserted is what an upsert of rows leaves in a table, in the order it is
// read back: a row whose key came before replaces that row's values, in
// its place. The stores write its result, so that neither relies on its
// SQL for rows repeated within one write (PostgreSQL refuses them in one
// statement). Keys are first told apart by a hash: rows whose hashes all
// differ, as almost all do, cost one map of integers.
func upserted[T any](rows []T, key func(*T) [2]string) []T {
	seed := maphash.MakeSeed()
	seen := make(map[uint64]struct{}, len(rows))
	for i := range rows {
		k := key(&rows[i])
		h := maphash.String(seed, k[0]) ^ (maphash.String(seed, k[1]) * 0x9e3779b97f4a7c15)
		if _, ok := seen[h]; ok {
			return upsertedSlow(rows, key)
		}
		seen[h] = struct{}{}
	}
	return rows
}

func upsertedSlow[T any, K comparable](rows []T, key func(*T) K) []T {
	at := make(map[K]int, len(rows))
	out := make([]T, 0, len(rows))
	for i := range rows {
		k := key(&rows[i])
		if j, ok := at[k]; ok {
			out[j] = rows[i]
			continue
		}
		at[k] = len(out)
		out = append(out, rows[i])
	}
	return out
}

// pending is a snapshot being encoded.
type pending struct {
	done chan struct{}
	data []byte
	err  error
}

// encodeLater encodes on another goroutine.
func encodeLater(encode func() ([]byte, error)) *pending {
	p := &pending{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.data, p.err = encode()
	}()
	return p
}

// wait is the encoding, once done (any number of times: a write is tried
// again after a busy store).
func (p *pending) wait() ([]byte, error) {
	<-p.done
	return p.data, p.err
}

// encodeSnapshot gob-encodes v, of about size bytes.
func encodeSnapshot(v any, size int) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(size + size/8 + 4096)
	if err := gob.NewEncoder(&b).Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func decodeSnapshot(data []byte, v any) error {
	return gob.NewDecoder(bytes.NewReader(data)).Decode(v)
}

// putSnapshot stores the snapshot of kind, or, where the records cannot
// have one (errNoSnapshot, or too large), removes the one stored before:
// the rows are then read.
func putSnapshot(tx Tx, runID int64, kind string, data []byte, err error) error {
	if err != nil {
		if _, derr := tx.Exec(`DELETE FROM record_snapshots WHERE run_id = ? AND kind = ?`, runID, kind); derr != nil {
			return fmt.Errorf("snapshot of run %d: %w", runID, derr)
		}
		return nil
	}
	if _, err := tx.Exec(`INSERT INTO record_snapshots (run_id, kind, format, data) VALUES (?, ?, ?, ?)
		ON CONFLICT(run_id, kind) DO UPDATE SET format = excluded.format, data = excluded.data`, runID, kind, snapshotFormat, data); err != nil {
		return fmt.Errorf("snapshot of run %d: %w", runID, err)
	}
	return nil
}

// readSnapshot decodes a run's snapshot of kind (its records, what, for
// errors); ok is false when it has none of this format.
func readSnapshot[T any](ctx context.Context, s *Store, runID int64, kind, what string, decode func([]byte) ([]T, error)) ([]T, bool, error) {
	data, ok, err := s.snapshot(ctx, runID, kind)
	if err != nil || !ok {
		return nil, false, err
	}
	out, err := decode(data)
	if err != nil {
		return nil, false, fmt.Errorf("%s of run %d: snapshot: %w", what, runID, err)
	}
	return out, true, nil
}

// snapshot reads a run's snapshot of kind; ok is false when there is none
// of this format.
func (s *Store) snapshot(ctx context.Context, runID int64, kind string) (data []byte, ok bool, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT data FROM record_snapshots WHERE run_id = ? AND kind = ? AND format = ?`, runID, kind, snapshotFormat).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("snapshot of run %d: %w", runID, err)
	}
	return data, true, nil
}

// BackfillSnapshots gives the runs stored before snapshots existed
// (migration 006) theirs: each kind of records a run has rows of but no
// snapshot for is read from the rows and its snapshot written, unless the
// run's records were written again meanwhile (they then have their own). A
// run whose rows cannot be read keeps being read from them. It returns how
// many snapshots it wrote; the stores call it once, when they apply
// migration 006.
func (s *Store) BackfillSnapshots(ctx context.Context) (int, error) {
	written := 0
	for _, k := range []struct{ kind, table string }{{snapGenerations, "generations"}, {snapJudgements, "judgements"}} {
		rows, err := s.db.QueryContext(ctx, `SELECT r.id, r.records_version FROM runs r
			WHERE EXISTS (SELECT 1 FROM `+k.table+` t WHERE t.run_id = r.id)
			AND NOT EXISTS (SELECT 1 FROM record_snapshots p WHERE p.run_id = r.id AND p.kind = ?) ORDER BY r.id`, k.kind)
		if err != nil {
			return written, fmt.Errorf("snapshots to write: %w", err)
		}
		var runs [][2]int64
		for rows.Next() {
			var id, version int64
			if err := rows.Scan(&id, &version); err != nil {
				rows.Close()
				return written, fmt.Errorf("snapshots to write: %w", err)
			}
			runs = append(runs, [2]int64{id, version})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return written, fmt.Errorf("snapshots to write: %w", err)
		}
		for _, r := range runs {
			var data []byte
			var encErr error
			if k.kind == snapGenerations {
				gens, err := s.generationsWhere(ctx, r[0], false, nil)
				if err != nil {
					continue
				}
				data, encErr = encodeGenerations(gens)
			} else {
				evals, err := s.judgementScores(ctx, r[0])
				if err != nil {
					continue
				}
				data, encErr = encodeJudgements(evals)
			}
			wrote := false
			err := s.write(ctx, func(tx Tx) error {
				var version int64
				switch err := tx.QueryRow(`SELECT records_version FROM runs WHERE id = ?`, r[0]).Scan(&version); {
				case errors.Is(err, sql.ErrNoRows):
					return nil // gone meanwhile
				case err != nil:
					return err
				case version != r[1]:
					return nil // written again meanwhile, with its own snapshot
				}
				wrote = encErr == nil
				return putSnapshot(tx, r[0], k.kind, data, encErr)
			})
			if err != nil {
				return written, fmt.Errorf("snapshot of run %d: %w", r[0], err)
			}
			if wrote {
				written++
			}
		}
	}
	return written, nil
}
