// Package postgres is fallacylab's team store on PostgreSQL
// (github.com/jackc/pgx/v5: one pgxpool per process, through database/sql): the same runs, call
// cache, typed records, batches and studies as store/sqlite, passing the same
// conformance suite (store/storetest), so that a lab shares one cache and
// one set of runs. Migrations are embedded and versioned.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fallacylab/fallacylab/engine"

	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/sqlstore"
	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Store is an open PostgreSQL store: the shared SQL of store/sqlstore,
// embedded, over a connection pool.
type Store struct {
	*sqlstore.Store
	db  *pool
	pg  *pgxpool.Pool
	url string
	// outage is how long a write waits for a database that stopped
	// answering (Options.Outage).
	outage time.Duration

	riverOnce sync.Once
	river     *river.Client[pgx.Tx] // queues calls (inserter)
	riverErr  error
}

// pool and txn are the database handle and a transaction that take the
// SQL the store shares with store/sqlite, "?" placeholders and all, and
// hand PostgreSQL its "$n" form.
type pool struct{ *sql.DB }

type txn struct{ *sql.Tx }

// rebind turns "?" placeholders into "$1, $2, …" and "?N" into "$N". The
// store's SQL holds no "?" inside string literals.
func rebind(q string) string {
	if !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] != '?' {
			b.WriteByte(q[i])
			continue
		}
		j := i + 1
		for j < len(q) && q[j] >= '0' && q[j] <= '9' {
			j++
		}
		if j > i+1 {
			b.WriteString("$" + q[i+1:j])
			i = j - 1
			continue
		}
		n++
		b.WriteString("$" + strconv.Itoa(n))
	}
	return b.String()
}

// flags stores Go booleans as the 0 / 1 integers the shared schema keeps
// (SQLite's way); reading them back into a bool works unchanged.
func flags(args []any) []any {
	for i, a := range args {
		if b, ok := a.(bool); ok {
			args[i] = map[bool]int64{false: 0, true: 1}[b]
		}
	}
	return args
}

func (p *pool) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return p.DB.QueryContext(ctx, rebind(q), flags(args)...)
}

func (p *pool) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	return p.DB.QueryRowContext(ctx, rebind(q), flags(args)...)
}

func (p *pool) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return p.DB.ExecContext(ctx, rebind(q), flags(args)...)
}

func (t *txn) Exec(q string, args ...any) (sql.Result, error) {
	return t.Tx.Exec(rebind(q), flags(args)...)
}

func (t *txn) Query(q string, args ...any) (*sql.Rows, error) {
	return t.Tx.Query(rebind(q), flags(args)...)
}

func (t *txn) QueryRow(q string, args ...any) *sql.Row {
	return t.Tx.QueryRow(rebind(q), flags(args)...)
}

// stmt is a prepared statement taking Go booleans as flags.
type stmt struct{ *sql.Stmt }

func (t *txn) Prepare(q string) (sqlstore.Stmt, error) {
	st, err := t.Tx.Prepare(rebind(q))
	if err != nil {
		return nil, err
	}
	return &stmt{st}, nil
}

func (s *stmt) Exec(args ...any) (sql.Result, error) { return s.Stmt.Exec(flags(args)...) }

// Options are how a process connects.
type Options struct {
	// MaxConns is the most connections the process holds (0: the URL's
	// pool_max_conns, else DefaultMaxConns). N worker processes use up to
	// N × MaxConns of the server's max_connections (100 on a stock server).
	MaxConns int
	// ConnectTimeout bounds each connection's setup, a server that accepts
	// and never answers included (0: the URL's connect_timeout, else
	// DefaultConnectTimeout).
	ConnectTimeout time.Duration
	// Outage is how long, once the store is open, a write waits for a
	// database that stopped answering (a restart: its connections cut,
	// new ones refused, or "starting up"), trying again with a growing
	// pause, where the write surely did not happen: a transaction that
	// failed before its COMMIT was sent (PostgreSQL rolled it back), a
	// statement whose connection was never made or refused (0: it fails at
	// once). A COMMIT, or a statement, cut while it ran may have taken
	// effect: it fails, as before.
	Outage time.Duration
}

// DefaultMaxConns is a process's connections when neither --db-max-conns
// nor the URL's pool_max_conns says: a worker commits one answer at a time
// per connection, briefly, so 8 keep 64 calls in flight busy, and ten
// workers stay within a stock server's 100.
const DefaultMaxConns = 8

// DefaultConnectTimeout is a connection's setup time when the URL's
// connect_timeout does not say.
const DefaultConnectTimeout = 10 * time.Second

