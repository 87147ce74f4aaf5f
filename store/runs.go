package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// Run is one invocation of a benchmark or command.
type Run struct {
	ID        int64
	Name      string
	Benchmark string
	Config    json.RawMessage // snapshot of options and config, secrets excluded
	Version   string
	Started   time.Time
	Ended     time.Time
	Status    string
	Calls     int // calls linked to the run
	Cached    int // of which answered by the cache
}

// Run statuses.
const (
	RunRunning     = "running"
	RunDone        = "done"
	RunFailed      = "failed"
	RunInterrupted = "interrupted"
)

// StartRun inserts a run in status "running" and returns its id.
func (s *Store) StartRun(ctx context.Context, r Run) (int64, error) {
	if len(r.Config) == 0 {
		r.Config = json.RawMessage("{}")
	}
	var id int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.Exec(`INSERT INTO runs (name, benchmark, config, version, started_at, status) VALUES (?,?,?,?,?,?)`,
			r.Name, r.Benchmark, string(r.Config), r.Version, now(), RunRunning)
		if err != nil {
			return fmt.Errorf("start run: %w", err)
		}
		id, err = res.LastInsertId()
		return err
	})
	return id, err
}

// FinishRun sets a run's final status and end time.
func (s *Store) FinishRun(ctx context.Context, id int64, status string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`UPDATE runs SET status = ?, ended_at = ? WHERE id = ?`, status, now(), id)
		return err
	})
}

// Runs lists runs, newest first.
func (s *Store) Runs(ctx context.Context) ([]Run, error) {
	return s.runs(ctx, "")
}

func (s *Store) runs(ctx context.Context, where string, args ...any) ([]Run, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT r.id, r.name, r.benchmark, r.config, r.version, r.started_at,
		COALESCE(r.ended_at,''), r.status, COUNT(rc.key), COALESCE(SUM(rc.cached),0)
		FROM runs r LEFT JOIN run_calls rc ON rc.run_id = r.id `+where+` GROUP BY r.id ORDER BY r.id DESC`, args...)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		var r Run
		var cfg, started, ended string
		if err := rows.Scan(&r.ID, &r.Name, &r.Benchmark, &cfg, &r.Version, &started, &ended, &r.Status, &r.Calls, &r.Cached); err != nil {
			return nil, err
		}
		r.Config = json.RawMessage(cfg)
		r.Started, _ = time.Parse(time.RFC3339Nano, started)
		r.Ended, _ = time.Parse(time.RFC3339Nano, ended)
		out = append(out, r)
	}
	return out, rows.Err()
}

// DeleteRun removes a run, its records (labels) and its links to calls. The
// calls stay in the cache: other runs may use them, and re-running the
// command answers from them.
func (s *Store) DeleteRun(ctx context.Context, id int64) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		for _, q := range []string{`DELETE FROM labels WHERE run_id = ?`, `DELETE FROM run_calls WHERE run_id = ?`, `DELETE FROM runs WHERE id = ?`} {
			if _, err := tx.Exec(q, id); err != nil {
				return fmt.Errorf("delete run %d: %w", id, err)
			}
		}
		return nil
	})
}
