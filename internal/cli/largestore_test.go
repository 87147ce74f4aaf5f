package cli_test

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/store/sqlite"
	"github.com/fallacylab/fallacylab/web"
)

// BenchmarkLargeStore measures what a user waits for on a store that has
// grown: 50 runs and N cached calls (FALLACYLAB_LARGE_STORE, comma-separated
// sizes; default 10000,100000 — 1000000 takes a few minutes to build). The
// store is made from one real prompt-set run (the CLI against the
// in-process provider), whose runs, calls, run links and records are then
// copied in SQL to 50 runs and N calls, so every row is what the code
// writes. Each figure is one cold call, in ms. FALLACYLAB_LARGE_STORE_KEEP=DIR
// keeps a copy of each store there.
func BenchmarkLargeStore(b *testing.B) {
	sizes := []int{10000, 100000}
	if s := os.Getenv("FALLACYLAB_LARGE_STORE"); s != "" {
		sizes = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				b.Fatal(err)
			}
			sizes = append(sizes, n)
		}
	}
	for _, n := range sizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			_, dir := guaranteeEnv(b, nil)
			db := largeStore(b, dir, n)
			fi, _ := os.Stat(db)
			for range b.N {
				timed := func(args ...string) float64 {
					start := time.Now()
					if _, stderr, err := runCLI2(b, dir, db, args...); err != nil {
						b.Fatalf("%v: %v\n%s", args, err, stderr)
					}
					return float64(time.Since(start).Microseconds()) / 1000
				}
				b.ReportMetric(timed("version"), "open-ms") // opens no store: the floor
				// The first open of a store this machine has not checked runs
				// SQLite's integrity check once; every later open reads a digest.
				b.ReportMetric(timed("runs"), "first-runs-ms")
				b.ReportMetric(timed("runs"), "runs-ms")
				b.ReportMetric(timed("runs", "show", "25"), "runs-show-ms")
				b.ReportMetric(timed("cache", "stats"), "cache-stats-ms")
				start := time.Now()
				st, err := sqlite.Open(db)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(time.Since(start).Microseconds())/1000, "store-open-ms")
				v, err := web.New(st)
				if err != nil {
					b.Fatal(err)
				}
				h := v.Handler()
				page := func(path string) float64 {
					rec := httptest.NewRecorder()
					req := httptest.NewRequest("GET", path, nil)
					req.Host = "127.0.0.1:7411"
					start := time.Now()
					h.ServeHTTP(rec, req)
					if rec.Code != 200 {
						b.Fatalf("%s: %d", path, rec.Code)
					}
					return float64(time.Since(start).Microseconds()) / 1000
				}
				b.ReportMetric(page("/"), "run-list-ms")
				b.ReportMetric(page("/runs/25"), "run-page-ms")
				b.ReportMetric(page("/runs/25/records"), "records-page-ms")
				st.Close()
			}
			b.ReportMetric(float64(fi.Size())/(1<<20), "store-MB")
		})
	}
}

// largeStore makes the store: one prompt-set run of 100 prompts, then its
// rows copied until there are 50 runs and n calls (n/50 per run).
func largeStore(b *testing.B, dir string, n int) string {
	b.Helper()
	var plan strings.Builder
	for i := range 100 {
		fmt.Fprintf(&plan, "{\"id\": \"p%d\", \"prompt\": \"Deflect claim %d.\"}\n", i, i)
	}
	os.WriteFile(filepath.Join(dir, "plan.jsonl"), []byte(plan.String()), 0o644)
	db := filepath.Join(dir, "big.db")
	if _, stderr, err := runCLI2(b, dir, db, "prompts", "run", filepath.Join(dir, "plan.jsonl"), "--models", "openai:gpt-4.1-mini"); err != nil {
		b.Fatalf("%v\n%s", err, stderr)
	}
	st, err := sqlite.Open(db)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	per := max(1, n/50/100) // copies of the 100 template calls per run
	stmts := []string{
		`CREATE TEMP TABLE seq(i INTEGER PRIMARY KEY)`,
		fmt.Sprintf(`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i < %d) INSERT INTO seq SELECT i FROM s`, 50*per),
		// Runs 2…50, each like run 1.
		`INSERT INTO runs (name, benchmark, config, version, started_at, ended_at, status, fingerprint, pid, host, heartbeat_at, reason, records_version)
		 SELECT name || ' ' || seq.i, benchmark, config, version, started_at, ended_at, status, fingerprint || '-' || seq.i, pid, host, heartbeat_at, reason, records_version
		 FROM runs, seq WHERE runs.id = 1 AND seq.i BETWEEN 2 AND 50 ORDER BY seq.i`,
		// Copy c of every template call goes to run 1 + (c-1) % 50.
		`INSERT INTO calls SELECT key || '-' || seq.i, namespace, provider, model, request, response, status, error, attempts, input_tokens, output_tokens,
		 reasoning_tokens, cost, latency_ms, batch_id, created_at FROM calls, seq WHERE seq.i > 1 AND calls.key NOT LIKE '%-%'`,
		`INSERT INTO run_calls SELECT 1 + (seq.i - 1) % 50, key || '-' || seq.i, cached, job || '-' || seq.i FROM run_calls, seq WHERE run_id = 1 AND seq.i > 1`,
		`INSERT INTO records SELECT 1 + (seq.i - 1) % 50, kind, seq + 100 * ((seq.i - 1) / 50), rec_key || '-' || seq.i, call_key || '-' || seq.i, body
		 FROM records, seq WHERE run_id = 1 AND seq.i > 1`,
		`DROP TABLE seq`,
		`ANALYZE`,
	}
	tx, err := st.DB().Begin()
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range stmts {
		if _, err := tx.Exec(s); err != nil {
			b.Fatalf("%s: %v", s, err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	var calls, runs int
	st.DB().QueryRow(`SELECT (SELECT count(*) FROM calls), (SELECT count(*) FROM runs)`).Scan(&calls, &runs)
	b.Logf("store: %d runs, %d calls", runs, calls)
	if keep := os.Getenv("FALLACYLAB_LARGE_STORE_KEEP"); keep != "" { // to profile the commands on it
		if _, err := st.DB().Exec(`VACUUM INTO ?`, filepath.Join(keep, fmt.Sprintf("large-%d.db", n))); err != nil {
			b.Fatal(err)
		}
	}
	return db
}
