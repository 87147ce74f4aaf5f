package cli_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/store/sqlite"

	"github.com/fallacylab/fallacylab/bench/missci"
	"github.com/fallacylab/fallacylab/lifecycle"
	"github.com/fallacylab/fallacylab/llm/llmtest"
	_ "modernc.org/sqlite"
)

func exitCode(err error) int {
	var le *lifecycle.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &le):
		return le.Code
	}
	return 1
}

func countRuns(t *testing.T, dir string) int {
	t.Helper()
	st, err := sqlite.Open(filepath.Join(dir, "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.Runs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return len(runs)
}

// TestDryRunCallsNothing runs every command that can call a model (or an
// external detector or scorer) with --dry-run: the test server's ledger and
// the external endpoints stay untouched, and no run is stored.
func TestDryRunCallsNothing(t *testing.T) {
	srv, dir := guaranteeEnv(t, nil)
	var external atomic.Int64
	ext := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		external.Add(1)
		http.Error(w, "a dry run must not call me", 500)
	}))
	defer ext.Close()
	p := func(name string) string { return filepath.Join(dir, name) }
	os.WriteFile(p("prompts.jsonl"), []byte(`{"id": "a", "prompt": "hi"}`+"\n"), 0o644)
	args, _ := missci.Load("dev")
	var preds strings.Builder
	for _, a := range args {
		for _, l := range a.Lines {
			fmt.Fprintf(&preds, "{\"id\": %q, \"predictions\": [{\"premise\": \"x\", \"class\": \"Other\"}]}\n", l.ID)
		}
	}
	os.WriteFile(p("preds.jsonl"), []byte(preds.String()), 0o644)
	// Setup without the network: an imported DeflectBench run to judge.
	for _, args := range [][]string{
		{"deflect", "synth", "--models", "m", "--samples", "1", "--out", p("syn")},
		{"deflect", "import", "--generations", p("syn/generations.jsonl"), "--evals", p("syn/evals.jsonl")},
	} {
		if _, stderr, err := runCLI(t, dir, args...); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr)
		}
	}
	runsBefore := countRuns(t, dir)
	commands := [][]string{
		{"ask", "openai:gpt-4.1-mini", "hi"},
		{"prompts", "run", p("prompts.jsonl"), "--models", "openai:gpt-4.1-mini,anthropic:claude-haiku-4-5,gemini:g"},
		{"prompts", "run", p("prompts.jsonl"), "--models", "openai:gpt-4.1-mini", "--batch"},
		{"deflect", "run", "--models", "openai:m", "--judges", "anthropic:j", "--samples", "1", "--pilot", "1"},
		{"deflect", "run", "--models", "openai:m", "--judges", "anthropic:j", "--samples", "1", "--pilot", "1", "--batch"},
		{"deflect", "judge", "--run", "1", "--judges", "openai:judge-x"},
		{"foils", "audit", "--detector", "llm:openai:m:typed"},
		{"foils", "audit", "--detector", "llm:anthropic:m:binary", "--batch"},
		{"foils", "audit", "--detector", ext.URL + "/classify"},
		{"foils", "generate", "--corpus", "argotario", "--generator", "gemini:g", "--judge", "openai:j", "--limit", "1", "--out-dir", p("gen")},
		{"missci", "run", "--model", "openai:m", "--split", "dev"},
		{"missci", "run", "--model", "openai:m", "--split", "dev", "--template", "gen_cls/p4-*"},
		{"missci", "run", "--task", "classify-gold", "--model", "openai:m", "--split", "dev"},
		{"missci", "run", "--task", "classify-only", "--model", "openai:m", "--split", "dev"},
		{"missci", "run", "--task", "consistency", "--model", "openai:m", "--split", "dev"},
		{"missci", "eval", "--split", "dev", "--predictions", p("preds.jsonl"), "--embedder", "openai:text-embedding-3-small", "--scorer", ext.URL},
		{"models", "check", "openai:m", "anthropic:m", "gemini:m", "localvllm:m"},
	}
	for _, args := range commands {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			before := len(srv.Ledger())
			out, stderr, err := runCLI(t, dir, append([]string{"--dry-run"}, args...)...)
			if err != nil {
				t.Fatalf("%v: %v\n%s\n%s", args, err, out, stderr)
			}
			if n := len(srv.Ledger()) - before; n != 0 {
				t.Fatalf("%v --dry-run sent %d requests to the model server", args, n)
			}
			if n := external.Load(); n != 0 {
				t.Fatalf("%v --dry-run called an external endpoint %d times", args, n)
			}
			if !strings.Contains(out+stderr, "dry run") {
				t.Fatalf("%v --dry-run does not say it is one:\n%s\n%s", args, out, stderr)
			}
		})
	}
	if n := countRuns(t, dir); n != runsBefore {
		t.Fatalf("dry runs stored %d runs", n-runsBefore)
	}
}

// TestUnusableAnswers: judges, Missci models and detectors whose answers
// cannot be parsed make the command fail with exit 4, one raw answer and the
// likely cause; the counts are stored with the run and shown by runs show;
// the report refuses the run.
func TestUnusableAnswers(t *testing.T) {
	srv, dir := guaranteeEnv(t, func(c llmtest.Call) llmtest.Reply {
		if strings.HasPrefix(c.System, judgeSystemStart) {
			return llmtest.Reply{Text: "I think this response is fine, really."}
		}
		return llmtest.Reply{Text: "Maybe. Hard to say."}
	})
	_ = srv
	t.Run("deflect judges", func(t *testing.T) {
		_, stderr, err := runCLI(t, dir, "deflect", "run", "--models", "openai:m", "--judges", "anthropic:judge-x", "--samples", "1", "--pilot", "2")
		if exitCode(err) != lifecycle.ExitUnusable {
			t.Fatalf("exit %d (%v), want 4\n%s", exitCode(err), err, stderr)
		}
		for _, want := range []string{"judging: 30 of 30 answers from anthropic:judge-x could not be parsed", "is this model able to follow the rubric",
			"one raw answer: «I think this response is fine, really.»"} {
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("error lacks %q:\n%v", want, err)
			}
		}
		out, _, err := runCLI(t, dir, "runs", "show", "1")
		if err != nil || !strings.Contains(out, "status:    failed: judging: 30 of 30") ||
			!regexpMatch(out, `judging\s+anthropic:judge-x\s+30\s+30\s+\d+\s+30\s+0`) {
			t.Fatalf("runs show: %v\n%s", err, out)
		}
		_, _, err = runCLI(t, dir, "deflect", "report")
		if err == nil || !strings.Contains(err.Error(), "did not finish") || !strings.Contains(err.Error(), "--allow-incomplete") {
			t.Fatalf("deflect report of a failed run: %v", err)
		}
		// The deletion it suggests names the store (--db): pasted without
		// it, it deleted run 1 of ./fallacylab.db, another run.
		if rm := "`fallacylab --db " + filepath.Join(dir, "f.db") + " runs rm 1`"; !strings.Contains(err.Error(), rm) {
			t.Fatalf("deflect report of a failed run does not say %s: %v", rm, err)
		}
		// Asked for explicitly, the report shows what is there.
		if out, stderr, err := runCLI(t, dir, "deflect", "report", "--run", "1", "--allow-incomplete", "--resamples", "10"); err != nil || !strings.Contains(out, "parse error") {
			t.Fatalf("--allow-incomplete: %v\n%s\n%.2000s", err, stderr, out)
		}
	})
	t.Run("missci", func(t *testing.T) {
		_, stderr, err := runCLI(t, dir, "missci", "run", "--model", "openai:m", "--split", "dev")
		if exitCode(err) != lifecycle.ExitUnusable || !strings.Contains(err.Error(), "reconstruction: 72 of 72 answers from openai:m could not be parsed") ||
			!strings.Contains(err.Error(), "«Maybe. Hard to say.»") {
			t.Fatalf("exit %d: %v\n%s", exitCode(err), err, stderr)
		}
		_, _, err = runCLI(t, dir, "missci", "run", "--task", "classify-gold", "--model", "openai:m", "--split", "dev")
		if exitCode(err) != lifecycle.ExitUnusable || !strings.Contains(err.Error(), "classification: 96 of 96") {
			t.Fatalf("classify-gold: exit %d: %v", exitCode(err), err)
		}
	})
	t.Run("foils detector", func(t *testing.T) {
		det := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var in struct{ Items []struct{ ID string } }
			json.NewDecoder(r.Body).Decode(&in)
			var out struct {
				Predictions []map[string]string `json:"predictions"`
			}
			for _, it := range in.Items {
				out.Predictions = append(out.Predictions, map[string]string{"id": it.ID, "label": "banana"})
			}
			json.NewEncoder(w).Encode(out)
		}))
		defer det.Close()
		_, stderr, err := runCLI(t, dir, "foils", "audit", "--detector", det.URL, "--resamples", "50", "--permutations", "50")
		if exitCode(err) != lifecycle.ExitUnusable || !strings.Contains(err.Error(), "«banana»") || !strings.Contains(err.Error(), "label set") {
			t.Fatalf("exit %d: %v\n%s", exitCode(err), err, stderr)
		}
		// Allowed, there is still nothing to analyse: said so, never NaN.
		_, _, err = runCLI(t, dir, "--max-unusable", "1", "foils", "audit", "--detector", det.URL, "--resamples", "50", "--permutations", "50")
		if err == nil || !strings.Contains(err.Error(), "nothing to analyse") {
			t.Fatalf("an all-unparsed audit: %v", err)
		}
	})
}

