package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fallacylab/fallacylab/store"

	"github.com/fallacylab/fallacylab/llm"
)

// GetCall returns the stored successful answer for key; ok is false when there
// is none (errors are not cached answers: a failed call is tried again).
func (s *Store) GetCall(ctx context.Context, key string) (store.Call, bool, error) {
	c, err := ScanCall(s.db.QueryRowContext(ctx, `SELECT `+CallColumns+` FROM calls WHERE key = ? AND status = 'ok'`, key))
	if errors.Is(err, sql.ErrNoRows) {
		return store.Call{}, false, nil
	}
	if err != nil {
		return store.Call{}, false, fmt.Errorf("get call %s: %w", key, err)
	}
	return c, true, nil
}

// getCallsChunk is the most keys one statement of GetCalls reads (SQLite
// binds at most 32,766 parameters).
const getCallsChunk = 500

// GetCalls returns the stored successful answers of keys, by key (a key
// with none is absent), reading up to getCallsChunk keys a statement.
func (s *Store) GetCalls(ctx context.Context, keys []string) (map[string]store.Call, error) {
	out := make(map[string]store.Call, len(keys))
	for len(keys) > 0 {
		chunk := keys[:min(len(keys), getCallsChunk)]
		keys = keys[len(chunk):]
		args := make([]any, len(chunk))
		for i, k := range chunk {
			args[i] = k
		}
		rows, err := s.db.QueryContext(ctx, `SELECT `+CallColumns+` FROM calls WHERE key IN (?`+strings.Repeat(`, ?`, len(chunk)-1)+`) AND status = 'ok'`, args...)
		if err != nil {
			return nil, fmt.Errorf("get %d calls: %w", len(chunk), err)
		}
		for rows.Next() {
			c, err := ScanCall(rows)
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("get call %s: %w", c.Key, err)
			}
			out[c.Key] = c
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("get %d calls: %w", len(chunk), err)
		}
	}
	return out, nil
}

// CallColumns are the columns of the calls table ScanCall reads, in its
// order.
const CallColumns = `key, namespace, provider, model, request, response, status, attempts,
		input_tokens, output_tokens, reasoning_tokens, cost, latency_ms, COALESCE(batch_id,''), created_at`

// ScanCall reads a call from a row of CallColumns (sql.ErrNoRows as the
// row's Scan returns it).
func ScanCall(row interface{ Scan(...any) error }) (store.Call, error) {
	var c store.Call
	var req, resp, created string
	var cost sql.NullFloat64
	var latMS int64
	if err := row.Scan(&c.Key, &c.Namespace, &c.Provider, &c.Model, &req, &resp, &c.Status, &c.Attempts,
		&c.Usage.InputTokens, &c.Usage.OutputTokens, &c.Usage.ReasoningTokens, &cost, &latMS, &c.BatchID, &created); err != nil {
		return store.Call{}, err
	}
	c.Request = json.RawMessage(req)
	var r llm.Response
	if err := json.Unmarshal([]byte(resp), &r); err != nil {
		return store.Call{}, fmt.Errorf("stored response unreadable: %w", err)
	}
	c.Response = &r
	if cost.Valid {
		c.Cost = &cost.Float64
	}
	c.Latency = time.Duration(latMS) * time.Millisecond
	c.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
	return c, nil
}

// PutCall stores a call; it returns once the row is committed. A successful
// answer is never overwritten (except under --cache refresh); an earlier
// error is replaced (PutAnswer, claims.go).
func (s *Store) PutCall(ctx context.Context, c store.Call) error {
	_, err := s.PutAnswer(ctx, c)
	return err
}

// ImportCalls adds successful calls made elsewhere (e.g. by `runs export` on
// another machine) to the cache in one transaction; a key already stored is
// left as it is. It returns how many calls were new.
func (s *Store) ImportCalls(ctx context.Context, calls []store.Call) (int, error) {
	added := 0
	err := s.write(ctx, func(tx Tx) error {
		added = 0
		for _, c := range calls {
			if c.Status != store.StatusOK || c.Response == nil {
				return fmt.Errorf("import call %s: only successful calls are cache answers", c.Key)
			}
			args, err := CallValues(c)
			if err != nil {
				return err
			}
			res, err := tx.Exec(insertCall+` ON CONFLICT(key) DO UPDATE SET response=excluded.response, status=excluded.status,
				error=NULL WHERE calls.status <> 'ok'`, args...)
			if err != nil {
				return fmt.Errorf("import call %s: %w", c.Key, err)
			}
			n, _ := res.RowsAffected()
			added += int(n)
		}
		return nil
	})
	return added, err
}

const insertCall = `INSERT INTO calls (key, namespace, provider, model, request, response, status, error, attempts,
	input_tokens, output_tokens, reasoning_tokens, cost, latency_ms, batch_id, created_at)
	VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`

