package cli_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/store/sqlite"

	"github.com/fallacylab/fallacylab/llm/llmtest"
	"github.com/fallacylab/fallacylab/store"
)

// TestKillAndResume SIGKILLs the CLI at several points of a 2,000-job plan and
// re-runs the same command each time. No job stored before a run may be
// requested again by it, and the final state holds exactly one answer per job.
func TestKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the CLI several times")
	}
	srv := llmtest.New(llmtest.Options{APIKey: "test-key",
		Latency: func(r *rand.Rand) time.Duration { return time.Duration(2+r.IntN(8)) * time.Millisecond }})
	defer srv.Close()
	dir := t.TempDir()
	if err := writeConfig(dir, srv); err != nil {
		t.Fatal(err)
	}
	const n = 2000
	promptOf := promptFile(t, dir, "plan.jsonl", n, "kill test prompt") // cache key → prompt
	storedPrompts := func() map[string]bool { return storedPrompts(t, filepath.Join(dir, "fallacylab.db"), promptOf) }
	command := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "prompts", "run", "plan.jsonl", "--models", "openai:gpt-4.1-mini", "--concurrency", "4", "--quiet")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "FALLACYLAB_BE_CLI=1", "OPENAI_API_KEY=test-key")
		return cmd
	}
	checkRun := func(label string, before map[string]bool, from int) {
		for _, e := range srv.Ledger()[from:] {
			if before[e.Call.Prompt] {
				t.Fatalf("%s: %q was already stored but was requested again", label, e.Call.Prompt)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	before := map[string]bool{}
	kills := 0
	for i := range 5 {
		from := len(srv.Ledger())
		// Killed once it has sent some requests.
		err := startKillable(t, command()).killAfter(srv, from+50+rng.IntN(400))
		if err == nil {
			t.Logf("run %d finished before the kill", i)
		} else {
			kills++
		}
		checkRun(fmt.Sprintf("run %d", i), before, from)
		now := storedPrompts()
		if len(now) < len(before) {
			t.Fatalf("run %d: stored answers went from %d to %d", i, len(before), len(now))
		}
		t.Logf("kill %d: %d of %d stored", i, len(now), n)
		before = now
	}
	if kills < 3 {
		t.Fatalf("only %d of 5 runs were killed mid-plan; the plan is too fast for this test", kills)
	}
	from := len(srv.Ledger())
	cmd := command()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("final run: %v\n%s", err, out)
	}
	checkRun("final run", before, from)
	final := storedPrompts()
	if len(final) != n {
		t.Fatalf("final: %d of %d jobs stored", len(final), n)
	}
	st, _ := sqlite.Open(filepath.Join(dir, "fallacylab.db"))
	defer st.Close()
	if c, _ := st.CountCalls(context.Background(), ""); c != n {
		t.Fatalf("store holds %d calls for %d jobs", c, n)
	}
	// Every resume continued the same run: one run, done, holding every call.
	runs, err := st.Runs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Status != store.RunDone || runs[0].Calls != n {
		t.Fatalf("after %d kills and resumes: %d runs, want 1 done run with %d calls: %+v", kills, len(runs), n, runs)
	}
	if !bytes.Contains(out, []byte(fmt.Sprintf("resuming run %d (interrupted)", runs[0].ID))) {
		t.Fatalf("the final run did not say which run it resumed:\n%s", out)
	}
	answered := 0
	for _, e := range srv.Ledger() {
		if e.Answered() {
			answered++
		}
	}
	t.Logf("%d answers delivered for %d jobs over %d killed runs (%d answered but lost to a kill before commit)", answered, n, kills, answered-n)
}

// TestBudgetAcrossKills (#41 item 7): a $0.30 run with 5,000-token answers,
// killed six times with calls in flight and run again each time, is billed
// no more than its budget over every invocation together: each call is
// marked in the store before it is sent, and a resumed run counts the dead
// process's marks as spent.
func TestBudgetAcrossKills(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the CLI several times")
	}
	const out = 5000 // output tokens of every answer
	srv := llmtest.New(llmtest.Options{APIKey: "test-key",
		Latency: func(r *rand.Rand) time.Duration { return time.Duration(300+r.IntN(300)) * time.Millisecond },
		Respond: func(c llmtest.Call) llmtest.Reply {
			return llmtest.Reply{Text: "a long answer", OutputTokens: out}
		}})
	defer srv.Close()
	dir := t.TempDir()
	if err := writeConfig(dir, srv); err != nil {
		t.Fatal(err)
	}
	var plan bytes.Buffer
	for i := range 400 {
		fmt.Fprintf(&plan, "{\"id\": \"q%d\", \"prompt\": \"budget kill prompt %d\", \"max_tokens\": %d}\n", i, i, out)
	}
	os.WriteFile(filepath.Join(dir, "plan.jsonl"), plan.Bytes(), 0o644)
	const budget = 0.30
	command := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "--budget", fmt.Sprint(budget), "prompts", "run", "plan.jsonl", "--models", "openai:gpt-4.1-mini", "--concurrency", "8", "--quiet")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "FALLACYLAB_BE_CLI=1", "OPENAI_API_KEY=test-key")
		return cmd
	}
	rng := rand.New(rand.NewPCG(3, 4))
	kills := 0
	for range 6 {
		if killed(startKillable(t, command()).killAfter(srv, len(srv.Ledger())+1+rng.IntN(2))) {
			kills++
		}
	}
	final, _ := command().CombinedOutput()
	// What the provider billed: every answer it made (in flight at a kill
	// or not), at gpt-4.1-mini's configured $0.4 and $1.6 a million tokens.
	billed := 0.0
	time.Sleep(700 * time.Millisecond) // the answers to the last killed calls
	for _, e := range srv.Ledger() {
		if e.Answered() {
			in := 1 + len(strings.Fields(e.Call.Prompt))
			billed += (0.4*float64(in) + 1.6*out) / 1e6
		}
	}
	t.Logf("%d kills, %d requests, $%.4f billed on a budget of $%.2f; the last run said:\n%s", kills, len(srv.Ledger()), billed, budget, final)
	if kills < 3 {
		t.Fatalf("only %d of 6 runs were killed", kills)
	}
	if billed > budget+1e-9 {
		t.Fatalf("$%.4f billed over %d kills on a budget of $%.2f", billed, kills, budget)
	}
}