// Open connects to the database at url (postgres://user:pass@host/db) and
// applies migrations (OpenWith, default options).
func Open(ctx context.Context, dsn string) (*Store, error) { return OpenWith(ctx, dsn, Options{}) }

// OpenWith connects to the database at url with o: one pgx pool for the
// process (the database/sql handle the shared SQL takes is a view of it),
// and applies migrations. Concurrent opens by several processes are safe:
// the migrations run under an advisory lock.
func OpenWith(ctx context.Context, dsn string, o Options) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", Redact(dsn), err)
	}
	if o.MaxConns > 0 {
		cfg.MaxConns = int32(o.MaxConns)
	} else if !strings.Contains(dsn, "pool_max_conns=") {
		cfg.MaxConns = DefaultMaxConns
	}
	if o.ConnectTimeout > 0 {
		cfg.ConnConfig.ConnectTimeout = o.ConnectTimeout
	} else if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = DefaultConnectTimeout
	}
	pg, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", Redact(dsn), err)
	}
	db := stdlib.OpenDBFromPool(pg)
	db.SetMaxOpenConns(int(cfg.MaxConns))
	// No idle connections in database/sql: a connection it kept idle would
	// stay acquired from pg, where River and the pgx queries wait for it.
	db.SetMaxIdleConns(0)
	s := &Store{db: &pool{db}, pg: pg, url: dsn, outage: o.Outage}
	if err := db.PingContext(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("open %s: %w", Redact(dsn), err)
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("open %s: %w", Redact(dsn), err)
	}
	s.Store = sqlstore.New(s.db, func(ctx context.Context, fn func(sqlstore.Tx) error) error {
		return s.write(ctx, func(t *txn) error { return fn(t) })
	}, sqlstore.Dialect{ResponseText: "(c.response::jsonb->>'text')", InsertOrder: "row_no", ExecOne: s.execOne})
	return s, nil
}

// Redact is a store URL with its password masked, for logs and errors.
func Redact(dsn string) string { return llm.RedactURL(dsn) }

// Path names the store (its URL, password masked).
func (s *Store) Path() string { return Redact(s.url) }

// ReadOnly is false: a PostgreSQL store is always opened for writing.
func (s *Store) ReadOnly() bool { return false }

// DB is the underlying handle (tests).
func (s *Store) DB() *sql.DB { return s.db.DB }

// Close closes the connections.
func (s *Store) Close() error {
	err := s.db.Close()
	s.pg.Close()
	return err
}

// MaxConns is the most connections the store's process holds.
func (s *Store) MaxConns() int { return int(s.pg.Config().MaxConns) }

// migrate applies the embedded migrations not yet applied, each in a
// transaction, holding an advisory lock so two processes never race. A
// store that has them all is left at once, without the lock: the team's
// processes starting together queued on it, each holding it for some 30
// round trips of checks (the last to start waited 50–90 ms).
func (s *Store) migrate(ctx context.Context) error {
	if s.migrated(ctx) {
		return nil
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	const lock = 7411_0001
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, lock); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, lock)
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	all, err := embeddedMigrations()
	if err != nil {
		return err
	}
	for _, m := range all {
		name, base, v := m.name, strings.TrimPrefix(m.name, "migrations/"), m.version
		var done int
		if err := conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = $1`, v).Scan(&done); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		if done > 0 {
			continue
		}
		body, err := migrations.ReadFile(name)
		if err != nil {
			return err
		}
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %s: %w", base, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)`, v, now()); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %s: %w", base, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration %s: %w", base, err)
		}
	}
	return s.migrateRiver(ctx) // under the same lock
}

// migrated reports whether every embedded migration, River's and what
// fallacylab adds to River's tables (migrateRiver) are applied — two
// reads; false on any doubt (the locked migration then decides).
func (s *Store) migrated(ctx context.Context) bool {
	all, err := embeddedMigrations()
	if err != nil {
		return false
	}
	versions := make([]int, len(all))
	for i, m := range all {
		versions[i] = m.version
	}
	var applied int
	var index, oldQueue bool
	if err := s.pg.QueryRow(ctx, `SELECT (SELECT COUNT(*) FROM schema_migrations WHERE version = ANY($1)),
		to_regclass('river_job_fallacylab_run') IS NOT NULL, to_regclass('queue') IS NOT NULL`, versions).Scan(&applied, &index, &oldQueue); err != nil ||
		applied != len(versions) || !index || oldQueue {
		return false
	}
	m, err := rivermigrate.New(riverpgxv5.New(s.pg), &rivermigrate.Config{Logger: quiet})
	if err != nil {
		return false
	}
	res, err := m.Validate(ctx, nil)
	return err == nil && res.OK
}

// migration is an embedded migration: its file and version.
type migration struct {
	name    string
	version int
}

