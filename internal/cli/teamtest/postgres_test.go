package teamtest_test

import (
	"context"
	"database/sql"
	"encoding/json"

	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/backend"
	"github.com/fallacylab/fallacylab/internal/cli/clitest"
	"github.com/fallacylab/fallacylab/store"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// pgStore is a fresh database on the test PostgreSQL server
// ($FALLACYLAB_TEST_POSTGRES, set by .ci/run), reached as a user with a
// password so that the tests can look for it, or a skip without a server.
func pgStore(t testing.TB) string {
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
	name := fmt.Sprintf("fallacylab_cli_%d_%s", os.Getpid(), strings.ToLower(regexp.MustCompile(`\W`).ReplaceAllString(t.Name(), "_")))
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
	if _, stderr, err := clitest.Run(t, dir, "deflect", "synth", "--models", "a,b", "--samples", "1", "--out-dir", syn); err != nil {
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
			out, stderr, err := clitest.Run(t, dir, args(s)...)
			if err != nil {
				t.Fatalf("%s %v: %v\n%s", db, s, err, stderr)
			}
			all.WriteString(out + stderr)
		}
		for _, r := range reports {
			out, stderr, err := clitest.Run(t, dir, args(r)...)
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
		s = clitest.RunInStore.ReplaceAllString(s, "$1 in (store)")
		return clitest.VersionLine.ReplaceAllString(s, "${1}(version)")
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

// store copy round trip SQLite → PostgreSQL → SQLite: a DeflectBench run
// made against llmtest (its calls, links, phases and records) and an audit
// with a study come back with identical reports, run summaries and study
// reports; copying again adds nothing; the second copy pays for no call.
func TestStoreCopyRoundTrip(t *testing.T) {
	pg := pgStore(t)
	srv, dir := clitest.Env(t, clitest.Scripted)
	os.WriteFile(filepath.Join(dir, "claims.jsonl"), []byte(clitest.FourClaims), 0o644)
	if _, stderr, err := clitest.Run(t, dir, "deflect", "run", "--models", "openai:model-a", "--judges", "anthropic:judge-a,gemini:judge-b",
		"--samples", "1", "--claims", filepath.Join(dir, "claims.jsonl")); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, a := range [][]string{{"foils", "audit", "--resamples", "50", "--permutations", "50"},
		{"study", "create", "--run", "1", "--kind", "deflect-rubric", "--n", "6", "--annotators", "ana,ben"}} {
		if _, stderr, err := clitest.Run(t, dir, a...); err != nil {
			t.Fatalf("%v: %v\n%s", a, err, stderr)
		}
	}
	// Records of a kind only a benchmark knows travel with their run too.
	kinds := []store.Record{{Key: "b", CallKey: "k", Body: json.RawMessage(`{"label": "x"}`)}, {Key: "a", Body: json.RawMessage(`[1]`)}}
	withStore(t, filepath.Join(dir, "f.db"), func(st backend.Store) error { return st.PutRecords(context.Background(), 2, "test/kind", kinds) })
	paid := len(srv.Ledger())
	back := filepath.Join(dir, "back.db")
	for _, c := range [][2]string{{filepath.Join(dir, "f.db"), pg}, {pg, back}} {
		if out, stderr, err := clitest.Run(t, dir, "store", "copy", "--from", c[0], "--to", c[1]); err != nil || !strings.Contains(out, "2 runs (0 already there), 1 studies") {
			t.Fatalf("copy %s → %s: %v %s\n%s", c[0], c[1], err, out, stderr)
		}
	}
	if out, _, err := clitest.Run(t, dir, "store", "copy", "--from", filepath.Join(dir, "f.db"), "--to", pg); err != nil || !strings.Contains(out, "0 runs (2 already there)") {
		t.Fatalf("copying again: %v %s", err, out)
	}
	norm := func(s string) string {
		s = clitest.RunInStore.ReplaceAllString(s, "$1 in (store)")
		return clitest.VersionLine.ReplaceAllString(s, "${1}(version)")
	}
	for _, r := range [][]string{{"deflect", "report", "--run", "1", "--resamples", "50"}, {"foils", "report", "--run", "2"},
		{"runs", "show", "1"}, {"study", "report", "1", "--resamples", "50"}} {
		var got []string
		for _, db := range []string{filepath.Join(dir, "f.db"), pg, back} {
			out, stderr, err := clitest.Run(t, dir, append([]string{"--db", db}, r...)...)
			if err != nil {
				t.Fatalf("%s %v: %v\n%s", db, r, err, stderr)
			}
			got = append(got, norm(out))
		}
		if got[0] != got[1] || got[0] != got[2] {
			t.Fatalf("%v differs between the original, PostgreSQL and the copy back:\n%s\n---\n%s\n---\n%s", r, got[0], got[1], got[2])
		}
	}
	for _, db := range []string{pg, back} {
		var got []store.Record
		withStore(t, db, func(st backend.Store) error {
			return st.Records(context.Background(), 2, "test/kind", func(r store.Record) error { got = append(got, r); return nil })
		})
		if fmt.Sprint(got) != fmt.Sprint([]store.Record{{Kind: "test/kind", Key: "b", CallKey: "k", Body: kinds[0].Body, CallMissing: true}, {Kind: "test/kind", Key: "a", Body: kinds[1].Body}}) {
			t.Fatalf("records in %s: %+v", db, got)
		}
	}
	// The copy is a cache: the same run on the copied store calls nothing.
	if _, stderr, err := clitest.Run(t, dir, "--db", back, "deflect", "run", "--models", "openai:model-a", "--judges", "anthropic:judge-a,gemini:judge-b",
		"--samples", "1", "--claims", filepath.Join(dir, "claims.jsonl")); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if n := len(srv.Ledger()); n != paid {
		t.Fatalf("the run on the copied store paid for %d calls again", n-paid)
	}
}

// Two users on two machines (two working directories, two processes) run
// the same command on the team store: the second pays for nothing.
func TestTeamStoreSecondUserPaysNothing(t *testing.T) {
	pg := pgStore(t)
	srv, first := clitest.Env(t, nil)
	second := t.TempDir()
	if err := clitest.WriteConfig(second, srv); err != nil {
		t.Fatal(err)
	}
	var plan strings.Builder
	for i := range 40 {
		fmt.Fprintf(&plan, "{\"id\": \"q%02d\", \"prompt\": \"shared prompt %d\"}\n", i, i)
	}
	var outs []string
	for _, dir := range []string{first, second} {
		os.WriteFile(filepath.Join(dir, "plan.jsonl"), []byte(plan.String()), 0o644)
		out, stderr, err := clitest.Run(t, dir, "--db", pg, "prompts", "run", filepath.Join(dir, "plan.jsonl"), "--models", "openai:gpt-4.1-mini", "--samples", "2")
		if err != nil {
			t.Fatalf("%s: %v\n%s", dir, err, stderr)
		}
		outs = append(outs, out)
		if dir == first && len(srv.Ledger()) != 80 {
			t.Fatalf("the first user paid for %d calls, want 80", len(srv.Ledger()))
		}
	}
	if n := len(srv.Ledger()); n != 80 {
		t.Fatalf("the second user paid for %d calls", n-80)
	}
	// The same answers, the second user's all from the shared cache.
	if strings.Count(outs[1], `"cached":true`) != 80 || strings.ReplaceAll(outs[0], `"cached":false`, `"cached":true`) != outs[1] {
		t.Fatalf("the second user's answers are not the first's, from the cache:\n%.400s\n%.400s", outs[0], outs[1])
	}
}

// --workers 0 refuses what it would silently ignore: a SQLite store,
// --batch, limits that belong on the workers.
func TestWorkersZeroRefusesWhatItCannotHonour(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), []byte("{}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "p.jsonl"), []byte(`{"id":"a","prompt":"x"}`+"\n"), 0o644)
	run := func(args ...string) error {
		_, _, err := clitest.Run(t, dir, append(args, "prompts", "run", filepath.Join(dir, "p.jsonl"), "--models", "openai:gpt-4.1-mini")...)
		return err
	}
	if err := run("--workers", "0"); err == nil || !strings.Contains(err.Error(), "needs a shared store") {
		t.Fatalf("--workers 0 on SQLite: %v", err)
	}
	if err := run("--workers", "3"); err == nil || !strings.Contains(err.Error(), "give 0") {
		t.Fatalf("--workers 3: %v", err)
	}
	pg := pgStore(t)
	for _, c := range []struct {
		flags []string
		want  string
	}{{[]string{"--rpm", "600"}, "give --concurrency, --rpm and --tpm to the workers"}, {[]string{"--batch"}, "--batch"}} {
		if err := run(append([]string{"--db", pg, "--workers", "0"}, c.flags...)...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%v: %v", c.flags, err)
		}
	}
}

// withStore opens the store db (a file or a postgres:// URL), calls fn and
// closes it.
func withStore(t *testing.T, db string, fn func(backend.Store) error) {
	t.Helper()
	st, err := backend.Open(context.Background(), db, backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := fn(st); err != nil {
		t.Fatal(err)
	}
}
