package cli_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/bench/missci"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm/llmtest"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/sqlite"
)

// storedCalls are the model and user prompt of every answer the store at
// db holds.
func storedCalls(t *testing.T, db string) map[string]bool {
	t.Helper()
	st, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	keys, err := st.OKKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for k := range keys {
		c, ok, err := st.GetCall(ctx, k)
		if err != nil || !ok {
			t.Fatalf("call %s: %v", k, err)
		}
		j, err := engine.JobFromCanonical(c.Request)
		if err != nil {
			t.Fatal(err)
		}
		out[j.Spec.Model+"\x00"+j.Request.Messages[len(j.Request.Messages)-1].Content] = true
	}
	return out
}

// TestRunAPlanFile (#45 item 3, #43 sweeps): a plan file of two benchmarks
// (classify, MAFALDA) swept over two models is priced as a whole by its
// dry run (the sum of each run's own dry run, nothing sent); killed with
// kill -9 in the middle, the same command resumes it and pays for no
// stored answer again; a third time runs nothing; the table shows the
// four runs; runs show --as-plan writes a file that reproduces a run (its
// command finds the run done); a bad file is refused at its line and
// field.
func TestRunAPlanFile(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the CLI")
	}
	data, err := filepath.Abs("../../../shared/data")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(data, "mafalda")); err != nil {
		t.Skip("no MAFALDA data in ../shared/data")
	}
	srv := llmtest.New(llmtest.Options{APIKey: "test-key",
		Latency: func(r *rand.Rand) time.Duration { return time.Duration(3+r.IntN(6)) * time.Millisecond },
		Respond: func(c llmtest.Call) llmtest.Reply {
			if strings.Contains(c.Prompt, "Sentence: ") {
				return llmtest.Reply{Text: "Not fallacious."}
			}
			return llmtest.Reply{Text: "appeal to authority"}
		}})
	defer srv.Close()
	dir := t.TempDir()
	if err := writeConfig(dir, srv); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "fallacylab.yaml")
	b, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, append(b, []byte("  openai:gpt-4.1: {input: 2, output: 8}\n")...), 0o644)
	plan := filepath.Join(dir, "plan.yaml")
	os.WriteFile(plan, []byte(fmt.Sprintf(`# two benchmarks × two models
flags:
  concurrency: 2
runs:
  - benchmark: classify
    options: {limit: 60, max-unusable: 1}
    sweep:
      model: [openai:gpt-4.1-mini, openai:gpt-4.1]
  - benchmark: mafalda
    options:
      limit: 4
      data-dir: %q
    sweep:
      model: [openai:gpt-4.1-mini, openai:gpt-4.1]
`, data)), 0o644)
	db := filepath.Join(dir, "f.db")

	// The dry run prices the whole and each run, and sends nothing.
	out, stderr, err := runCLI(t, dir, "--dry-run", "run", plan)
	if err != nil {
		t.Fatalf("dry run: %v\n%s", err, stderr)
	}
	sweepPriced(t, srv, out, stderr, `dry run of .*: 4 runs`, 4)

	// Killed in the middle, then the same command again.
	cmd := exec.Command(os.Args[0], "--db", db, "--config", cfg, "--quiet", "run", plan)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "FALLACYLAB_BE_CLI=1", "OPENAI_API_KEY=test-key")
	if err := startKillable(t, cmd).killAfter(srv, 90); err == nil || !killed(err) {
		t.Fatalf("the sweep was not killed in the middle: %v", err)
	}
	before := storedCalls(t, db)
	from := len(srv.Ledger())
	if len(before) == 0 || len(before) >= 60*2+40 {
		t.Fatalf("killed with %d answers stored: not in the middle", len(before))
	}
	t.Logf("killed with %d answers stored, %d requests sent", len(before), from)
	t.Setenv("OPENAI_API_KEY", "test-key")
	out, stderr, err = runCLI(t, dir, "run", plan)
	if err != nil {
		t.Fatalf("resumed sweep: %v\n%s", err, stderr)
	}
	for _, e := range srv.Ledger()[from:] {
		if before[e.Call.Model+"\x00"+e.Call.Prompt] {
			t.Fatalf("%s: %.60q was stored before the kill but was sent again", e.Call.Model, e.Call.Prompt)
		}
	}
	rows := regexp.MustCompile(`(?m)^\| [12] \| (classify|mafalda) \| model=openai:gpt-4\.1(-mini)? \| (\d+) \| done \|`).FindAllStringSubmatch(out, -1)
	if len(rows) != 4 || !strings.Contains(stderr, "resuming run") {
		t.Fatalf("the resumed sweep's table has %d done runs, want 4 (and a resumed one):\n%s\n%s", len(rows), out, stderr)
	}
	// The MAFALDA runs' model says no sentence is fallacious: headlines
	// whose interval is the point itself, which the sweep's meta counts.
	pointsCounted(t, out)
	// A third time: every run is done, nothing is sent.
	from = len(srv.Ledger())
	if _, stderr, err := runCLI(t, dir, "run", plan); err != nil || len(srv.Ledger()) != from || strings.Count(stderr, "is done: not run again") != 4 {
		t.Fatalf("a finished sweep again: %v, %d requests\n%s", err, len(srv.Ledger())-from, stderr)
	}
	st, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := st.Runs(context.Background())
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if r.Status != store.RunDone {
			t.Fatalf("run %d (%s) is %s", r.ID, r.Name, r.Status)
		}
	}
	if len(runs) != 4 {
		t.Fatalf("%d runs in the store, want 4: a resumed sweep continues its runs", len(runs))
	}

	// runs show --as-plan round-trips: its file's command finds its run.
	id := rows[2][3]
	asPlan, stderr, err := runCLI(t, dir, "runs", "show", id, "--as-plan")
	if err != nil {
		t.Fatalf("--as-plan: %v\n%s", err, stderr)
	}
	p2 := filepath.Join(dir, "again.yaml")
	os.WriteFile(p2, []byte(asPlan), 0o644)
	from = len(srv.Ledger())
	if out, stderr, err := runCLI(t, dir, "run", p2); err != nil || len(srv.Ledger()) != from ||
		!strings.Contains(stderr, fmt.Sprintf("run %s, made by the same command, is done", id)) || !strings.Contains(out, "| "+id+" | done |") {
		t.Fatalf("the plan of run %s:\n%s\ndid not find it: %v\n%s\n%s", id, asPlan, err, out, stderr)
	}

	// A bad file is refused at its line and field, before anything runs.
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("runs:\n  - benchmark: classify\n    options:\n      limt: 4\n"), 0o644)
	if _, _, err := runCLI(t, dir, "run", bad); err == nil || !strings.Contains(err.Error(), "bad.yaml:4: runs[0].options.limt: fallacylab classify run has no flag --limt") {
		t.Fatalf("a misspelt option: %v", err)
	}
	// So is a value its flag does not take — an option's, a swept one's, a
	// global flag's (the dry run priced the plan, then each run failed on
	// strconv's words).
	for file, want := range map[string]string{
		"runs:\n  - benchmark: classify\n    options:\n      limit: five\n":              `bad.yaml:4: runs[0].options.limit: --limit takes a whole number, not "five"`,
		"runs:\n  - benchmark: classify\n    sweep:\n      limit: [4, x]\n":              `bad.yaml:4: runs[0].sweep.limit: --limit takes a whole number, not "x"`,
		"flags: {timeout: 5}\nruns:\n  - benchmark: classify\n    options: {limit: 4}\n": `bad.yaml:1: flags.timeout: --timeout takes a duration (30s, 2m, 1h), not "5"`,
	} {
		os.WriteFile(bad, []byte(file), 0o644)
		out, stderr, err := runCLI(t, dir, "--dry-run", "run", bad)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(out+stderr, "estimated cost") {
			t.Errorf("%q: %v\n%s%s", file, err, out, stderr)
		}
	}
	// A dry run whose run is refused (a range its command checks) prices
	// no whole: it said "estimated cost $0.0000 in all".
	os.WriteFile(bad, []byte("runs:\n  - benchmark: classify\n    options: {limit: 4, model: \"openai:gpt-4.1-mini\"}\n    sweep: {concurrency: [2, -3]}\n"), 0o644)
	out, _, err = runCLI(t, dir, "--dry-run", "run", bad)
	if err == nil || !strings.Contains(out, "dry run of "+bad+": 2 runs, 1 refused (below) and not priced; the others' estimated cost $") || strings.Contains(out, "in all") {
		t.Errorf("a dry run with a refused run: %v\n%s", err, out)
	}
}

