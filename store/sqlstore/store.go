// Package sqlstore is the SQL both fallacylab stores share — the call
// cache, runs, phases, typed records, batches and studies — written once
// over database/sql. store/sqlite and store/postgres open their database,
// migrate it, give their transactions and the few expressions their SQL
// dialects spell differently, and embed a Store.
package sqlstore

import (
	"context"
	"database/sql"
	"time"
)

// Tx is a write transaction as the stores give it: their own placeholder
// and value conventions applied.
type Tx interface {
	Exec(q string, args ...any) (sql.Result, error)
	Query(q string, args ...any) (*sql.Rows, error)
	QueryRow(q string, args ...any) *sql.Row
	Prepare(q string) (Stmt, error)
}

// Stmt is a prepared statement of a Tx.
type Stmt interface {
	Exec(args ...any) (sql.Result, error)
	Close() error
}

// DB is the read side of a store's database handle.
type DB interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
}

// Dialect holds what the two SQL dialects spell differently.
type Dialect struct {
	// ResponseText is the expression for the answer text of the joined
	// call c (its JSON response's "text").
	ResponseText string
	// InsertOrder is the column that keeps the record tables' rows in the
	// order they were written.
	InsertOrder string
	// CallTotals: the store keeps call_totals (SQLite's migration 016), a
	// row per provider and model, which cache statistics read instead of
	// every call.
	CallTotals bool
	// ExecOne, when set, runs a write of one statement on its own, which
	// commits it (PostgreSQL: one round trip where BEGIN … COMMIT took
	// three — a worker makes four such writes a call); nil: through the
	// store's write, as SQLite's one writer at a time needs.
	ExecOne func(ctx context.Context, q string, args ...any) (sql.Result, error)
}

// Store is the shared implementation; a store embeds it.
type Store struct {
	db    DB
	write func(ctx context.Context, fn func(Tx) error) error
	d     Dialect
}

// New makes the shared store over a database handle, the store's own
// write (one committed transaction per call) and its dialect.
func New(db DB, write func(ctx context.Context, fn func(Tx) error) error, d Dialect) *Store {
	return &Store{db: db, write: write, d: d}
}

// execOne runs a write of one statement: on its own where the dialect
// lets it (ExecOne), else in a transaction of the store's write.
func (s *Store) execOne(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if s.d.ExecOne != nil {
		return s.d.ExecOne(ctx, q, args...)
	}
	var res sql.Result
	err := s.write(ctx, func(tx Tx) (err error) {
		res, err = tx.Exec(q, args...)
		return err
	})
	return res, err
}

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }
