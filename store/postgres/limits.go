package postgres

import (
	"context"
	"fmt"
	"time"
)

// SharedLimits are token buckets in the database that hold requests/min
// and tokens/min across every process using the store (engine.SharedLimits).
// The requests bucket holds one request: the workers together pace their
// requests evenly, so no window of the provider's (a sliding minute, say)
// sees more than its limit; the tokens bucket holds one second's tokens.
type SharedLimits struct{ st *Store }

// NewSharedLimits makes the store's shared limits.
func NewSharedLimits(st *Store) *SharedLimits { return &SharedLimits{st} }

// Take waits until the requests bucket of scope has a request and the
// tokens bucket the estimated tokens (capped at the bucket's size).
func (l *SharedLimits) Take(ctx context.Context, scope string, rpm, tpm float64, tokens int) error {
	if rpm > 0 {
		if err := l.take(ctx, "rpm:"+scope, rpm/60, 1, 1); err != nil {
			return err
		}
	}
	if tpm > 0 {
		size := max(1, tpm/60)
		if err := l.take(ctx, "tpm:"+scope, tpm/60, size, min(float64(tokens), size)); err != nil {
			return err
		}
	}
	return nil
}

// Owe takes n requests from the requests bucket of scope, without
// waiting: the bucket goes into debt, and the next Take waits for it.
func (l *SharedLimits) Owe(ctx context.Context, scope string, rpm float64, n int) error {
	if n <= 0 || rpm <= 0 {
		return nil
	}
	_, err := l.reserve(ctx, "rpm:"+scope, rpm/60, 1, float64(n))
	return err
}

// take reserves n from a bucket refilled at rate per second up to size,
// and waits until the reservation is due: the bucket may go into debt, so
// every request takes one short transaction and one sleep — no retries
// that would crowd the row when many workers wait (as rate.Limiter's
// Reserve, across processes).
func (l *SharedLimits) take(ctx context.Context, scope string, rate, size, n float64) error {
	due, err := l.reserve(ctx, scope, rate, size, n)
	if err != nil || due == 0 {
		return err
	}
	select {
	case <-ctx.Done():
		return ctx.Err() // the reservation is spent: the bucket stays conservative
	case <-time.After(time.Duration(due * float64(time.Second))):
		return nil
	}
}

// reserve takes n from a bucket refilled at rate per second up to size and
// returns how many seconds it is in debt (0: none).
func (l *SharedLimits) reserve(ctx context.Context, scope string, rate, size, n float64) (float64, error) {
	var due float64
	err := l.st.write(ctx, func(tx *txn) error {
		if _, err := tx.Exec(`INSERT INTO rate_buckets (scope, tokens) VALUES (?, ?) ON CONFLICT (scope) DO NOTHING`, scope, size); err != nil {
			return err
		}
		var left float64
		if err := tx.QueryRow(`UPDATE rate_buckets SET tokens = LEAST(?, tokens + ? * EXTRACT(EPOCH FROM clock_timestamp() - updated)) - ?,
			updated = clock_timestamp() WHERE scope = ? RETURNING tokens`, size, rate, n, scope).Scan(&left); err != nil {
			return err
		}
		due = max(0, -left) / rate
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("shared limit %s: %w", scope, err)
	}
	return due, nil
}