// embeddedMigrations are the embedded migrations, in their files' order.
func embeddedMigrations() ([]migration, error) {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	out := make([]migration, 0, len(names))
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		v, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return nil, fmt.Errorf("migration %s: no version number", base)
		}
		out = append(out, migration{name, v})
	}
	return out, nil
}

// write runs fn in one transaction and commits it; a serialization failure
// or deadlock (another worker writing the same rows) is retried.
func (s *Store) write(ctx context.Context, fn func(*txn) error) error {
	err := s.rideOut(ctx, func() error {
		return retryConflicts(func() error { return s.tryWrite(ctx, fn) })
	})
	if bc, ok := err.(errBeforeCommit); ok {
		return bc.error // fn's own error, as it returned it
	}
	return err
}

// execOne runs one statement on its own — it commits by itself: no BEGIN
// and COMMIT round trips — retried as write retries a transaction.
func (s *Store) execOne(ctx context.Context, q string, args ...any) (sql.Result, error) {
	var res sql.Result
	err := s.rideOut(ctx, func() error {
		return retryConflicts(func() (err error) {
			res, err = s.db.ExecContext(ctx, q, args...)
			return err
		})
	})
	return res, err
}

// rideOut runs op again, for up to s.outage, while it fails where the
// write surely did not happen (notWritten) because the database does not
// answer (Unreachable): a restart in the second a run stored its phase
// counts, records or end failed the run, where its calls waited.
func (s *Store) rideOut(ctx context.Context, op func() error) error {
	deadline, wait := time.Now().Add(s.outage), 100*time.Millisecond
	for {
		err := op()
		if err == nil || s.outage <= 0 || !notWritten(err) || !Unreachable(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// errBeforeCommit marks an error of a transaction before its COMMIT was
// sent: PostgreSQL rolled back whatever of it ran.
type errBeforeCommit struct{ error }

func (e errBeforeCommit) Unwrap() error { return e.error }

// notWritten reports whether err surely left the database unchanged: a
// transaction's error before its COMMIT, a connection that was never made
// (pgconn.ConnectError) or refused before any statement (starting up,
// 57P03; no connection left, 53300), or an error pgx says came before
// anything was sent (pgconn.SafeToRetry).
func notWritten(err error) bool {
	var pe *pgconn.PgError
	var ce *pgconn.ConnectError
	var bc errBeforeCommit
	switch {
	case errors.As(err, &bc), errors.As(err, &ce), pgconn.SafeToRetry(err):
		return true
	case errors.As(err, &pe):
		return pe.Code == pgerrcode.CannotConnectNow || pe.Code == pgerrcode.TooManyConnections
	}
	return false
}

// retryConflicts runs op again, up to five times in all, while PostgreSQL
// answers a serialization failure or a deadlock.
func retryConflicts(op func() error) error {
	var err error
	for attempt := range 5 {
		err = op()
		var pe *pgconn.PgError
		if err == nil || !errors.As(err, &pe) || (pe.Code != "40001" && pe.Code != "40P01") {
			return err
		}
		time.Sleep(time.Duration(attempt+1) * 20 * time.Millisecond)
	}
	return err
}

func (s *Store) tryWrite(ctx context.Context, fn func(*txn) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return errBeforeCommit{err}
	}
	if err := fn(&txn{tx}); err != nil {
		tx.Rollback()
		return errBeforeCommit{err}
	}
	return tx.Commit()
}

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }

// CallSelection picks calls to delete from the cache (store.CallSelection).
type CallSelection = store.CallSelection

// Team is what a store shared by a team holds for every process using it
// (backend.Team): configured rate limits, budgets and provider push-back.
func (s *Store) Team() (engine.SharedLimits, engine.SharedBudget, engine.SharedSignals) {
	return NewSharedLimits(s), NewSharedBudget(s), NewSharedSignals(s)
}

// Queue is the dispatcher that queues a run's calls for workers, who hold
// budget (USD, 0: none) together (backend.Team); say, if not nil, hears
// when no worker alive serves a queue the run waits on (Dispatcher.Say).
func (s *Store) Queue(runID int64, budget float64, say func(string)) engine.Dispatcher {
	// The run is known to queue for workers from now, before it has named
	// a queue (its plan may take a while): a worker waiting --until-empty
	// counts it as between two phases and waits for its work. A failure
	// here only loses that: the run names its queues with its first jobs.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	s.pg.Exec(ctx, `INSERT INTO run_queues (run_id, queue) VALUES ($1, '') ON CONFLICT DO NOTHING`, runID)
	cancel()
	d := NewDispatcher(s, runID)
	d.Budget, d.Say = budget, say
	return d
}
