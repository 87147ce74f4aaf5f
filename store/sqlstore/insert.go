package sqlstore

import (
	"fmt"
	"strings"
)

// rowsPerInsert is how many rows one INSERT statement carries: one
// statement per row costs the driver's per-statement work 72,000 times on
// a full DeflectBench import.
const rowsPerInsert = 64

// inserter inserts rows many per statement: head ends with VALUES, each
// row has cols parameters, tail follows the values (an upsert clause).
// Statements are prepared once per row count.
type inserter struct {
	tx         Tx
	head, tail string
	cols       int
	stmts      map[int]Stmt
	buf        []any
}

func newInserter(tx Tx, head string, cols int, tail string) *inserter {
	return &inserter{tx: tx, head: head, tail: tail, cols: cols, stmts: map[int]Stmt{}}
}

func (in *inserter) close() {
	for _, st := range in.stmts {
		st.Close()
	}
}

func (in *inserter) prepared(rows int) (Stmt, error) {
	if st, ok := in.stmts[rows]; ok {
		return st, nil
	}
	one := "(" + strings.TrimSuffix(strings.Repeat("?,", in.cols), ",") + ")"
	st, err := in.tx.Prepare(in.head + strings.TrimSuffix(strings.Repeat(one+",", rows), ",") + in.tail)
	if err != nil {
		return nil, err
	}
	in.stmts[rows] = st
	return st, nil
}

// insert inserts n rows (at most rowsPerInsert) in one statement: args
// appends row i's parameters. A failed statement is tried again row by row
// so the error names the row (what).
func (in *inserter) insert(n int, args func(i int, to []any) []any, what func(i int) string) error {
	st, err := in.prepared(n)
	if err != nil {
		return err
	}
	in.buf = in.buf[:0]
	for i := range n {
		in.buf = args(i, in.buf)
	}
	// A failed statement aborts a PostgreSQL transaction (and SQLite's may
	// leave part of a batch): the batch runs under a savepoint, so that
	// the rows can be tried one by one.
	if _, err := in.tx.Exec(`SAVEPOINT put_rows`); err != nil {
		return err
	}
	if _, err := st.Exec(in.buf...); err != nil {
		if _, rerr := in.tx.Exec(`ROLLBACK TO SAVEPOINT put_rows`); rerr != nil {
			return fmt.Errorf("put %s…: %w", what(0), err)
		}
		single, perr := in.prepared(1)
		if perr != nil {
			return fmt.Errorf("put %s…: %w", what(0), err)
		}
		for i := range n {
			if _, rerr := single.Exec(args(i, nil)...); rerr != nil {
				return fmt.Errorf("put %s: %w", what(i), rerr)
			}
		}
		return fmt.Errorf("put %s…%s: %w", what(0), what(n-1), err)
	}
	_, err = in.tx.Exec(`RELEASE SAVEPOINT put_rows`)
	return err
}
