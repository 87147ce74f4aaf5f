package cli_test

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// pgStore is a fresh database on the test PostgreSQL server
// ($FALLACYLAB_TEST_POSTGRES, set by .ci/run), reached as a user with a
// password so that the tests can look for it, or a skip without a server.
func pgStore(t *testing.T) string {
	base := os.Getenv("FALLACYLAB_TEST_POSTGRES")
	if base == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("FALLACYLAB_TEST_POSTGRES is not set: .ci/run starts a PostgreSQL cluster")
		}
		t.Skip("no PostgreSQL: set FALLACYLAB_TEST_POSTGRES=postgres://… to run")
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := fmt.Sprintf("fallacylab_cli_%d_%d", os.Getpid(), len(t.Name()))
	for _, q := range []string{`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`, `CREATE DATABASE ` + name,
		`DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'lab') THEN CREATE ROLE lab LOGIN PASSWORD 'hunter2-secret'; END IF; END $$`,
		`ALTER DATABASE ` + name + ` OWNER TO lab`} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if a, err := sql.Open("pgx", base); err == nil {
			a.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`)
			a.Close()
		}
	})
	// The same server and options, as lab with its password.
	rest := base[strings.Index(base, "@")+1:]
	host := rest[:strings.Index(rest, "/")]
	q := ""
	if i := strings.Index(rest, "?"); i >= 0 {
		q = rest[i:]
	}
	return "postgres://lab:hunter2-secret@" + host + "/" + name + q
}

// The same commands on a PostgreSQL store and on a SQLite file give the same
// reports, and the URL's password appears in no output and no run record.
func TestPostgresStoreEndToEnd(t *testing.T) {
	pg := pgStore(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), []byte("{}\n"), 0o644)
	syn := filepath.Join(dir, "syn")
	if _, stderr, err := runCLI(t, dir, "deflect", "synth", "--models", "a,b", "--samples", "1", "--out-dir", syn); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	steps := [][]string{
		{"deflect", "import", "--generations", filepath.Join(syn, "generations.jsonl"), "--evals", filepath.Join(syn, "evals.jsonl")},
		{"foils", "audit", "--resamples", "50", "--permutations", "50"},
	}
	reports := [][]string{{"deflect", "report", "--run", "1", "--resamples", "50"}, {"foils", "report", "--run", "2"}, {"runs"}, {"runs", "show", "1", "--json"}}
	var all strings.Builder
	outputs := map[string][]string{}
	for _, db := range []string{"sqlite", "postgres"} {
		args := func(a []string) []string {
			if db == "postgres" {
				return append([]string{"--db", pg}, a...)
			}
			return a
		}
		for _, s := range steps {
			out, stderr, err := runCLI(t, dir, args(s)...)
			if err != nil {
				t.Fatalf("%s %v: %v\n%s", db, s, err, stderr)
			}
			all.WriteString(out + stderr)
		}
		for _, r := range reports {
			out, stderr, err := runCLI(t, dir, args(r)...)
			if err != nil {
				t.Fatalf("%s %v: %v\n%s", db, r, err, stderr)
			}
			all.WriteString(out + stderr)
			outputs[db] = append(outputs[db], out)
		}
	}
	if strings.Contains(all.String(), "hunter2") {
		t.Fatal("the store URL's password reached an output")
	}
	norm := func(s string) string {
		s = runInStore.ReplaceAllString(s, "$1 in (store)")
		return versionLine.ReplaceAllString(s, "${1}(version)")
	}
	for i := range 2 { // the two reports are the same on both stores
		if a, b := norm(outputs["sqlite"][i]), norm(outputs["postgres"][i]); a != b {
			al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
			for j := range min(len(al), len(bl)) {
				if al[j] != bl[j] {
					t.Fatalf("%v differs at line %d:\nsqlite:   %s\npostgres: %s", reports[i], j+1, al[j], bl[j])
				}
			}
			t.Fatalf("%v: %d lines on sqlite, %d on postgres", reports[i], len(al), len(bl))
		}
	}
	if !strings.Contains(outputs["postgres"][2], "deflect import") || !strings.Contains(outputs["postgres"][2], "foils audit") {
		t.Fatalf("runs on postgres:\n%s", outputs["postgres"][2])
	}
}
