// Package store is fallacylab's embedded SQLite store (modernc.org/sqlite, WAL):
// runs, the content-addressed call cache, labels and pending provider batches.
// Writes go through one writer goroutine that groups concurrent writes into a
// single transaction (group commit): every caller's write is durable in the
// database before its Put returns, and many callers share one commit.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/sqlstore"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed migrations/*.sql
var migrations embed.FS

// Store is an open database. The runs, call cache, records and studies it
// keeps are the shared SQL of store/sqlstore, embedded.
type Store struct {
	*sqlstore.Store
	db       *sql.DB
	path     string
	readOnly bool
	ops      chan op
	wg       sync.WaitGroup
	close    sync.Once
	checked  bool // passed PRAGMA quick_check when opened
	// remembered: before this open connected, the store's bytes were
	// those remembered as checked (checked.go)
	remembered bool
	release    func(last func()) // files.go
	stmts      stmtCache
}

type op struct {
	fn   func(*sql.Tx) error
	done chan error
}

// Options tune how a store is opened. The zero value opens it for writing,
// creating it if needed.
type Options struct {
	// ReadOnly opens an existing store for browsing: it is never created or
	// written, and a store in a read-only file or folder can be read.
	ReadOnly bool
	// LockTimeout is how long to wait while another process holds the
	// store's write lock (default 30s).
	LockTimeout time.Duration
	// OnWait is called once if the lock is still held after a second.
	OnWait func()
}

// ErrNoStore is returned by a read-only open of a path with no store.
var ErrNoStore = errors.New("no such store")

// ErrLocked is returned when the store stays locked past the lock timeout.
var ErrLocked = errors.New("store is locked by another process")

// ErrOldSchema is returned by a read-only open of a store that needs a
// migration first.
var ErrOldSchema = errors.New("store is from an older fallacylab")

// ErrReadOnly is returned by writes to a store opened read-only.
var ErrReadOnly = errors.New("store is open read-only")

// Open opens (creating if needed) the database at path for writing and
// applies migrations.
func Open(path string) (*Store, error) { return OpenWith(context.Background(), path, Options{}) }

// OpenWith opens the database at path. A writable open waits for another
// process's lock (saying so after a second, giving up after LockTimeout,
// at once when ctx ends), checks the file's integrity and applies
// migrations; a damaged store is refused, never written to.
func OpenWith(ctx context.Context, path string, o Options) (*Store, error) {
	if o.LockTimeout <= 0 {
		o.LockTimeout = 30 * time.Second
	}
	st, statErr := os.Stat(path)
	switch {
	case statErr == nil && st.IsDir():
		return nil, fmt.Errorf("store %s is a directory: pass the path of a database file (e.g. %s)", path, filepath.Join(path, "fallacylab.db"))
	case statErr != nil && o.ReadOnly:
		why := ""
		if dir := filepath.Dir(path); dir != "" {
			if _, err := os.Stat(dir); err != nil {
				why = fmt.Sprintf(" (directory %s does not exist)", dir)
			}
		}
		return nil, fmt.Errorf("%w at %s%s: check --db, or run a benchmark first to make one", ErrNoStore, path, why)
	}
	if dir := filepath.Dir(path); dir != "" {
		if _, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("open store %s: directory %s does not exist: create it or pass another --db", path, dir)
		}
	}
	s := &Store{path: path, readOnly: o.ReadOnly, ops: make(chan op, 1024)}
	// The file is digested, if at all, before this process connects to it
	// (files.go).
	release, err := connecting(path, func(idle bool) error {
		s.remembered = idle && checkedBefore(path)
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.release = release
	if o.ReadOnly {
		err = s.openReadOnly(ctx)
	} else {
		err = s.openWritable(ctx, o)
	}
	if err != nil {
		if s.db != nil {
			s.db.Close()
		}
		release(nil)
		return nil, err
	}
	if !o.ReadOnly {
		s.wg.Add(1)
		go s.writer()
	}
	s.Store = sqlstore.New(s.db, func(ctx context.Context, fn func(sqlstore.Tx) error) error {
		return s.write(ctx, func(tx *sql.Tx) error { return fn(sqliteTx{tx, &s.stmts, s.db}) })
	}, sqlstore.Dialect{ResponseText: "json_extract(c.response, '$.text')", InsertOrder: "rowid", CallTotals: true})
	return s, nil
}

// CallSelection picks calls to delete from the cache (store.CallSelection).
type CallSelection = store.CallSelection

// sqliteTx is a transaction of the writer, as the shared SQL takes it. Its
// Exec runs statements prepared once per connection (stmtCache): preparing
// an INSERT compiles the triggers it fires (migrations 013–014), which cost
// more than the insert itself when every answer was prepared anew.
type sqliteTx struct {
	*sql.Tx
	stmts *stmtCache
	db    *sql.DB
}

// Exec runs q in the transaction through its cached prepared statement.
func (t sqliteTx) Exec(q string, args ...any) (sql.Result, error) {
	st := t.stmts.get(t.db, q)
	if st == nil {
		return t.Tx.Exec(q, args...)
	}
	ts := t.Tx.Stmt(st) // reuses st's preparation on this connection
	defer ts.Close()
	return ts.Exec(args...)
}

// stmtCache holds prepared statements by their text, up to maxStmts of them
// (statements built with a variable number of placeholders are not cached
// once it is full).
type stmtCache struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

const maxStmts = 256

func (c *stmtCache) get(db *sql.DB, q string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[q]; ok {
		return st
	}
	if len(c.m) >= maxStmts {
		return nil
	}
	st, err := db.Prepare(q)
	if err != nil {
		return nil // Exec reports the error
	}
	if c.m == nil {
		c.m = map[string]*sql.Stmt{}
	}
	c.m[q] = st
	return st
}

// close closes the cached statements.
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = nil
}

// Prepare prepares a statement of the transaction.
func (t sqliteTx) Prepare(q string) (sqlstore.Stmt, error) { return t.Tx.Prepare(q) }

// openWritable opens (or creates) a store for writing. A new store gets
// 16 KB pages (SQLite's default is 4 KB): a full DeflectBench import writes
// a quarter as many; page_size only takes before the first table exists,
// so existing stores keep theirs. The page cache is 1 MB per connection:
// in the pure-Go driver it costs several times its size in memory (at
// 4 MB, 15 MB held a 4× DeflectBench import at 186–199 MB, at 1 MB
// 174–176), and neither an import, a report from snapshots nor the viewer
// reads faster with more (measured).
func (s *Store) openWritable(ctx context.Context, o Options) error {
	dsn := "file:" + s.path + "?_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_pragma=cache_size(-1024)&_pragma=page_size(16384)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return fmt.Errorf("open store %s: %w", s.path, err)
	}
	// Keep every open connection idle rather than close all but two:
	// a new connection reads and parses the whole schema (its triggers
	// included) before its first statement, which under a busy engine cost
	// half its time.
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	s.db = db
	if err := s.waitUnlocked(ctx, o); err != nil {
		return err
	}
	// Another program's database is refused before anything changes it
	// (WAL mode would stay with its file).
	var version, tables int
	if err := db.QueryRowContext(ctx, `SELECT (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM sqlite_schema WHERE type = 'table')`).Scan(&version, &tables); err != nil {
		return s.explain(fmt.Errorf("read its schema: %w", err))
	}
	if version == 0 && tables > 0 {
		if err := refuseForeign(ctx, db); err != nil {
			return fmt.Errorf("open store %s: %w; nothing was written to it: pass another --db", s.path, err)
		}
	}
	// Switching a new file to WAL needs it alone: while another process
	// creates the same store, SQLite answers busy at once, without its
	// busy handler; wait for that process as for a lock.
	for start := time.Now(); ; {
		_, err := db.ExecContext(ctx, `PRAGMA journal_mode=WAL`)
		if err == nil {
			break
		}
		if !isBusy(err) || time.Since(start) > o.LockTimeout {
			return s.explain(fmt.Errorf("set WAL mode: %w", err))
		}
		select {
		case <-ctx.Done():
			return s.explain(ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if err := s.check(ctx); err != nil {
		return err
	}
	if err := s.migrate(); err != nil {
		if errors.Is(err, errForeign) {
			return fmt.Errorf("open store %s: %w; nothing was written to it: pass another --db", s.path, err)
		}
		return fmt.Errorf("open store %s: %w (is it a fallacylab database? pass another --db)", s.path, s.explainErr(err))
	}
	return nil
}

// openReadOnly opens an existing store for reading. A store whose folder
// or file cannot be written is opened as immutable (nothing can change it
// under us there).
func (s *Store) openReadOnly(ctx context.Context) error {
	modes := []string{"?mode=ro&_pragma=busy_timeout(10000)", "?mode=ro&immutable=1"}
	if canWrite(s.path) {
		// Where the file can be written, a query-only connection reads it
		// like any other and, closing last, removes SQLite's -wal and -shm
		// files again, so browsing leaves the folder as it was.
		modes = append([]string{"?_pragma=query_only(1)&_pragma=busy_timeout(10000)"}, modes...)
	}
	for i, mode := range modes {
		db, err := sql.Open("sqlite", "file:"+s.path+mode)
		if err != nil {
			return fmt.Errorf("open store %s: %w", s.path, err)
		}
		var version int
		if err = db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
			db.Close()
			if i < len(modes)-1 && isCantOpen(err) {
				continue
			}
			return s.explain(err)
		}
		s.db = db
		if err := s.check(ctx); err != nil {
			return err
		}
		names, _ := fs.Glob(migrations, "migrations/*.sql")
		switch {
		case version == 0:
			return fmt.Errorf("%s is not a fallacylab store (it has no fallacylab schema): pass another --db", s.path)
		case version < len(names):
			return fmt.Errorf("%s: %w (schema %d of %d) and a read-only store cannot be upgraded: copy it where it can be written and open it there once", s.path, ErrOldSchema, version, len(names))
		case version > len(names):
			return fmt.Errorf("store %s: schema version %d is newer than this fallacylab (%d): upgrade fallacylab", s.path, version, len(names))
		}
		return nil
	}
	return fmt.Errorf("open store %s: cannot be read", s.path)
}

// waitUnlocked waits until no other process holds the write lock.
func (s *Store) waitUnlocked(ctx context.Context, o Options) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return s.explain(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA busy_timeout = 0`); err != nil {
		return s.explain(err)
	}
	defer conn.ExecContext(context.Background(), `PRAGMA busy_timeout = 10000`)
	start, told := time.Now(), false
	for {
		_, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`)
		if err == nil {
			if _, err = conn.ExecContext(ctx, `COMMIT`); !isBusy(err) {
				return s.explain(err)
			}
			// A reader still holds the new file: wait for it as for a writer.
			conn.ExecContext(ctx, `ROLLBACK`)
		}
		if !isBusy(err) {
			return s.explain(err)
		}
		if !told && time.Since(start) > time.Second && o.OnWait != nil {
			o.OnWait()
			told = true
		}
		if time.Since(start) > o.LockTimeout {
			return fmt.Errorf("%s: %w for more than %s: stop the other fallacylab using it, or wait longer with --lock-timeout", s.path, ErrLocked, o.LockTimeout)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s is locked by another process; gave up waiting: %w", s.path, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// check refuses a damaged store (PRAGMA quick_check), unless these very
// bytes passed before (checked.go).
func (s *Store) check(ctx context.Context) error {
	if s.remembered {
		return nil
	}
	var res string
	if err := s.db.QueryRowContext(ctx, `PRAGMA quick_check(1)`).Scan(&res); err != nil {
		return s.explain(err)
	}
	if res != "ok" {
		return fmt.Errorf("store %s is damaged (%s): nothing is written to it. Restore it from a copy, move it away and start a new store, or pass another --db", s.path, res)
	}
	s.checked = true // remembered when the store closes (files.go)
	return nil
}

// explain turns SQLite's errors about the file into messages that name it
// and say what to do.
func (s *Store) explain(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("open store %s: %w", s.path, s.explainErr(err))
}

func (s *Store) explainErr(err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "malformed") || strings.Contains(msg, "not a database") || strings.Contains(msg, "SQLITE_CORRUPT") || strings.Contains(msg, "SQLITE_NOTADB"):
		return fmt.Errorf("the file is damaged or not a database (%v): nothing is written to it. Restore it from a copy, move it away and start a new store, or pass another --db", err)
	case strings.Contains(msg, "readonly") || strings.Contains(msg, "SQLITE_READONLY"):
		return fmt.Errorf("the file or its folder cannot be written (%v): browsing commands (runs, reports, view) can read it; commands that call models need a writable store", err)
	}
	return err
}

