package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/fallacylab/fallacylab/store"
)

// StartRun inserts a run in status "running" and returns its id.
func (s *Store) StartRun(ctx context.Context, r store.Run) (int64, error) {
	if len(r.Config) == 0 {
		r.Config = json.RawMessage("{}")
	}
	var id int64
	err := s.write(ctx, func(tx Tx) error {
		t := now()
		err := tx.QueryRow(`INSERT INTO runs (name, benchmark, config, version, started_at, status, fingerprint, pid, host, heartbeat_at)
			VALUES (?,?,?,?,?,?,?,?,?,?) RETURNING id`,
			r.Name, r.Benchmark, string(r.Config), r.Version, t, store.RunRunning, r.Fingerprint, r.PID, r.Host, t).Scan(&id)
		if err != nil {
			return fmt.Errorf("start run: %w", err)
		}
		return err
	})
	return id, err
}

// FinishRun sets a run's final status and end time.
func (s *Store) FinishRun(ctx context.Context, id int64, status string) error {
	return s.EndRun(ctx, id, status, "")
}

// EndRun sets a run's final status, the reason for it and the end time.
func (s *Store) EndRun(ctx context.Context, id int64, status, reason string) error {
	return s.write(ctx, func(tx Tx) error {
		_, err := tx.Exec(`UPDATE runs SET status = ?, reason = ?, ended_at = ? WHERE id = ?`, status, reason, now(), id)
		if err != nil {
			return fmt.Errorf("finish run %d: %w", id, err)
		}
		return nil
	})
}

// ResumeRun gives a run that ended without finishing to a new owner: it is
// running again, with no end time or reason.
func (s *Store) ResumeRun(ctx context.Context, id int64, pid int, host string) error {
	return s.write(ctx, func(tx Tx) error {
		_, err := tx.Exec(`UPDATE runs SET status = ?, reason = '', ended_at = NULL, pid = ?, host = ?, heartbeat_at = ? WHERE id = ?`,
			store.RunRunning, pid, host, now(), id)
		if err != nil {
			return fmt.Errorf("resume run %d: %w", id, err)
		}
		return nil
	})
}

// Heartbeat records that a running run's owner is alive.
func (s *Store) Heartbeat(ctx context.Context, id int64) error {
	return s.write(ctx, func(tx Tx) error {
		_, err := tx.Exec(`UPDATE runs SET heartbeat_at = ? WHERE id = ?`, now(), id)
		return err
	})
}

// RunByFingerprint returns the newest run made by the command with that
// fingerprint; ok is false when there is none.
func (s *Store) RunByFingerprint(ctx context.Context, fingerprint string) (store.Run, bool, error) {
	runs, err := s.runs(ctx, `WHERE r.fingerprint = ? AND r.fingerprint != ''`, fingerprint)
	if err != nil || len(runs) == 0 {
		return store.Run{}, false, err
	}
	return runs[0], true, nil
}

// Runs lists runs, newest first.
func (s *Store) Runs(ctx context.Context) ([]store.Run, error) {
	return s.runs(ctx, "")
}

func (s *Store) runs(ctx context.Context, where string, args ...any) ([]store.Run, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT r.id, r.name, r.benchmark, r.config, r.version, r.started_at,
		COALESCE(r.ended_at,''), r.status, COALESCE(t.calls,0), COALESCE(t.cached,0),
		r.fingerprint, r.pid, r.host, COALESCE(r.heartbeat_at,''), r.reason, r.records_version
		FROM runs r LEFT JOIN run_totals t ON t.run_id = r.id `+where+` ORDER BY r.id DESC`, args...)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	defer rows.Close()
	var out []store.Run
	for rows.Next() {
		var r store.Run
		var cfg, started, ended, beat string
		if err := rows.Scan(&r.ID, &r.Name, &r.Benchmark, &cfg, &r.Version, &started, &ended, &r.Status, &r.Calls, &r.Cached,
			&r.Fingerprint, &r.PID, &r.Host, &beat, &r.Reason, &r.RecordsVersion); err != nil {
			return nil, err
		}
		r.Heartbeat, _ = time.Parse(time.RFC3339Nano, beat)
		r.Config = json.RawMessage(cfg)
		r.Started, _ = time.Parse(time.RFC3339Nano, started)
		r.Ended, _ = time.Parse(time.RFC3339Nano, ended)
		out = append(out, r)
	}
	return out, rows.Err()
}

// DeleteRun removes a run, its records (labels) and its links to calls. The
// calls stay in the cache: other runs may use them, and re-running the
// command answers from them. A run that human studies annotate is refused
// (store.ErrHasStudies, naming how many studies and answers) unless
// withStudies; then they go with it, counted in what it returns. The count
// and the delete are one transaction: an answer saved meanwhile is never
// deleted uncounted.
func (s *Store) DeleteRun(ctx context.Context, id int64, withStudies bool) (store.Deleted, error) {
	var d store.Deleted
	err := s.write(ctx, func(tx Tx) error {
		d = store.Deleted{}
		if err := tx.QueryRow(`SELECT (SELECT count(*) FROM studies WHERE run_id = ?),
			(SELECT count(*) FROM annotations WHERE study_id IN (SELECT id FROM studies WHERE run_id = ?))`, id, id).Scan(&d.Studies, &d.Annotations); err != nil {
			return fmt.Errorf("delete run %d: count its studies: %w", id, err)
		}
		if d.Studies > 0 && !withStudies {
			return fmt.Errorf("delete run %d: %w (%s with %s)", id, store.ErrHasStudies, plural(d.Studies, "study", "studies"), plural(d.Annotations, "answer", "answers"))
		}
		for _, q := range []string{`DELETE FROM labels WHERE run_id = ?`, `DELETE FROM run_calls WHERE run_id = ?`,
			`DELETE FROM run_phases WHERE run_id = ?`,
			`DELETE FROM record_snapshots WHERE run_id = ?`,
			`DELETE FROM run_max_spend WHERE run_id = ?`, `DELETE FROM sent_calls WHERE run_id = ?`, `DELETE FROM records WHERE run_id = ?`,
			`DELETE FROM annotations WHERE study_id IN (SELECT id FROM studies WHERE run_id = ?)`, `DELETE FROM studies WHERE run_id = ?`, `DELETE FROM runs WHERE id = ?`} {
			if _, err := tx.Exec(q, id); err != nil {
				return fmt.Errorf("delete run %d: %w", id, err)
			}
		}
		return nil
	})
	if err != nil {
		return store.Deleted{}, err
	}
	return d, nil
}

// plural is "1 study" or "3 studies".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