// TestMissciTemplateSweep (#43): `missci run --template 'gen_cls/p4-*'`
// is one sweep — the dry run prices each template's run and the whole,
// sending nothing; killed (kill -9) in the middle, the same command
// resumes it, paying for nothing stored before; one table at the end.
func TestMissciTemplateSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the CLI")
	}
	srv := llmtest.New(llmtest.Options{APIKey: "test-key",
		Latency: func(r *rand.Rand) time.Duration { return time.Duration(3+r.IntN(6)) * time.Millisecond },
		Respond: func(c llmtest.Call) llmtest.Reply {
			return llmtest.Reply{Text: "1. Fallacious Premise: \"x\"; Applied Fallacy Class: Ambiguity."}
		}})
	defer srv.Close()
	dir := t.TempDir()
	if err := writeConfig(dir, srv); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "fallacylab.yaml")
	db := filepath.Join(dir, "f.db")
	args := []string{"missci", "run", "--model", "openai:gpt-4.1", "--split", "dev", "--limit", "6", "--template", "gen_cls/p4-*", "--format", "csv"}
	templates := 0
	for _, tpl := range missci.Templates() {
		if strings.HasPrefix(tpl, "gen_cls/p4-") {
			templates++
		}
	}
	if templates < 3 {
		t.Fatalf("%d gen_cls/p4-* templates", templates)
	}

	out, stderr, err := runCLI(t, dir, append([]string{"--dry-run"}, args...)...)
	if err != nil {
		t.Fatalf("dry run: %v\n%s", err, stderr)
	}
	sweepPriced(t, srv, out, stderr, fmt.Sprintf(`dry run of missci run --template: %d runs`, templates), templates)

	cmd := exec.Command(os.Args[0], append([]string{"--db", db, "--config", cfg, "--quiet", "--concurrency", "2"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "FALLACYLAB_BE_CLI=1", "OPENAI_API_KEY=test-key")
	if err := startKillable(t, cmd).killAfter(srv, 30); err == nil || !killed(err) {
		t.Fatalf("the sweep was not killed in the middle: %v", err)
	}
	before := storedCalls(t, db)
	from := len(srv.Ledger())
	t.Logf("killed with %d answers stored, %d requests sent (%d runs)", len(before), from, templates)
	t.Setenv("OPENAI_API_KEY", "test-key")
	out, stderr, err = runCLI(t, dir, args...)
	if err != nil {
		t.Fatalf("resumed sweep: %v\n%s", err, stderr)
	}
	for _, e := range srv.Ledger()[from:] {
		if before[e.Call.Model+"\x00"+e.Call.Prompt] {
			t.Fatalf("%.60q was stored before the kill but was sent again", e.Call.Prompt)
		}
	}
	rows := regexp.MustCompile(`(?m)^1,missci,template=gen_cls/p4-[^,]+,\d+,done,`).FindAllString(out, -1)
	if len(rows) != templates || !strings.Contains(stderr, "resuming run") {
		t.Fatalf("the resumed sweep's table has %d done runs, want %d (and a resumed one):\n%s\n%s", len(rows), templates, out, stderr)
	}
	from = len(srv.Ledger())
	if _, stderr, err := runCLI(t, dir, args...); err != nil || len(srv.Ledger()) != from || strings.Count(stderr, "is done: not run again") != templates {
		t.Fatalf("a finished sweep again: %v, %d requests\n%s", err, len(srv.Ledger())-from, stderr)
	}
}

// sweepPriced checks a sweep's dry run: it sent nothing, and its whole
// (stdout's line matching head) is the sum of its n runs' prices (stderr).
// Each run's price is printed rounded to $0.0001: their sum is the whole's
// within half of that per run.
func sweepPriced(t *testing.T, srv *llmtest.Server, out, stderr, head string, n int) {
	t.Helper()
	var each float64
	for _, m := range regexp.MustCompile(`estimated cost: \$([0-9.]+)`).FindAllStringSubmatch(stderr, -1) {
		v, _ := strconv.ParseFloat(m[1], 64)
		each += v
	}
	whole := regexp.MustCompile(head + `, estimated cost \$([0-9.]+) in all`).FindStringSubmatch(out)
	if whole == nil || len(srv.Ledger()) != 0 {
		t.Fatalf("dry run: %d requests sent; stdout:\n%s\nstderr:\n%s", len(srv.Ledger()), out, stderr)
	}
	if total, _ := strconv.ParseFloat(whole[1], 64); each == 0 || math.Abs(total-each) > 0.00005*float64(n)+1e-9 {
		t.Fatalf("the whole is priced $%s, its runs $%.4f together", whole[1], each)
	}
}

// pointsCounted checks that a Markdown report's meta counts the intervals
// of its tables that are the point itself ([0.000, 0.000]), and that it
// has some.
func pointsCounted(t *testing.T, out string) {
	t.Helper()
	points := 0
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "|") {
			continue // the meta's own example
		}
		for _, m := range regexp.MustCompile(`\[(-?[0-9.]+), (-?[0-9.]+)\]`).FindAllStringSubmatch(line, -1) {
			if m[1] == m[2] {
				points++
			}
		}
	}
	if points == 0 || !strings.Contains(out, fmt.Sprintf("- **point intervals**: %d intervals are the point itself", points)) {
		t.Fatalf("%d point intervals in the tables, not counted in the meta:\n%s", points, out)
	}
}
