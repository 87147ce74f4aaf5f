package cli_test

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/llm/llmtest"
)

// TestSmallThings (#41 item 20): --older-than takes days and weeks; one
// job is "1 job".
func TestSmallThings(t *testing.T) {
	_, dir := guaranteeEnv(t, func(llmtest.Call) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	for _, v := range []string{"30d", "2w", "1d12h", "720h"} {
		if _, stderr, err := runCLI(t, dir, "cache", "prune", "--older-than", v, "--yes"); err != nil {
			t.Errorf("--older-than %s: %v\n%s", v, err, stderr)
		}
	}
	if _, _, err := runCLI(t, dir, "cache", "prune", "--older-than", "3 fortnights", "--yes"); err == nil || !strings.Contains(err.Error(), "30d") {
		t.Errorf("a bad age: %v", err)
	}
	_, stderr, err := runCLI2(t, dir, dir+"/f.db", "ask", "openai:gpt-4.1-mini", "hi")
	if err != nil {
		t.Fatal(err)
	}
	// Hostile numbers found by running every flag of every command with
	// -1, NaN, 1e400, "", ../../x, a,b: refused, never a panic.
	for _, args := range [][]string{{"selftest", "--jobs", "-1"}, {"--budget", "NaN", "ask", "openai:gpt-4.1-mini", "hi"}} {
		if _, _, err := runCLI(t, dir, args...); err == nil || !strings.Contains(err.Error(), "want") {
			t.Errorf("%v: %v", args, err)
		}
	}
	// A keyword-form DSN is a PostgreSQL store, its password never printed
	// (#42 item 9: it was taken for a file name and printed whole).
	_, _, err = runCLI2(t, dir, "host=127.0.0.1 port=1 user=lab password=hunter2-kw dbname=x connect_timeout=1", "runs")
	if err == nil || strings.Contains(err.Error(), "hunter2-kw") || !strings.Contains(err.Error(), "password=xxxxx") {
		t.Errorf("a keyword DSN: %v", err)
	}
	// A dry run, or input refused before anything runs, leaves no new
	// empty store behind (#41 items 12 and 20).
	for i, args := range [][]string{{"--dry-run", "classify", "run", "--model", "openai:x", "--limit", "2"},
		{"classify", "run", "--model", "openai:x", "--corpus", "nosuch"}, {"classify", "run", "--model", "a,b"}} {
		db := filepath.Join(dir, fmt.Sprintf("new%d.db", i))
		runCLI2(t, dir, db, args...)
		if _, err := os.Stat(db); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%v left %s behind (%v)", args, db, err)
		}
	}
	// --batch --dry-run prices the batch APIs' half price (#41 item 20).
	promptFile(t, dir, "p.jsonl", 20, "a priced prompt")
	live, _, err := runCLI(t, dir, "--dry-run", "prompts", "run", filepath.Join(dir, "p.jsonl"), "--models", "openai:gpt-4.1-mini")
	if err != nil {
		t.Fatal(err)
	}
	batch, _, err := runCLI(t, dir, "--dry-run", "--batch", "prompts", "run", filepath.Join(dir, "p.jsonl"), "--models", "openai:gpt-4.1-mini")
	if err != nil {
		t.Fatal(err)
	}
	cost := func(out string) float64 {
		var c float64
		if i := strings.Index(out, "estimated cost: $"); i >= 0 {
			fmt.Sscanf(out[i+len("estimated cost: $"):], "%f", &c)
		}
		return c
	}
	if l, b := cost(live), cost(batch); l == 0 || math.Abs(b-l/2) > 1e-4 || !strings.Contains(batch, "at the batch price (50 %") {
		t.Errorf("dry run $%v live, $%v with --batch:\n%s", l, b, batch)
	}
	// A flag fallacylab does not have, before the command, is named as
	// such (#41 item 20: "unknown command run").
	cmd := exec.Command(os.Args[0], "--no-cache", "deflect", "run")
	cmd.Env = append(os.Environ(), "FALLACYLAB_BE_CLI=1")
	if out, _ := cmd.CombinedOutput(); !strings.Contains(string(out), "unknown flag --no-cache") {
		t.Errorf("--no-cache deflect run: %s", out)
	}
	if strings.Contains(stderr, "1 jobs") || !strings.Contains(stderr, "1 job:") {
		t.Errorf("one job is plural: %s", stderr)
	}
	// So is one job a budget stopped, and one job of a dry run.
	if _, _, err := runCLI(t, dir, "--budget", "0.0000001", "ask", "openai:gpt-4.1-mini", "a prompt not asked yet"); err == nil || !strings.Contains(err.Error(), "budget reached: 1 job not sent") {
		t.Errorf("a budget that stops one job: %v", err)
	}
	if out, _, _ := runCLI(t, dir, "--dry-run", "ask", "openai:gpt-4.1-mini", "another prompt not asked yet"); !strings.Contains(out, "dry run: 1 job, 0 cached, 1 to call") || strings.Contains(out, "1 jobs") {
		t.Errorf("a dry run of one job:\n%s", out)
	}
}