// canWrite is CanWrite; tests replace it to take the read-only paths.
var canWrite = CanWrite

// CanWrite reports whether the file and its folder can be written. It
// never opens a file that this process has a connection to (files.go).
func CanWrite(path string) bool {
	if !writableFile(path) {
		return false
	}
	probe, err := os.CreateTemp(filepath.Dir(path), ".fallacylab-probe-*")
	if err != nil {
		return false
	}
	probe.Close()
	os.Remove(probe.Name())
	return true
}

func isCantOpen(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "unable to open") || strings.Contains(err.Error(), "SQLITE_CANTOPEN") ||
		strings.Contains(err.Error(), "readonly"))
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// DB exposes the database for read-only queries by reporting code.
func (s *Store) DB() *sql.DB { return s.db }

// maxConns is how many connections a writable store opens and keeps idle.
const maxConns = 8

// ReleaseMemory closes the store's idle connections, and with them the
// memory SQLite holds for each: after a large write, its writer's page
// cache (after a 4× DeflectBench import, 15 MB). The next statement opens
// a connection again, reading the schema anew (a few milliseconds).
func (s *Store) ReleaseMemory() {
	s.db.SetMaxIdleConns(0)
	s.db.SetMaxIdleConns(maxConns)
}

// Close flushes pending writes and closes the database.
func (s *Store) Close() error {
	s.close.Do(func() { close(s.ops) })
	s.wg.Wait()
	s.stmts.close()
	err := s.db.Close()
	s.release(func() {
		if err == nil && s.checked {
			// As it is left: checked at open, written only by SQLite
			// since; read only once no connection of this process is open.
			rememberChecked(s.path)
		}
	})
	return err
}

