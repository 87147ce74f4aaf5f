package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/fallacylab/fallacylab/store"
)

// ClaimCall claims key for owner for lease, before owner pays for the
// call: true when owner now holds it (a new claim, its own renewed, or
// another owner's whose lease ran out, taken over), false while another
// owner's claim is live. One statement, so two processes can never both
// hold a key.
func (s *Store) ClaimCall(ctx context.Context, key, owner string, lease time.Duration) (bool, error) {
	now := time.Now().UnixMilli()
	res, err := s.execOne(ctx, `INSERT INTO call_claims (key, owner, expires) VALUES (?, ?, ?)
		ON CONFLICT(key) DO UPDATE SET owner = excluded.owner, expires = excluded.expires
		WHERE call_claims.owner = excluded.owner OR call_claims.expires < ?`, key, owner, now+lease.Milliseconds(), now)
	if err != nil {
		return false, fmt.Errorf("claim call %s: %w", key, err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// RenewClaims extends every claim of owner by lease from now.
func (s *Store) RenewClaims(ctx context.Context, owner string, lease time.Duration) error {
	if _, err := s.execOne(ctx, `UPDATE call_claims SET expires = ? WHERE owner = ?`, time.Now().UnixMilli()+lease.Milliseconds(), owner); err != nil {
		return fmt.Errorf("renew claims: %w", err)
	}
	return nil
}

// ReleaseClaim gives up owner's claim on key (its call was abandoned).
func (s *Store) ReleaseClaim(ctx context.Context, key, owner string) error {
	if _, err := s.execOne(ctx, `DELETE FROM call_claims WHERE key = ? AND owner = ?`, key, owner); err != nil {
		return fmt.Errorf("release claim on %s: %w", key, err)
	}
	return nil
}

// PutAnswer stores a call's outcome like PutCall and returns what the cache
// holds for its key afterwards: the call itself, or — when an answer was
// stored first (by another process that paid for the same key) — that
// earlier answer, which is never replaced. Records read their text from
// the cache, so a caller that goes on with the returned answer (a judge of
// this generation) uses the text its records will show. Any claim on the
// key ends with it.
//
// Every attempt sent at the key counts once in the stored call's attempts
// and cost, whoever stores first: in the same transaction, the attempts
// other processes marked sent and never stored (a process killed with the
// call in flight, or one still waiting for a slow answer after its claim
// ran out) count in this outcome's at its cost, and their marks end — a
// process that stores later finds its mark gone and adds nothing; and this
// call's own attempts count in an answer stored first while its mark says
// nobody counted them. A call without Owner adds nothing to an answer
// stored first: no mark tells a new attempt from a result stored again (a
// batch's results collected once more on resume). A returned call of one's
// own carries the attempts and cost it counted.
func (s *Store) PutAnswer(ctx context.Context, c store.Call) (store.Call, error) {
	where := `WHERE calls.status <> 'ok'`
	if c.Replace && c.Status == store.StatusOK {
		where = ``
	}
	var put store.Call
	kept := false
	err := s.write(ctx, func(tx Tx) error {
		others, own, err := marks(tx, c)
		if err != nil {
			return err
		}
		put = withAttempts(c, true, others)
		args, err := CallValues(put)
		if err != nil {
			return err
		}
		res, err := tx.Exec(insertCall+`
			ON CONFLICT(key) DO UPDATE SET response=excluded.response, status=excluded.status, error=excluded.error,
			  attempts=calls.attempts+excluded.attempts, input_tokens=excluded.input_tokens, output_tokens=excluded.output_tokens,
			  reasoning_tokens=excluded.reasoning_tokens, cost=excluded.cost, latency_ms=excluded.latency_ms,
			  batch_id=excluded.batch_id, created_at=excluded.created_at
			`+where, args...)
		if err != nil {
			return fmt.Errorf("put call %s: %w", c.Key, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if kept = n == 0; kept {
			// An answer was there first: what this outcome sent that
			// nobody counted yet counts in it.
			if err := addAttempts(tx, withAttempts(c, own, others)); err != nil {
				return err
			}
		}
		if c.RunID != 0 {
			if err := linkRun(tx, c.RunID, c.Key, c.Job, false); err != nil {
				return fmt.Errorf("link call %s to run %d: %w", c.Key, c.RunID, err)
			}
		}
		if _, err := tx.Exec(`DELETE FROM call_claims WHERE key = ?`, c.Key); err != nil {
			return fmt.Errorf("end claim on %s: %w", c.Key, err)
		}
		return nil
	})
	if err != nil || !kept {
		return put, err
	}
	stored, ok, err := s.GetCall(ctx, c.Key)
	if err != nil || !ok {
		return put, err
	}
	return stored, nil
}

// marks ends the sending of c's key — its outcome is stored and every
// attempt at it counted: none is in flight any more — and returns the
// attempts other processes had marked sent and never stored, and whether
// c's owner's own mark was there (never, without Owner). It counts the
// marks it deletes, in one statement, so a mark made meanwhile is either
// counted here or left for its owner to count.
func marks(tx Tx, c store.Call) (others int, own bool, err error) {
	rows, err := tx.Query(`DELETE FROM sent_calls WHERE key = ? RETURNING owner, attempts`, c.Key)
	if err != nil {
		return 0, false, fmt.Errorf("end the sending of %s: %w", c.Key, err)
	}
	defer rows.Close()
	for rows.Next() {
		var owner string
		var n int
		if err := rows.Scan(&owner, &n); err != nil {
			return 0, false, fmt.Errorf("end the sending of %s: %w", c.Key, err)
		}
		switch {
		case c.Owner == "": // no process's call: the marks end uncounted
		case owner == c.Owner:
			own = true
		default:
			others += n
		}
	}
	if err := rows.Err(); err != nil {
		return 0, false, fmt.Errorf("end the sending of %s: %w", c.Key, err)
	}
	return others, own, nil
}

// withAttempts is c counting its own attempts (when mine) and others'
// (each at c's cost, which is what those calls most likely cost).
func withAttempts(c store.Call, mine bool, others int) store.Call {
	n, paid := others, others
	if mine {
		n, paid = n+c.Attempts, paid+1
	}
	if c.Cost != nil && paid != 1 {
		cost := *c.Cost * float64(paid)
		c.Cost = &cost
	}
	c.Attempts = n
	return c
}

// addAttempts adds c's attempts and cost to the call stored at its key.
func addAttempts(tx Tx, c store.Call) error {
	if c.Attempts == 0 && (c.Cost == nil || *c.Cost == 0) {
		return nil
	}
	add := `UPDATE calls SET attempts = attempts + ? WHERE key = ?`
	args := []any{c.Attempts, c.Key}
	if c.Cost != nil {
		add = `UPDATE calls SET attempts = attempts + ?, cost = COALESCE(cost, 0) + ? WHERE key = ?`
		args = []any{c.Attempts, *c.Cost, c.Key}
	}
	if _, err := tx.Exec(add, args...); err != nil {
		return fmt.Errorf("count the attempts at %s: %w", c.Key, err)
	}
	return nil
}

// ClaimOwner is the owner of key's claim ("": nobody holds one).
func (s *Store) ClaimOwner(ctx context.Context, key string) (string, error) {
	var owner string
	err := s.db.QueryRowContext(ctx, `SELECT owner FROM call_claims WHERE key = ?`, key).Scan(&owner)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("claim on %s: %w", key, err)
	}
	return owner, nil
}

// TakeClaim takes key's claim over from from — an owner known to be dead —
// for owner, for lease: false when from no longer holds it.
func (s *Store) TakeClaim(ctx context.Context, key, from, owner string, lease time.Duration) (bool, error) {
	res, err := s.execOne(ctx, `UPDATE call_claims SET owner = ?, expires = ? WHERE key = ? AND owner = ?`,
		owner, time.Now().UnixMilli()+lease.Milliseconds(), key, from)
	if err != nil {
		return false, fmt.Errorf("take claim on %s over: %w", key, err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// MarkSent records, just before the request goes out, that owner sends
// key's call for run runID, usd being the most it may cost: kept until the
// call's outcome is stored (PutAnswer), so the marks of a process killed
// with calls in flight stay, and the run's spend counts them (RunSpend).
func (s *Store) MarkSent(ctx context.Context, key, owner string, runID int64, usd float64) error {
	if _, err := s.execOne(ctx, `INSERT INTO sent_calls (key, owner, run_id, attempts, usd) VALUES (?, ?, ?, 1, ?)
		ON CONFLICT (key, owner) DO UPDATE SET attempts = sent_calls.attempts + 1, usd = sent_calls.usd + excluded.usd`,
		key, owner, runID, usd); err != nil {
		return fmt.Errorf("mark %s as sent: %w", key, err)
	}
	return nil
}
