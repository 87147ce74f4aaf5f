package postgres_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"database/sql"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/fallacylab/fallacylab/store/postgres"
	"github.com/fallacylab/fallacylab/store/storetest"
)

// testURL is the PostgreSQL server the tests use ($FALLACYLAB_TEST_POSTGRES,
// which .ci/run sets after starting a throw-away cluster). Without it the
// tests say they are skipped; in CI they fail instead.
func testURL(t testing.TB) string {
	u := os.Getenv("FALLACYLAB_TEST_POSTGRES")
	if u == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("FALLACYLAB_TEST_POSTGRES is not set: .ci/run starts a PostgreSQL cluster for these tests")
		}
		t.Skip("no PostgreSQL: set FALLACYLAB_TEST_POSTGRES=postgres://… to run the PostgreSQL store tests")
	}
	return u
}

var dbSeq atomic.Int64

// freshDB creates an empty database on the test server for one test and
// drops it afterwards.
func freshDB(t testing.TB) string {
	base := testURL(t)
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := fmt.Sprintf("fallacylab_test_%d_%d", os.Getpid(), dbSeq.Add(1))
	if _, err := admin.Exec(`CREATE DATABASE ` + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		a, err := sql.Open("pgx", base)
		if err == nil {
			a.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`)
			a.Close()
		}
	})
	return withDB(base, name)
}

// withDB is a URL naming another database on the same server.
func withDB(u, name string) string {
	if i := strings.Index(u, "?"); i >= 0 {
		head, q := u[:i], u[i:]
		return head[:strings.LastIndex(head, "/")+1] + name + q
	}
	return u[:strings.LastIndex(u, "/")+1] + name
}

// freshStore is a store on a fresh database, closed after the test.
func freshStore(t *testing.T) *postgres.Store {
	st, err := postgres.Open(context.Background(), freshDB(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Store {
		st, err := postgres.Open(context.Background(), freshDB(t))
		if err != nil {
			t.Fatal(err)
		}
		return st
	})
}

// Two processes opening one new database at once both get the schema,
// applied once (the advisory lock); a second open finds it up to date.
func TestConcurrentOpensMigrateOnce(t *testing.T) {
	u := freshDB(t)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			st, err := postgres.Open(context.Background(), u)
			if err == nil {
				st.Close()
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	st, err := postgres.Open(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var n, distinct int
	if err := st.DB().QueryRow(`SELECT COUNT(*), COUNT(DISTINCT version) FROM schema_migrations`).Scan(&n, &distinct); err != nil || n != distinct || n < 2 {
		t.Fatalf("%d migrations recorded for %d versions, %v", n, distinct, err)
	}
}

// A store URL's password never reaches an error or the store's name.
func TestPasswordRedacted(t *testing.T) {
	u := "postgres://lab:hunter2@db.internal:5432/fallacylab?sslmode=disable"
	if got := postgres.Redact(u); strings.Contains(got, "hunter2") || !strings.Contains(got, "lab:xxxxx@db.internal") {
		t.Fatalf("Redact = %s", got)
	}
	_, err := postgres.Open(context.Background(), "postgres://lab:hunter2@127.0.0.1:1/nope?sslmode=disable&connect_timeout=2")
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("a failed open shows the password or succeeds: %v", err)
	}
}