// killable is a started command whose end is watched, so that a test can
// wait for the server to see some of its requests, or for it to end.
type killable struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

func startKillable(t *testing.T, cmd *exec.Cmd) *killable {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	k := &killable{cmd: cmd, done: make(chan struct{})}
	go func() { k.err = cmd.Wait(); close(k.done) }()
	return k
}

// killAfter kills the command once the server has seen n requests (a
// count, not a time: a busy machine's slow start never gets a process
// killed before its first call) and returns how it ended; a command that
// ends first is not killed. A hang guard of 2 minutes, not a timing.
func (k *killable) killAfter(srv *llmtest.Server, n int) error {
	for deadline := time.Now().Add(2 * time.Minute); len(srv.Ledger()) < n && time.Now().Before(deadline); {
		select {
		case <-k.done:
			return k.err
		case <-time.After(5 * time.Millisecond):
		}
	}
	k.cmd.Process.Signal(syscall.SIGKILL)
	<-k.done
	return k.err
}

// killed reports whether a command ended by a signal (SIGKILL).
func killed(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled()
}

// TestKilledDeflectRunReportSaysWhatToDo (#41 item 12): a DeflectBench run
// killed (kill -9) in its generation phase has no records — they are
// stored as each phase ends — so `deflect report --allow-incomplete` says
// so and how to store what it answered without paying (before, it showed
// an empty report); the same command with --cache only then stores the
// answered generations, sending nothing, and the report covers them.
func TestKilledDeflectRunReportSaysWhatToDo(t *testing.T) {
	srv, dir := guaranteeEnv(t, func(c llmtest.Call) llmtest.Reply {
		time.Sleep(20 * time.Millisecond) // a run the kill finds in its generation phase
		return scripted(c)
	})
	args := []string{"deflect", "run", "--models", "openai:model-a", "--judges", "anthropic:judge-a", "--samples", "1", "--limit", "10", "--concurrency", "2"}
	cmd := exec.Command(os.Args[0], append([]string{"--quiet", "--db", "f.db", "--config", "fallacylab.yaml"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "FALLACYLAB_BE_CLI=1")
	startKillable(t, cmd).killAfter(srv, 8)
	_, _, err := runCLI(t, dir, "deflect", "report", "--run", "1", "--allow-incomplete")
	if err == nil || !strings.Contains(err.Error(), "has no records: it stopped during its generation phase") || !strings.Contains(err.Error(), "--cache only") {
		t.Fatalf("the report of a run killed in its first phase: %v", err)
	}
	sent := len(srv.Ledger())
	_, stderr, _ := runCLI(t, dir, append([]string{"--cache", "only"}, args...)...)
	if got := len(srv.Ledger()); got != sent {
		t.Fatalf("--cache only sent %d requests\n%s", got-sent, stderr)
	}
	rep, stderr, err := runCLI(t, dir, "deflect", "report", "--run", "1", "--allow-incomplete")
	if err != nil || !strings.Contains(rep, "Refusal") && !strings.Contains(rep, "refusal") {
		t.Fatalf("the report after --cache only: %v\n%s\n%s", err, stderr, rep)
	}
}
