package sqlite_test

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fallacylab/fallacylab/store/sqlite"
)

// createEnv makes the test binary open (creating) the store it names, once.
const createEnv = "FALLACYLAB_TEST_CREATE"

func init() {
	if path := os.Getenv(createEnv); path != "" {
		s, err := sqlite.Open(path)
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		s.Close()
		os.Exit(0)
	}
}

// Another program's SQLite database is never adopted: opening it for
// writing is refused and leaves it as it was.
func TestForeignDatabaseRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('mine')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := sqlite.Open(path)
	if err == nil {
		s.Close()
		t.Fatal("another application's database was opened as a store")
	}
	if !strings.Contains(err.Error(), "not a fallacylab store") || !strings.Contains(err.Error(), "notes") {
		t.Fatalf("error: %v", err)
	}
	db, _ = sql.Open("sqlite", "file:"+path)
	defer db.Close()
	var tables string
	db.QueryRow(`SELECT group_concat(name) FROM sqlite_schema WHERE type = 'table'`).Scan(&tables)
	var mode string
	db.QueryRow(`PRAGMA journal_mode`).Scan(&mode)
	if tables != "notes" || mode != "delete" {
		t.Fatalf("the refused database now has tables %s, journal mode %s", tables, mode)
	}
	// An empty file is a new store.
	empty := filepath.Join(t.TempDir(), "empty.db")
	os.WriteFile(empty, nil, 0o644)
	if s, err := sqlite.Open(empty); err != nil {
		t.Fatalf("an empty file: %v", err)
	} else {
		s.Close()
	}
}

// Processes that create one new store at the same moment all succeed, and
// the store is migrated once.
func TestConcurrentCreation(t *testing.T) {
	for round := range 30 {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("new%d.db", round))
		var wg sync.WaitGroup
		errs := make([]string, 8)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), createEnv+"="+path)
				if out, err := cmd.CombinedOutput(); err != nil {
					errs[i] = fmt.Sprintf("%v: %s", err, out)
				}
			}()
		}
		wg.Wait()
		for _, e := range errs {
			if e != "" {
				t.Fatalf("round %d: a process creating the store failed: %s", round, e)
			}
		}
	}
}