func regexpMatch(s, pattern string) bool {
	return regexpMust(pattern).MatchString(s)
}

// TestFailedStoreWrites: a store whose inserts fail after the provider
// answered gives failed jobs and a non-zero exit, never a silent success.
func TestFailedStoreWrites(t *testing.T) {
	_, dir := guaranteeEnv(t, nil)
	os.WriteFile(filepath.Join(dir, "p.jsonl"), []byte("{\"id\": \"a\", \"prompt\": \"one\"}\n{\"id\": \"b\", \"prompt\": \"two\"}\n"), 0o644)
	st, err := sqlite.Open(filepath.Join(dir, "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, err := sql.Open("sqlite", filepath.Join(dir, "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TRIGGER no_calls BEFORE INSERT ON calls BEGIN SELECT RAISE(ABORT, 'disk says no'); END`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, stderr, err := runCLI(t, dir, "prompts", "run", filepath.Join(dir, "p.jsonl"), "--models", "openai:gpt-4.1-mini", "--out", filepath.Join(dir, "o.jsonl"))
	if exitCode(err) != lifecycle.ExitFailedJobs || !strings.Contains(stderr, "not stored") || !strings.Contains(stderr, "disk says no") {
		t.Fatalf("exit %d: %v\n%s", exitCode(err), err, stderr)
	}
	out, _, _ := runCLI(t, dir, "runs")
	if !regexpMatch(out, `(?m)^1\s+prompts p.jsonl\s+prompts\s+incomplete`) {
		t.Fatalf("runs:\n%s", out)
	}
}

// TestBudgetUnderBatchCLI: --budget holds under --batch.
func TestBudgetUnderBatchCLI(t *testing.T) {
	srv, dir := guaranteeEnv(t, nil)
	var b strings.Builder
	for i := range 30 {
		fmt.Fprintf(&b, "{\"id\": \"q%d\", \"prompt\": \"question %d\", \"max_tokens\": 1000}\n", i, i)
	}
	os.WriteFile(filepath.Join(dir, "p.jsonl"), []byte(b.String()), 0o644)
	// gpt-4.1-mini at $1.6/M output: 1,000 tokens each ≈ $0.0008 discounted; $0.005 buys a few.
	_, stderr, err := runCLI(t, dir, "--batch", "--budget", "0.005", "prompts", "run", filepath.Join(dir, "p.jsonl"), "--models", "openai:gpt-4.1-mini")
	if exitCode(err) != lifecycle.ExitBudget {
		t.Fatalf("exit %d: %v\n%s", exitCode(err), err, stderr)
	}
	if n := len(srv.Ledger()); n == 0 || n >= 30 {
		t.Fatalf("%d of 30 requests sent under a budget for a few", n)
	}
}

// TestMissciRunsKeepTheirPredictions: two Missci runs back to back, each
// reported from the store, keep their own predictions.
func TestMissciRunsKeepTheirPredictions(t *testing.T) {
	_, dir := guaranteeEnv(t, missciScripted(t))
	for _, tpl := range []string{"gen_cls/p4-connect-D", "gen_cls/p1-basic-D"} {
		if _, stderr, err := runCLI(t, dir, "--max-unusable", "-1", "missci", "run", "--model", "openai:gpt-4.1", "--split", "dev", "--template", tpl); err != nil {
			t.Fatalf("%s: %v\n%s", tpl, err, stderr)
		}
	}
	one, _, err1 := runCLI(t, dir, "missci", "report", "--run", "1")
	two, _, err2 := runCLI(t, dir, "missci", "report", "--run", "2")
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if !strings.Contains(one, "| run 1: openai:gpt-4.1 gen_cls/p4-connect-D | 1 | 72 | 0.4861 |") {
		t.Fatalf("run 1 lost its predictions:\n%s", one)
	}
	if !strings.Contains(two, "| run 2: openai:gpt-4.1 gen_cls/p1-basic-D | 1 | 72 | 0.0000 |") {
		t.Fatalf("run 2 has another run's predictions:\n%s", two)
	}
}

// TestKilledImportIsIncomplete SIGKILLs `deflect import` while it writes:
// the run is shown as interrupted, reports refuse it, and importing again
// resumes that run and lands every record.
func TestKilledImportIsIncomplete(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the CLI")
	}
	_, dir := guaranteeEnv(t, nil)
	syn := filepath.Join(dir, "syn")
	if _, stderr, err := runCLI(t, dir, "deflect", "synth", "--models", "a,b,c", "--samples", "5", "--out", syn); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	db := filepath.Join(dir, "f.db")
	args := []string{"--db", db, "--quiet", "deflect", "import", "--generations", filepath.Join(syn, "generations.jsonl"), "--evals", filepath.Join(syn, "evals.jsonl")}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "FALLACYLAB_BE_CLI=1")
	childErr, err := os.Create(filepath.Join(dir, "import.stderr")) // a file: no copying goroutine to race with
	if err != nil {
		t.Fatal(err)
	}
	defer childErr.Close()
	cmd.Stderr = childErr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stderrText := func() string { b, _ := os.ReadFile(childErr.Name()); return string(b) }
	var state *os.ProcessState
	exited := make(chan struct{})
	go func() { state, _ = cmd.Process.Wait(); close(exited) }()
	// Kill it once its run exists, while the records are being written.
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-exited:
			if runsIn(db) == 0 {
				t.Fatalf("the import exited before it started its run:\n%s", stderrText())
			}
			t.Skip("the import finished before the kill on this machine")
		default:
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the import never started its run in 60 s:\n%s", stderrText())
		}
		if runsIn(db) > 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	<-exited
	if state != nil && state.Success() {
		t.Skip("the import finished before the kill on this machine")
	}
	out, _, err := runCLI(t, dir, "runs")
	if err != nil || !regexpMatch(out, `(?m)^1\s+deflect import\s+deflect\s+interrupted`) {
		t.Fatalf("runs after the kill: %v\n%s", err, out)
	}
	_, _, err = runCLI(t, dir, "deflect", "report")
	if err == nil || !strings.Contains(err.Error(), "run 1 (deflect import) did not finish") {
		t.Fatalf("report of a killed import: %v", err)
	}
	out, stderr, err := runCLI(t, dir, "deflect", "import", "--generations", filepath.Join(syn, "generations.jsonl"), "--evals", filepath.Join(syn, "evals.jsonl"))
	if err != nil || !strings.Contains(stderr, "resuming run 1 (interrupted)") || !strings.Contains(out, "as run 1") {
		t.Fatalf("re-import: %v\n%s\n%s", err, stderr, out)
	}
	if out, _, err := runCLI(t, dir, "deflect", "report", "--resamples", "10"); err != nil || !strings.Contains(out, "run 1 in") {
		t.Fatalf("report after the re-import: %v\n%.500s", err, out)
	}
}

// runsIn counts the runs in a store without migrating or locking it.
func runsIn(path string) int {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(50)")
	if err != nil {
		return 0
	}
	defer db.Close()
	var n int
	if db.QueryRow(`SELECT COUNT(*) FROM runs`).Scan(&n) != nil {
		return 0
	}
	return n
}

func regexpMust(p string) *regexp.Regexp { return regexp.MustCompile(p) }

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// TestKeysAreRedacted: a server that quotes the key it was sent in its 401
// gets it removed from stderr, the store, --log, runs export and --out.
func TestKeysAreRedacted(t *testing.T) {
	const key = "sk-live-0123456789abcdefSECRET"
	srv := llmtest.New(llmtest.Options{APIKey: "the-right-key", EchoKey: true})
	defer srv.Close()
	dir := t.TempDir()
	writeConfig(dir, srv)
	t.Setenv("OPENAI_API_KEY", key)
	p := func(n string) string { return filepath.Join(dir, n) }
	os.WriteFile(p("p.jsonl"), []byte("{\"id\": \"a\", \"prompt\": \"one\"}\n{\"id\": \"b\", \"prompt\": \"two\"}\n"), 0o644)
	_, stderr, err := runCLI(t, dir, "--log", p("log.jsonl"), "prompts", "run", p("p.jsonl"), "--models", "openai:gpt-4.1-mini", "--out", p("out.jsonl"))
	if exitCode(err) != lifecycle.ExitFailedJobs || !strings.Contains(stderr, "Incorrect API key provided: [redacted]") {
		t.Fatalf("exit %d: %v\n%s", exitCode(err), err, stderr)
	}
	if _, _, err := runCLI(t, dir, "runs", "export", "1", "--out", p("export.jsonl")); err != nil {
		t.Fatal(err)
	}
	out, _, _ := runCLI(t, dir, "models", "check", "openai:gpt-4.1-mini")
	for name, text := range map[string]string{"stderr": stderr, "error": err.Error(), "models check": out} {
		if strings.Contains(text, key) {
			t.Errorf("the key is in %s", name)
		}
	}
	for _, f := range []string{"log.jsonl", "out.jsonl", "export.jsonl", "f.db", "f.db-wal"} {
		b, _ := os.ReadFile(p(f))
		if bytes.Contains(b, []byte(key)) {
			t.Errorf("the key is in %s", f)
		}
	}
	if b, _ := os.ReadFile(p("export.jsonl")); !bytes.Contains(b, []byte("[redacted]")) {
		t.Fatal("the export does not show the redacted error")
	}
}

// Repointing an endpoint is another server: the same ask is not served from
// the other server's cache (unless cache_as says they are one), and the run
// records the base URL it used.
func TestRepointedEndpointIsNotCached(t *testing.T) {
	a := llmtest.New(llmtest.Options{Respond: func(llmtest.Call) llmtest.Reply { return llmtest.Reply{Text: "from A"} }})
	defer a.Close()
	b := llmtest.New(llmtest.Options{Respond: func(llmtest.Call) llmtest.Reply { return llmtest.Reply{Text: "from B"} }})
	defer b.Close()
	dir := t.TempDir()
	t.Setenv("OPENAI_API_KEY", "test-key")
	cfg := func(url, extra string) {
		os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), []byte("endpoints:\n  openai:\n    base_url: "+url+"/v1\n"+extra), 0o644)
	}
	cfg(a.URL, "")
	if out, _, err := runCLI(t, dir, "ask", "openai:m", "hi"); err != nil || !strings.Contains(out, "from A") {
		t.Fatalf("%v %s", err, out)
	}
	cfg(b.URL, "")
	if out, _, err := runCLI(t, dir, "ask", "openai:m", "hi"); err != nil || !strings.Contains(out, "from B") || len(b.Ledger()) != 1 {
		t.Fatalf("after repointing: %v %q (%d calls to B)", err, out, len(b.Ledger()))
	}
	out, _, _ := runCLI(t, dir, "runs", "show", "2")
	if !strings.Contains(out, `"openai": "`+b.URL+`/v1"`) || strings.Contains(out, `"Temperature": 0`) {
		t.Fatalf("runs show does not record the base URL used, or records an unset temperature:\n%s", out)
	}
	// cache_as names one server at two addresses.
	cfg(a.URL, "    cache_as: the-lab\n")
	runCLI(t, dir, "ask", "openai:m", "again")
	cfg(b.URL, "    cache_as: the-lab\n")
	if out, _, err := runCLI(t, dir, "ask", "openai:m", "again"); err != nil || !strings.Contains(out, "from A") {
		t.Fatalf("cache_as: %v %q", err, out)
	}
}
