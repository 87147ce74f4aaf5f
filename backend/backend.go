// Package backend opens the store a command or the viewer works on: the
// embedded SQLite file (a path) or the team's PostgreSQL database (a
// postgres:// URL), behind one interface both implement.
package backend

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/postgres"
	"github.com/fallacylab/fallacylab/store/sqlite"
)

// Store is the one store contract: everything the engine, the lifecycle,
// the records, the studies, the commands and the viewer use of a store,
// which SQLite and PostgreSQL both keep (store/storetest checks it of both).
type Store = store.Store

// Team is the capability of a store a team shares (PostgreSQL): what it
// holds for every process using it — configured rate limits, budgets and
// provider push-back — and a queue that workers take a run's calls from.
// A command asks a store for it, never for the store's type.
type Team interface {
	Team() (engine.SharedLimits, engine.SharedBudget, engine.SharedSignals)
	// Queue's say, if not nil, hears when no worker alive serves a queue
	// the run waits on, and when one does again.
	Queue(runID int64, budget float64, say func(string)) engine.Dispatcher
}

// Jobs is the capability of a store whose runs queue their calls for
// workers (PostgreSQL, on River): the queues runs have used, a worker
// process's River client, and what `runs show` and `fallacylab queue`
// count of a run's jobs and booked spend. A command asks a store for it,
// never for the store's type.
type Jobs interface {
	Queues(ctx context.Context) ([]postgres.QueueInfo, error)
	NewWorker(cfg postgres.WorkerConfig) (*postgres.Worker, error)
	OpenJobs(ctx context.Context, queues []string) (int, error)
	OpenCallJobsBut(ctx context.Context, skipped []string) (int, error)
	BetweenPhases(ctx context.Context) (int, error)
	QueueCounts(ctx context.Context, runID int64) (map[string]int, error)
	Budget(ctx context.Context, runID int64) (budget, spent float64, stopped, ok bool, err error)
	QueueTable(ctx context.Context, run int64) ([]postgres.QueueRow, error)
	Workers(ctx context.Context, within time.Duration) ([]postgres.WorkerInfo, error)
	CancelJobs(ctx context.Context, run int64) (queued, running int, err error)
	RetryJobs(ctx context.Context, run int64) (int, error)
	DeadOwner(ctx context.Context, owner string, silence time.Duration) bool
	RiverClient() (*river.Client[pgx.Tx], error)
}

// IsURL reports whether a --db value names a PostgreSQL database: a
// postgres:// URL, or libpq's keyword form (host=db user=lab password=…),
// which would otherwise be taken for a file name — and printed, password
// and all, as a store that does not exist.
func IsURL(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://") || isKeywordDSN(db)
}

// libpqKeys are connection keywords that only a libpq connection string
// starts a field with.
var libpqKeys = []string{"host=", "hostaddr=", "dbname=", "user=", "password=", "port=", "sslmode=", "service=", "connect_timeout="}

// isKeywordDSN reports whether db starts like a keyword-form connection
// string (its first field a libpq keyword) and names no file path.
func isKeywordDSN(db string) bool {
	db = strings.TrimSpace(db)
	for _, k := range libpqKeys {
		if strings.HasPrefix(db, k) {
			return true
		}
	}
	return false
}

// Options are how a store is opened: a SQLite file's, and a PostgreSQL
// store's connections.
type Options struct {
	sqlite.Options
	PG postgres.Options
}

// Open opens the store db names: a PostgreSQL database for a postgres://
// URL (always for writing, with o.PG), else the SQLite file at that path
// with o.Options.
func Open(ctx context.Context, db string, o Options) (Store, error) {
	if IsURL(db) {
		st, err := postgres.OpenWith(ctx, db, o.PG)
		if err != nil {
			return nil, err // not a typed nil inside the interface
		}
		return st, nil
	}
	st, err := sqlite.OpenWith(ctx, db, o.Options)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// Redact is db with a URL's password masked, for messages.
func Redact(db string) string {
	if IsURL(db) {
		return postgres.Redact(db)
	}
	return db
}

var (
	_ Store = (*sqlite.Store)(nil)
	_ Store = (*postgres.Store)(nil)
	_ Team  = (*postgres.Store)(nil)
	_ Jobs  = (*postgres.Store)(nil)
)
