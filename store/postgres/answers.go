package postgres

import (
	"context"
	"fmt"

	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/sqlstore"
)

// PutAnswer stores a call's outcome as the shared store's PutAnswer does
// (sqlstore.Store.PutAnswer says what it counts), in one statement — the
// function fl_put_answer (migration 024) — where the shared SQL's
// transaction took six round trips: a worker makes one for every call, and
// on a busy machine each costs both processes a wake-up. It returns what
// the cache holds for the key afterwards, as the shared one does.
func (s *Store) PutAnswer(ctx context.Context, c store.Call) (store.Call, error) {
	vals, err := sqlstore.CallValues(c)
	if err != nil {
		return store.Call{}, err
	}
	var attempts int
	var cost *float64
	var kept bool
	err = retryConflicts(func() error {
		return s.pg.QueryRow(ctx, `SELECT o_attempts, o_cost, o_kept FROM fl_put_answer($1, $2, $3, $4, $5, $6, $7, $8,
			$9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)`,
			append(vals, c.Owner, c.Replace, c.RunID, c.Job)...).Scan(&attempts, &cost, &kept)
	})
	if err != nil {
		return store.Call{}, fmt.Errorf("put call %s: %w", c.Key, err)
	}
	put := c
	put.Attempts, put.Cost = attempts, cost
	if !kept {
		return put, nil
	}
	stored, ok, err := s.GetCall(ctx, c.Key)
	if err != nil || !ok {
		return put, err
	}
	return stored, nil
}