// TestWorkersHelpReadsOnce (#41 item 20): --workers' help says its
// default in words once, not followed by "(default -1)".
func TestWorkersHelpReadsOnce(t *testing.T) {
	out, _, err := runCLI(t, t.TempDir(), "--help")
	if err != nil || !strings.Contains(out, "(default: call here)\n") || strings.Contains(out, "(default -1)") {
		t.Fatalf("%v\n%s", err, out)
	}
}

// TestWorkerRefusesARunsFlags: a run's flags given to a worker are refused
// before it opens the store, saying whose they are (before: --dry-run and
// --cache only failed every job the worker took, its own --budget ended a
// run that had none, --batch did nothing); its help leaves them out, and
// the flags that are a worker's still serve it.
func TestWorkerRefusesARunsFlags(t *testing.T) {
	dir := t.TempDir()
	db := "postgres://nobody@127.0.0.1:1/none?connect_timeout=1"
	for _, args := range [][]string{{"--dry-run"}, {"--budget", "1"}, {"--cache", "only"}, {"--cache", "use"}, {"--batch"},
		{"--batch-size", "10"}, {"--max-unusable", "0.5"}, {"--workers", "0"}} {
		_, _, err := runCLI2(t, dir, db, append(args, "worker", "--until-empty")...)
		if err == nil || !strings.Contains(err.Error(), args[0]+" is not a worker's") {
			t.Errorf("worker %v: %v", args, err)
		}
	}
	out, _, err := runCLI(t, dir, "worker", "--help")
	if err != nil || strings.Contains(out, "--dry-run") || strings.Contains(out, "--budget") || !strings.Contains(out, "--rpm") {
		t.Fatalf("worker --help (%v):\n%s", err, out)
	}
	// A config file that is not there is an error at once, not a store
	// to wait for (before: "the store does not answer", for five minutes).
	if _, _, err := runCLI2(t, dir, db, "--rpm", "60", "worker", "--until-empty"); err == nil || !strings.Contains(err.Error(), "fallacylab.yaml") {
		t.Fatalf("worker without its config file: %v, want the config's error", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCLI2(t, dir, filepath.Join(dir, "f.db"), "--rpm", "60", "worker", "--until-empty"); err == nil || !strings.Contains(err.Error(), "needs the shared store") {
		t.Fatalf("worker --rpm on a SQLite store: %v, want the store's error", err)
	}
}

// TestStoreFlagsFitTheStore: a store flag the store in use has no use for
// is refused, naming it (before: --db-max-conns on a SQLite file and
// --lock-timeout on a postgres:// store did nothing, silently).
func TestStoreFlagsFitTheStore(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCLI(t, dir, "--db-max-conns", "4", "runs"); err == nil || !strings.Contains(err.Error(), "--db-max-conns caps a postgres:// store's connections") {
		t.Errorf("--db-max-conns on a SQLite file: %v", err)
	}
	if _, _, err := runCLI2(t, dir, "postgres://nobody@127.0.0.1:1/none", "--lock-timeout", "5s", "runs"); err == nil || !strings.Contains(err.Error(), "--lock-timeout is how long to wait for a SQLite file's lock") {
		t.Errorf("--lock-timeout on a postgres:// store: %v", err)
	}
	if _, _, err := runCLI(t, dir, "--lock-timeout", "5s", "runs"); err != nil && strings.Contains(err.Error(), "lock-timeout") {
		t.Errorf("--lock-timeout on a SQLite file: %v", err)
	}
}

// TestExportCallsOfARunWithout: a run that made no calls (an import)
// exports an empty file, says so and where its results are; the count said
// is of the lines written.
func TestExportCallsOfARunWithout(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), nil, 0o644)
	syn := filepath.Join(dir, "syn")
	if _, stderr, err := runCLI(t, dir, "deflect", "synth", "--models", "m-a", "--samples", "1", "--out-dir", syn); err != nil {
		t.Fatal(err, stderr)
	}
	if _, stderr, err := runCLI(t, dir, "deflect", "import", "--generations", filepath.Join(syn, "generations.jsonl")); err != nil {
		t.Fatal(err, stderr)
	}
	out := filepath.Join(dir, "calls.jsonl")
	for _, args := range [][]string{{"--out", out}, {"--out", "-"}, nil} {
		stdout, stderr, err := runCLI(t, dir, append([]string{"runs", "export", "1"}, args...)...)
		if err != nil || stdout != "" || !strings.Contains(stderr, "run 1 made no model calls: --format eee or --format inspect exports its results") {
			t.Fatalf("%v: %v\n%q\n%s", args, err, stdout, stderr)
		}
	}
	if b, err := os.ReadFile(out); err != nil || len(b) != 0 {
		t.Fatalf("%q, %v", b, err)
	}
}
