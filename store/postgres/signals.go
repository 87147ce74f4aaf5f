package postgres

import (
	"context"
	"fmt"
	"time"
)

// SharedSignals pass push-back between the processes using the store
// (engine.SharedSignals): one row per process and provider model with its
// count of pushed-back calls and its hold, in the database's clock, so
// machines whose clocks differ still hold together.
type SharedSignals struct{ st *Store }

// NewSharedSignals makes the store's shared push-back signals.
func NewSharedSignals(st *Store) *SharedSignals { return &SharedSignals{st} }

// Exchange publishes proc's count and hold for scope and returns the other
// processes' count and the longest hold still running. Rows of processes
// silent for a day are dropped.
func (s *SharedSignals) Exchange(ctx context.Context, scope, proc string, pushed int64, hold time.Duration) (int64, time.Duration, error) {
	var others int64
	var leftMS float64
	err := s.st.write(ctx, func(tx *txn) error {
		if _, err := tx.Exec(`INSERT INTO pushback (scope, proc, pushed, pause_until, updated)
			VALUES (?, ?, ?, CASE WHEN ? > 0 THEN clock_timestamp() + ? * interval '1 millisecond' END, clock_timestamp())
			ON CONFLICT (scope, proc) DO UPDATE SET pushed = excluded.pushed,
				pause_until = GREATEST(pushback.pause_until, excluded.pause_until), updated = excluded.updated`,
			scope, proc, pushed, hold.Milliseconds(), hold.Milliseconds()); err != nil {
			return err
		}
		if _, err := tx.Exec(`DELETE FROM pushback WHERE scope = ? AND updated < clock_timestamp() - interval '1 day'`, scope); err != nil {
			return err
		}
		return tx.QueryRow(`SELECT COALESCE(SUM(pushed) FILTER (WHERE proc <> ?), 0),
			COALESCE(GREATEST(0, EXTRACT(EPOCH FROM MAX(pause_until) - clock_timestamp()) * 1000), 0)
			FROM pushback WHERE scope = ?`, proc, scope).Scan(&others, &leftMS)
	})
	if err != nil {
		return 0, 0, fmt.Errorf("push-back signals of %s: %w", scope, err)
	}
	return others, time.Duration(leftMS * float64(time.Millisecond)), nil
}
