package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/fallacylab/fallacylab/engine"
)

// SharedSignals pass push-back between the processes using the store
// (engine.SharedSignals): one row per process and provider model with its
// count of pushed-back calls, its hold, and what its gate knows of an
// unhinted limit, in the database's clock, so machines whose clocks
// differ still hold together.
type SharedSignals struct{ st *Store }

// NewSharedSignals makes the store's shared push-back signals.
func NewSharedSignals(st *Store) *SharedSignals { return &SharedSignals{st} }

// liveFor is how recently a process must have published to count in the
// team's streak and leadership: processes with calls going on publish
// every half second, those waiting for a window ten times a second.
const liveFor = "3 seconds"

// Exchange publishes proc's signal for scope and returns the others'. Rows
// of processes silent for a day are dropped.
func (s *SharedSignals) Exchange(ctx context.Context, scope, proc string, mine engine.Signal) (engine.Team, error) {
	var team engine.Team
	var leftMS float64
	var windowMS int64
	err := s.st.write(ctx, func(tx *txn) error {
		hold := mine.Hold.Milliseconds()
		if _, err := tx.Exec(`INSERT INTO pushback (scope, proc, pushed, pause_until, updated, streak, learned, window_ms, limit_n, team_limit)
			VALUES (?, ?, ?, CASE WHEN ? > 0 THEN clock_timestamp() + ? * interval '1 millisecond' END, clock_timestamp(), ?, ?, ?, ?, ?)
			ON CONFLICT (scope, proc) DO UPDATE SET pushed = excluded.pushed,
				pause_until = GREATEST(pushback.pause_until, excluded.pause_until), updated = excluded.updated,
				streak = excluded.streak, learned = excluded.learned, window_ms = excluded.window_ms,
				limit_n = excluded.limit_n, team_limit = excluded.team_limit`,
			scope, proc, mine.Pushed, hold, hold, mine.Streak, mine.Learned, mine.Window.Milliseconds(), mine.Limit, mine.TeamLimit); err != nil {
			return err
		}
		if _, err := tx.Exec(`DELETE FROM pushback WHERE scope = ? AND updated < clock_timestamp() - interval '1 day'`, scope); err != nil {
			return err
		}
		live := `updated > clock_timestamp() - interval '` + liveFor + `'`
		return tx.QueryRow(`SELECT COALESCE(SUM(pushed) FILTER (WHERE proc <> ?), 0),
			COALESCE(GREATEST(0, EXTRACT(EPOCH FROM MAX(pause_until) - clock_timestamp()) * 1000), 0),
			COALESCE(SUM(streak) FILTER (WHERE proc <> ? AND learned = 0 AND `+live+`), 0),
			COALESCE(BOOL_OR(learned = 1) FILTER (WHERE proc <> ? AND `+live+`), FALSE),
			COALESCE(SUM(limit_n) FILTER (WHERE proc <> ? AND learned = 1 AND `+live+`), 0),
			COALESCE(MIN(team_limit) FILTER (WHERE proc <> ? AND team_limit > 0 AND `+live+`), 0),
			COALESCE((SELECT window_ms FROM pushback w WHERE w.scope = ? AND w.proc <> ? AND w.window_ms > 0 AND w.updated > clock_timestamp() - interval '1 hour' ORDER BY w.updated DESC LIMIT 1), 0),
			COALESCE(MIN(proc) FILTER (WHERE learned = 1 AND `+live+`), '') = ?
			FROM pushback WHERE scope = ?`, proc, proc, proc, proc, proc, scope, proc, proc, scope).
			Scan(&team.OthersPushed, &leftMS, &team.OthersStreak, &team.OthersLearned, &team.OthersLimit, &team.TeamLimit, &windowMS, &team.Leader)
	})
	if err != nil {
		return engine.Team{}, fmt.Errorf("push-back signals of %s: %w", scope, err)
	}
	team.HoldLeft = time.Duration(leftMS * float64(time.Millisecond))
	team.Window = time.Duration(windowMS) * time.Millisecond
	return team, nil
}