// ReadOnly reports whether the store was opened read-only.
func (s *Store) ReadOnly() bool { return s.readOnly }

// migrate applies the migrations the store lacks. Each is applied in a
// BEGIN IMMEDIATE transaction (the write lock first, so processes creating
// one store at once take turns) that reads the schema version again inside
// it: a migration another process applied meanwhile is skipped, not run
// twice. A database with tables but no fallacylab schema belongs to another
// program and is refused, untouched.
func (s *Store) migrate() error {
	ctx := context.Background()
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	fresh, changed := false, false // this open made the store; it applied a migration
	for i := 0; i < len(names); i++ {
		if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
			return err
		}
		applied, err := s.migrateOne(ctx, conn, names, i)
		if err != nil {
			conn.ExecContext(ctx, `ROLLBACK`)
			return err
		}
		if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
			conn.ExecContext(ctx, `ROLLBACK`)
			return err
		}
		fresh = fresh || (applied && i == 0)
		changed = changed || applied
	}
	// A new store made every table of the schema's history, some of them
	// dropped by later migrations: their pages are compacted away, so a
	// new store holds no free page (and a damaged page is one in use).
	var free int
	if fresh && conn.QueryRowContext(ctx, `PRAGMA freelist_count`).Scan(&free) == nil && free > 0 {
		if _, err := conn.ExecContext(ctx, `VACUUM`); err != nil {
			return fmt.Errorf("compact the new store: %w", err)
		}
	}
	// The migrations and the compaction went through the write-ahead log:
	// a new store's log held 1.9 MB of page images beside a 16 KB file
	// until SQLite's own checkpoint at 1,000 pages, which filled a small
	// disk before the first call. Move them into the file and empty the
	// log. Best effort: another process reading the store (busy) only
	// leaves the log for SQLite's own checkpoints, and so does a disk too
	// full for the file to grow (the log stays whole: nothing is lost).
	if changed {
		var busy, logged, moved int
		_ = conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logged, &moved)
	}
	return nil
}

