package cli_test

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/llm/llmtest"
	"github.com/fallacylab/fallacylab/store/sqlite"
)

// A store locked by another process: a bounded wait that says so, a clear
// error after --lock-timeout, and Ctrl-C ends the wait at once.
func TestLockedStore(t *testing.T) {
	srv, dir := guaranteeEnv(t, nil)
	path := filepath.Join(dir, "f.db")
	st, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(t.Context(), `BEGIN EXCLUSIVE`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, stderr, err := runCLI(t, dir, "--lock-timeout", "1500ms", "ask", "openai:gpt-4.1-mini", "hi")
	if err == nil || !strings.Contains(err.Error(), "is locked by another process") || !strings.Contains(err.Error(), "--lock-timeout") ||
		!strings.Contains(stderr, "f.db is locked by another process; waiting") {
		t.Fatalf("locked store: %v\n%s", err, stderr)
	}
	// A hang guard, not a timing: a busy machine may take long to start.
	if d := time.Since(start); d < 1500*time.Millisecond || d > time.Minute {
		t.Fatalf("gave up after %s with a 1.5 s lock timeout", d)
	}
	// Interrupted while waiting: ends at once, exit 130.
	cmd := exec.Command(os.Args[0], "--db", path, "--config", filepath.Join(dir, "fallacylab.yaml"), "ask", "openai:gpt-4.1-mini", "hi")
	cmd.Env = append(os.Environ(), "FALLACYLAB_BE_CLI=1")
	var out bytes.Buffer
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1200 * time.Millisecond)
	sent := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errorsAs(err, &ee) || ee.ExitCode() != 130 || time.Since(sent) > time.Minute {
		t.Fatalf("Ctrl-C while waiting for the lock: %v after %s\n%s", err, time.Since(sent), out.String())
	}
	conn.ExecContext(t.Context(), `ROLLBACK`)
	conn.Close()
	if n := len(srv.Ledger()); n != 0 {
		t.Fatalf("%d calls made while the store was locked", n)
	}
}

// A damaged store is named and never written to: no call is paid for.
func TestCorruptedStore(t *testing.T) {
	srv, dir := guaranteeEnv(t, nil)
	os.WriteFile(filepath.Join(dir, "p.jsonl"), []byte("{\"id\": \"a\", \"prompt\": \"one\"}\n"), 0o644)
	if _, stderr, err := runCLI(t, dir, "deflect", "synth", "--models", "m", "--samples", "1", "--out", filepath.Join(dir, "syn")); err != nil {
		t.Fatal(err, stderr)
	}
	if _, stderr, err := runCLI(t, dir, "deflect", "import", "--generations", filepath.Join(dir, "syn", "generations.jsonl"), "--evals", filepath.Join(dir, "syn", "evals.jsonl")); err != nil {
		t.Fatal(err, stderr)
	}
	path := filepath.Join(dir, "f.db")
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	f.WriteAt(bytes.Repeat([]byte{0xA5}, 8192), fi.Size()/2)
	f.Close()
	before := fileHash(t, path)
	for _, args := range [][]string{{"ask", "openai:gpt-4.1-mini", "hi"}, {"prompts", "run", filepath.Join(dir, "p.jsonl"), "--models", "openai:gpt-4.1-mini"},
		{"runs"}, {"deflect", "report", "--resamples", "5"}} {
		_, _, err := runCLI(t, dir, args...)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "damaged") {
			t.Fatalf("%v on a damaged store: %v", args, err)
		}
	}
	if n := len(srv.Ledger()); n != 0 {
		t.Fatalf("%d calls paid for with a damaged store", n)
	}
	if fileHash(t, path) != before {
		t.Fatal("the damaged store was written to")
	}
}

// Browsing never writes: runs, runs show and reports leave the store's
// bytes as they were and create no file; in a read-only folder they still
// work (checked when not running as root, who can write anywhere).
func TestBrowsingDoesNotWrite(t *testing.T) {
	_, dir := guaranteeEnv(t, nil)
	if _, stderr, err := runCLI(t, dir, "deflect", "synth", "--models", "m", "--samples", "1", "--out", filepath.Join(dir, "syn")); err != nil {
		t.Fatal(err, stderr)
	}
	sub := filepath.Join(dir, "ro")
	os.Mkdir(sub, 0o755)
	os.Rename(filepath.Join(dir, "fallacylab.yaml"), filepath.Join(sub, "fallacylab.yaml"))
	os.Rename(filepath.Join(dir, "syn"), filepath.Join(sub, "syn"))
	if _, stderr, err := runCLI(t, sub, "deflect", "import", "--generations", filepath.Join(sub, "syn", "generations.jsonl"), "--evals", filepath.Join(sub, "syn", "evals.jsonl")); err != nil {
		t.Fatal(err, stderr)
	}
	path := filepath.Join(sub, "f.db")
	before, files := fileHash(t, path), dirList(t, sub)
	browse := [][]string{{"runs"}, {"runs", "show", "1"}, {"deflect", "report", "--resamples", "5"}, {"cache", "stats"}, {"runs", "export", "1", "--out", "-"}}
	for _, args := range browse {
		if _, stderr, err := runCLI(t, sub, args...); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr)
		}
	}
	if fileHash(t, path) != before || dirList(t, sub) != files {
		t.Fatalf("browsing changed the store's folder: %s → %s", files, dirList(t, sub))
	}
	if os.Geteuid() == 0 {
		t.Log("running as root: a read-only folder cannot be made; browsing was checked not to write")
		return
	}
	os.Chmod(path, 0o444)
	os.Chmod(sub, 0o555)
	defer os.Chmod(sub, 0o755)
	for _, args := range browse[:3] {
		if _, stderr, err := runCLI(t, sub, args...); err != nil {
			t.Fatalf("read-only folder: %v: %v\n%s", args, err, stderr)
		}
	}
}

func fileHash(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func dirList(t *testing.T, dir string) string {
	t.Helper()
	es, _ := os.ReadDir(dir)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return strings.Join(names, ",")
}

// --out is written whole or not at all: Ctrl-C during prompts run leaves no
// file, and says so.
func TestOutNotHalfWritten(t *testing.T) {
	srv := llmtest.New(llmtest.Options{APIKey: "test-key", Latency: func(*rand.Rand) time.Duration { return 100 * time.Millisecond }})
	defer srv.Close()
	dir := t.TempDir()
	writeConfig(dir, srv)
	var b strings.Builder
	for i := range 80 {
		fmt.Fprintf(&b, "{\"id\": \"q%d\", \"prompt\": \"question %d\"}\n", i, i)
	}
	os.WriteFile(filepath.Join(dir, "p.jsonl"), []byte(b.String()), 0o644)
	cmd := exec.Command(os.Args[0], "--concurrency", "2", "--quiet", "prompts", "run", "p.jsonl", "--models", "openai:gpt-4.1-mini", "--out", "o.jsonl")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "FALLACYLAB_BE_CLI=1", "OPENAI_API_KEY=test-key")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errorsAs(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("interrupted prompts run: %v\n%s", err, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "o.jsonl")); err == nil {
		t.Fatal("an interrupted run wrote part of its results")
	}
	if !strings.Contains(stderr.String(), "o.jsonl not written:") {
		t.Fatalf("no word about the file:\n%s", stderr.String())
	}
}