// CallValues are the values of c's row in calls, in the column order of
// its insert (key, namespace, provider, model, request, response, status,
// error, attempts, input_tokens, output_tokens, reasoning_tokens, cost,
// latency_ms, batch_id, created_at).
func CallValues(c store.Call) ([]any, error) {
	var resp any
	if c.Response != nil {
		b, err := json.Marshal(c.Response)
		if err != nil {
			return nil, fmt.Errorf("encode response of %s: %w", c.Key, err)
		}
		resp = string(b)
	}
	var cost any
	if c.Cost != nil {
		cost = *c.Cost
	}
	var batch any
	if c.BatchID != "" {
		batch = c.BatchID
	}
	created := now()
	if !c.CreatedAt.IsZero() {
		created = c.CreatedAt.UTC().Format(time.RFC3339Nano)
	}
	return []any{c.Key, c.Namespace, c.Provider, c.Model, string(c.Request), resp, c.Status, nullIfEmpty(c.Error), c.Attempts,
		c.Usage.InputTokens, c.Usage.OutputTokens, c.Usage.ReasoningTokens, cost, c.Latency.Milliseconds(), batch, created}, nil
}

// LinkRun records that run used the call key (cached: answered by the cache).
func (s *Store) LinkRun(ctx context.Context, runID int64, key, job string, cached bool) error {
	if runID == 0 {
		return nil
	}
	_, err := s.execOne(ctx, linkRunSQL, runID, key, cached, job)
	return err
}

// linkRunSQL links a call to a run (once: a second link changes nothing).
const linkRunSQL = `INSERT INTO run_calls (run_id, key, cached, job) VALUES (?,?,?,?)
		ON CONFLICT(run_id, key) DO NOTHING`

func linkRun(tx Tx, runID int64, key, job string, cached bool) error {
	_, err := tx.Exec(linkRunSQL, runID, key, cached, job)
	return err
}

// CountCalls returns the number of stored calls with the given status ("" for all).
func (s *Store) CountCalls(ctx context.Context, status string) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM calls WHERE ? = '' OR status = ?`, status, status).Scan(&n)
	return n, err
}

// OKKeys returns the set of keys with a stored answer.
func (s *Store) OKKeys(ctx context.Context) (map[string]bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT key FROM calls WHERE status = 'ok'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		out[k] = true
	}
	return out, rows.Err()
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// CallSelection picks calls to delete from the cache (store.CallSelection).
type CallSelection = store.CallSelection

// referenced are the keys some run, record or pending batch still needs:
// every call a run made (run_calls) is its own — its spend, its calls
// count, its transcript in exports — not only those its records name (a
// MAFALDA text's record names its first sentence's call of several; a
// cleared cache rewrote a run's 21 calls and $0.0058 as 5 and $0.0013).
// A run's calls go when the run is deleted and the cache cleared after.
const referenced = `SELECT key FROM run_calls
	UNION SELECT call_key FROM records WHERE call_key IS NOT NULL
	UNION SELECT bi.key FROM batch_items bi JOIN batches b ON b.id = bi.batch_id WHERE b.status IN ('submitting', 'submitted')`

func where(sel CallSelection) (string, []any) {
	q, args := ` WHERE 1=1`, []any{}
	if !sel.Before.IsZero() {
		q += ` AND created_at < ?`
		args = append(args, sel.Before.UTC().Format(time.RFC3339Nano))
	}
	if sel.Provider != "" {
		q += ` AND provider = ?`
		args = append(args, sel.Provider)
	}
	if sel.Model != "" {
		q += ` AND model = ?`
		args = append(args, sel.Model)
	}
	return q, args
}

// CountCallsFor says how many calls (and bytes of request and answer) a
// selection holds, and how many of them runs, records or pending batches
// still reference: those are never deleted.
func (s *Store) CountCallsFor(ctx context.Context, sel CallSelection) (n int, bytes int64, kept int, err error) {
	w, args := where(sel)
	err = s.db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(LENGTH(request) + COALESCE(LENGTH(response), 0)), 0),
		COALESCE(SUM(CASE WHEN key IN (`+referenced+`) THEN 1 ELSE 0 END), 0) FROM calls`+w, args...).Scan(&n, &bytes, &kept)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("count calls: %w", err)
	}
	return n, bytes, kept, nil
}

// DeleteCalls deletes a selection's calls that no run, record or pending
// batch references, and returns how many went.
func (s *Store) DeleteCalls(ctx context.Context, sel CallSelection) (int, error) {
	w, args := where(sel)
	var n int
	err := s.write(ctx, func(tx Tx) error {
		cond := w + ` AND key NOT IN (` + referenced + `)`
		res, err := tx.Exec(`DELETE FROM calls`+cond, args...)
		if err != nil {
			return fmt.Errorf("delete calls: %w", err)
		}
		m, _ := res.RowsAffected()
		n = int(m)
		return nil
	})
	return n, err
}
