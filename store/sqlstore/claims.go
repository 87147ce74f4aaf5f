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
	var got bool
	err := s.write(ctx, func(tx Tx) error {
		res, err := tx.Exec(`INSERT INTO call_claims (key, owner, expires) VALUES (?, ?, ?)
			ON CONFLICT(key) DO UPDATE SET owner = excluded.owner, expires = excluded.expires
			WHERE call_claims.owner = excluded.owner OR call_claims.expires < ?`, key, owner, now+lease.Milliseconds(), now)
		if err != nil {
			return fmt.Errorf("claim call %s: %w", key, err)
		}
		n, err := res.RowsAffected()
		got = n > 0
		return err
	})
	return got, err
}

// RenewClaims extends every claim of owner by lease from now.
func (s *Store) RenewClaims(ctx context.Context, owner string, lease time.Duration) error {
	return s.write(ctx, func(tx Tx) error {
		if _, err := tx.Exec(`UPDATE call_claims SET expires = ? WHERE owner = ?`, time.Now().UnixMilli()+lease.Milliseconds(), owner); err != nil {
			return fmt.Errorf("renew claims: %w", err)
		}
		return nil
	})
}

// ReleaseClaim gives up owner's claim on key (its call was abandoned).
func (s *Store) ReleaseClaim(ctx context.Context, key, owner string) error {
	return s.write(ctx, func(tx Tx) error {
		if _, err := tx.Exec(`DELETE FROM call_claims WHERE key = ? AND owner = ?`, key, owner); err != nil {
			return fmt.Errorf("release claim on %s: %w", key, err)
		}
		return nil
	})
}

// PutAnswer stores a call's outcome like PutCall and returns what the cache
// holds for its key afterwards: the call itself, or — when an answer was
// stored first (by another process that paid for the same key) — that
// earlier answer, which is never replaced. Records read their text from
// the cache, so a caller that goes on with the returned answer (a judge of
// this generation) uses the text its records will show. Any claim on the
// key ends with it.
func (s *Store) PutAnswer(ctx context.Context, c store.Call) (store.Call, error) {
	args, err := callArgs(c)
	if err != nil {
		return c, err
	}
	where := `WHERE calls.status <> 'ok'`
	if c.Replace && c.Status == store.StatusOK {
		where = ``
	}
	kept := false
	err = s.write(ctx, func(tx Tx) error {
		kept = false
		res, err := tx.Exec(insertCall+`
			ON CONFLICT(key) DO UPDATE SET response=excluded.response, status=excluded.status, error=excluded.error,
			  attempts=calls.attempts+excluded.attempts, input_tokens=excluded.input_tokens, output_tokens=excluded.output_tokens,
			  reasoning_tokens=excluded.reasoning_tokens, cost=excluded.cost, latency_ms=excluded.latency_ms,
			  batch_id=excluded.batch_id, created_at=excluded.created_at
			`+where, args...)
		if err != nil {
			return fmt.Errorf("put call %s: %w", c.Key, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			kept = true // an answer was there first
		}
		if c.RunID != 0 {
			if err := linkRun(tx, c.RunID, c.Key, c.Job, false); err != nil {
				return fmt.Errorf("link call %s to run %d: %w", c.Key, c.RunID, err)
			}
		}
		if _, err := tx.Exec(`DELETE FROM call_claims WHERE key = ?`, c.Key); err != nil {
			return fmt.Errorf("end claim on %s: %w", c.Key, err)
		}
		// Its outcome is stored: no attempt at it is in flight any more
		// (those of processes that died are counted in it: SentByOthers).
		if _, err := tx.Exec(`DELETE FROM sent_calls WHERE key = ?`, c.Key); err != nil {
			return fmt.Errorf("end the sending of %s: %w", c.Key, err)
		}
		return nil
	})
	if err != nil || !kept {
		return c, err
	}
	stored, ok, err := s.GetCall(ctx, c.Key)
	if err != nil || !ok {
		return c, err
	}
	return stored, nil
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
	var got bool
	err := s.write(ctx, func(tx Tx) error {
		res, err := tx.Exec(`UPDATE call_claims SET owner = ?, expires = ? WHERE key = ? AND owner = ?`,
			owner, time.Now().UnixMilli()+lease.Milliseconds(), key, from)
		if err != nil {
			return fmt.Errorf("take claim on %s over: %w", key, err)
		}
		n, err := res.RowsAffected()
		got = n > 0
		return err
	})
	return got, err
}

// MarkSent records, just before the request goes out, that owner sends
// key's call for run runID, usd being the most it may cost: kept until the
// call's outcome is stored (PutAnswer), so the marks of a process killed
// with calls in flight stay, and the run's spend counts them (RunSpend).
func (s *Store) MarkSent(ctx context.Context, key, owner string, runID int64, usd float64) error {
	return s.write(ctx, func(tx Tx) error {
		if _, err := tx.Exec(`INSERT INTO sent_calls (key, owner, run_id, attempts, usd) VALUES (?, ?, ?, 1, ?)
			ON CONFLICT (key, owner) DO UPDATE SET attempts = sent_calls.attempts + 1, usd = sent_calls.usd + excluded.usd`,
			key, owner, runID, usd); err != nil {
			return fmt.Errorf("mark %s as sent: %w", key, err)
		}
		return nil
	})
}

// SentByOthers is how many attempts at key owners other than owner sent
// and never stored the outcome of: a process that died with the call in
// flight, which most likely paid for it.
func (s *Store) SentByOthers(ctx context.Context, key, owner string) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT COALESCE(SUM(attempts), 0) FROM sent_calls WHERE key = ? AND owner <> ?`, key, owner).Scan(&n); err != nil {
		return 0, fmt.Errorf("attempts at %s in flight: %w", key, err)
	}
	return n, nil
}
