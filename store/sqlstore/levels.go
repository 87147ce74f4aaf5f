package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Level is the concurrency level last saved for scope at or after since
// (engine.Levels).
func (s *Store) Level(ctx context.Context, scope string, since time.Time) (int, bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT level FROM model_levels WHERE scope = ? AND at >= ?`, scope, since.UnixMilli()).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("concurrency level of %s: %w", scope, err)
	}
	return n, true, nil
}

// SaveLevel saves scope's concurrency level now (engine.Levels).
func (s *Store) SaveLevel(ctx context.Context, scope string, level int) error {
	if _, err := s.execOne(ctx, `INSERT INTO model_levels (scope, level, at) VALUES (?, ?, ?)
		ON CONFLICT(scope) DO UPDATE SET level = excluded.level, at = excluded.at`, scope, level, time.Now().UnixMilli()); err != nil {
		return fmt.Errorf("save concurrency level of %s: %w", scope, err)
	}
	return nil
}
