package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/sqlstore"
)

// ClaimCallRead claims key for owner for lease, as ClaimCall does, and
// when the claim is got reads the answer stored for key (answered: one
// is), in one round trip (fl_claim): a worker's claim and its look for an
// answer stored meanwhile.
func (s *Store) ClaimCallRead(ctx context.Context, key, owner string, lease time.Duration) (got bool, answer store.Call, answered bool, err error) {
	now := time.Now().UnixMilli()
	row := s.db.QueryRowContext(ctx, `SELECT got, answered, `+sqlstore.CallColumns+` FROM fl_claim(?, ?, ?, ?)`,
		key, owner, now+lease.Milliseconds(), now)
	c, err := sqlstore.ScanCall(prefixed{row, []any{&got, &answered}})
	if err != nil {
		return false, store.Call{}, false, fmt.Errorf("claim call %s: %w", key, err)
	}
	if !answered {
		c = store.Call{}
	}
	return got, c, answered, nil
}

// prefixed is a row whose first columns are read into prefix, and the
// rest as its Scan is asked.
type prefixed struct {
	row    interface{ Scan(...any) error }
	prefix []any
}

func (p prefixed) Scan(dest ...any) error { return p.row.Scan(append(p.prefix, dest...)...) }
