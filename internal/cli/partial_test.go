package cli_test

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/llm/llmtest"
)

// A run interrupted in the middle of a phase keeps what it answered, and
// --allow-incomplete reports it, marked as partial; the resume finishes it.
func TestInterruptedRunReportsWhatItHolds(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the CLI")
	}
	srv := llmtest.New(llmtest.Options{APIKey: "test-key", Respond: scripted,
		Latency: func(r *rand.Rand) time.Duration { return time.Duration(20+r.IntN(20)) * time.Millisecond }})
	defer srv.Close()
	dir := t.TempDir()
	if err := writeConfig(dir, srv); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "claims.jsonl"), []byte(fourClaims), 0o644)
	for _, phase := range []struct {
		name  string
		after int // calls answered before the interrupt
	}{{"generation", 20}, {"judging", 75}} {
		t.Run(phase.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "f.db")
			from := len(srv.Ledger())
			cmd := exec.Command(os.Args[0], "--db", db, "--concurrency", "2", "deflect", "run", "--models", "openai:model-a", "--judges", "anthropic:judge-a",
				"--samples", "1", "--claims", "claims.jsonl", "--quiet")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "FALLACYLAB_BE_CLI=1", "OPENAI_API_KEY=test-key", "ANTHROPIC_API_KEY=test-key")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(20 * time.Second); len(srv.Ledger())-from < phase.after && time.Now().Before(deadline); {
				time.Sleep(5 * time.Millisecond)
			}
			cmd.Process.Signal(syscall.SIGINT)
			cmd.Wait()
			if n := len(srv.Ledger()) - from; n >= 120 {
				t.Skipf("the run finished (%d calls) before the interrupt", n)
			}
			rep, stderr, err := runCLI2(t, dir, db, "deflect", "report", "--run", "1", "--allow-incomplete", "--resamples", "20")
			if phase.name == "judging" && !strings.Contains(rep, "| openai:model-a | 60 | 0 | 60 |") {
				t.Errorf("interrupted while judging, the report lacks the 60 generations:\n%.1500s", rep)
			}
			if err != nil {
				t.Fatalf("report of the interrupted run: %v\n%s", err, stderr)
			}
			if !strings.Contains(rep, "model-a") || !strings.Contains(rep, "**partial**: run 1 did not finish") {
				t.Fatalf("the report of an interrupted run does not show what it holds, marked partial:\n%.1500s\n%s", rep, stderr)
			}
		})
	}
}
