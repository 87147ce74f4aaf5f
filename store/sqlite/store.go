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
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed migrations/*.sql
var migrations embed.FS

// Store is an open database.
type Store struct {
	db    *sql.DB
	path  string
	ops   chan op
	wg    sync.WaitGroup
	close sync.Once
}

type op struct {
	fn   func(*sql.Tx) error
	done chan error
}

// Open opens (creating if needed) the database at path and applies migrations.
func Open(path string) (*Store, error) {
	if dir := filepath.Dir(path); dir != "" {
		if _, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("open store %s: directory %s does not exist: create it or pass another --db", path, dir)
		}
	}
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	db.SetMaxOpenConns(8)
	s := &Store{db: db, path: path, ops: make(chan op, 1024)}
	if err := s.migrate(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %s: %w (is it a fallacylab database? pass another --db)", path, err)
	}
	s.wg.Add(1)
	go s.writer()
	return s, nil
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// DB exposes the database for read-only queries by reporting code.
func (s *Store) DB() *sql.DB { return s.db }

// Close flushes pending writes and closes the database.
func (s *Store) Close() error {
	s.close.Do(func() { close(s.ops) })
	s.wg.Wait()
	return s.db.Close()
}

func (s *Store) migrate() error {
	ctx := context.Background()
	var version int
	if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	if version > len(names) {
		return fmt.Errorf("database schema version %d is newer than this fallacylab (%d): upgrade fallacylab", version, len(names))
	}
	for i := version; i < len(names); i++ {
		body, err := migrations.ReadFile(names[i])
		if err != nil {
			return err
		}
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %s: %w", names[i], err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", i+1)); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// write queues fn and waits until the transaction that ran it has committed.
func (s *Store) write(ctx context.Context, fn func(*sql.Tx) error) error {
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

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }
