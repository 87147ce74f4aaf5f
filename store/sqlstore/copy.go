package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/store"
)

// callCols are the columns scanCall reads, in its order.
const callCols = `c.key, c.namespace, c.provider, c.model, c.request, COALESCE(c.response,''), c.status, COALESCE(c.error,''),
	c.attempts, c.input_tokens, c.output_tokens, c.reasoning_tokens, c.cost, c.latency_ms, COALESCE(c.batch_id,''), c.created_at`

// scanCall reads a row of pre's columns followed by callCols.
func scanCall(rows *sql.Rows, c *store.Call, pre ...any) error {
	var req, resp, created string
	var cost sql.NullFloat64
	var latMS int64
	dest := append(pre, &c.Key, &c.Namespace, &c.Provider, &c.Model, &req, &resp, &c.Status, &c.Error, &c.Attempts,
		&c.Usage.InputTokens, &c.Usage.OutputTokens, &c.Usage.ReasoningTokens, &cost, &latMS, &c.BatchID, &created)
	if err := rows.Scan(dest...); err != nil {
		return err
	}
	c.Request = json.RawMessage(req)
	c.Response = nil
	if resp != "" {
		var r llm.Response
		if err := json.Unmarshal([]byte(resp), &r); err != nil {
			return fmt.Errorf("call %s: stored response unreadable: %w", c.Key, err)
		}
		c.Response = &r
	}
	c.Cost = nil
	if cost.Valid {
		c.Cost = &cost.Float64
	}
	c.Latency = time.Duration(latMS) * time.Millisecond
	c.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
	return nil
}

// Calls calls fn with every call in the cache — answers and errors — by key.
func (s *Store) Calls(ctx context.Context, fn func(store.Call) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT `+callCols+` FROM calls c ORDER BY c.key`)
	if err != nil {
		return fmt.Errorf("list calls: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c store.Call
		if err := scanCall(rows, &c); err != nil {
			return fmt.Errorf("list calls: %w", err)
		}
		if err := fn(c); err != nil {
			return err
		}
	}
	return rows.Err()
}

// CopyCalls stores calls exactly as given, answers and errors, each in place
// of a stored call with its key, in one transaction (store copy).
func (s *Store) CopyCalls(ctx context.Context, calls []store.Call) (added int, err error) {
	err = s.write(ctx, func(tx Tx) error {
		added = 0
		for _, c := range calls {
			args, err := CallValues(c)
			if err != nil {
				return err
			}
			res, err := tx.Exec(`DELETE FROM calls WHERE key = ?`, c.Key)
			if err != nil {
				return fmt.Errorf("copy call %s: %w", c.Key, err)
			}
			if n, err := res.RowsAffected(); err == nil && n == 0 {
				added++ // not in the store before
			}
			if _, err := tx.Exec(insertCall, args...); err != nil {
				return fmt.Errorf("copy call %s: %w", c.Key, err)
			}
		}
		return nil
	})
	return added, err
}

// ImportRun stores a run as given — name, configuration, version, times,
// status, owner and reason — under a new id, which it returns (store copy).
func (s *Store) ImportRun(ctx context.Context, r store.Run) (int64, error) {
	if len(r.Config) == 0 {
		r.Config = json.RawMessage("{}")
	}
	ts := func(t time.Time) any {
		if t.IsZero() {
			return nil
		}
		return t.UTC().Format(time.RFC3339Nano)
	}
	var id int64
	err := s.write(ctx, func(tx Tx) error {
		return tx.QueryRow(`INSERT INTO runs (name, benchmark, config, version, started_at, ended_at, status, fingerprint, pid, host, heartbeat_at, reason)
			VALUES (?,?,?,?,?,?,?,?,?,?,?,?) RETURNING id`,
			r.Name, r.Benchmark, string(r.Config), r.Version, ts(r.Started), ts(r.Ended), r.Status, r.Fingerprint, r.PID, r.Host, ts(r.Heartbeat), r.Reason).Scan(&id)
	})
	if err != nil {
		return 0, fmt.Errorf("import run %q: %w", r.Name, err)
	}
	return id, nil
}