// migrateOne applies migration i inside the open transaction of conn,
// unless the store already has it.
func (s *Store) migrateOne(ctx context.Context, conn *sql.Conn, names []string, i int) (applied bool, err error) {
	var version int
	if err := conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return false, err
	}
	if version > len(names) {
		return false, fmt.Errorf("database schema version %d is newer than this fallacylab (%d): upgrade fallacylab", version, len(names))
	}
	if version > i {
		return false, nil
	}
	if version == 0 {
		if err := refuseForeign(ctx, conn); err != nil {
			return false, err
		}
	}
	body, err := migrations.ReadFile(names[i])
	if err != nil {
		return false, err
	}
	if _, err := conn.ExecContext(ctx, string(body)); err != nil {
		return false, fmt.Errorf("migration %s: %w", names[i], err)
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", i+1)); err != nil {
		return false, err
	}
	return true, nil
}

// refuseForeign returns errForeign, naming some of its tables, for a
// database without the fallacylab schema that has tables.
func refuseForeign(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) error {
	var tables string
	if err := q.QueryRowContext(ctx, `SELECT coalesce(group_concat(name, ', '), '') FROM (SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name LIMIT 5)`).Scan(&tables); err != nil {
		return err
	}
	if tables != "" {
		return fmt.Errorf("%w: it holds other tables (%s)", errForeign, tables)
	}
	return nil
}

// errForeign: the database is another program's.
var errForeign = errors.New("not a fallacylab store")

// write queues fn and waits until the transaction that ran it has committed.
func (s *Store) write(ctx context.Context, fn func(*sql.Tx) error) error {
	if s.readOnly {
		return fmt.Errorf("%s: %w", s.path, ErrReadOnly)
	}
	o := op{fn: fn, done: make(chan error, 1)}
	select {
	case s.ops <- o:
	case <-ctx.Done():
		return ctx.Err()
	}
	// Once queued the write will happen; wait for it even if ctx ends, so a
	// caller never believes an answer is lost when it is in fact stored.
	return <-o.done
}

// writer runs queued writes, many per transaction.
func (s *Store) writer() {
	defer s.wg.Done()
	const maxGroup = 512
	for first := range s.ops {
		group := []op{first}
	drain:
		for len(group) < maxGroup {
			select {
			case o, ok := <-s.ops:
				if !ok {
					break drain
				}
				group = append(group, o)
			default:
				break drain
			}
		}
		if err := s.runGroup(group); err != nil {
			// One bad write must not fail its neighbours: retry one by one.
			for _, o := range group {
				o.done <- s.runGroup([]op{o})
			}
			continue
		}
		for _, o := range group {
			o.done <- nil
		}
	}
}

func (s *Store) runGroup(group []op) error {
	ctx := context.Background()
	for attempt := 0; ; attempt++ {
		err := s.tryGroup(ctx, group)
		if err == nil || !isBusy(err) || attempt >= 20 {
			return err
		}
		time.Sleep(time.Duration(attempt+1) * 10 * time.Millisecond)
	}
}

func (s *Store) tryGroup(ctx context.Context, group []op) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	for _, o := range group {
		if err := o.fn(tx); err != nil {
			tx.Rollback()
			return err
		}
	}
	return tx.Commit()
}

func isBusy(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "SQLITE_BUSY") || strings.Contains(err.Error(), "database is locked"))
}
