package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/llm/llmtest"
)

// TestQueueCommand (#26 item 8): `fallacylab queue` shows a run's jobs per
// queue and the workers alive; `queue cancel` fails a waiting run's jobs
// (the run exits unsuccessfully, saying why); `queue retry` puts them back,
// workers make them, and the run's command run again answers every job
// from the cache without a new request.
func TestQueueCommand(t *testing.T) {
	const n = 30
	r, srv, pg := teamRig(t, llmtest.Options{}, n, "queue command prompt")
	queue := func(args ...string) string {
		t.Helper()
		out, _, err := runCLI(t, r.dir, append([]string{"--db", pg, "queue"}, args...)...)
		if err != nil {
			t.Fatalf("queue %v: %v\n%s", args, err, out)
		}
		return out
	}
	args := []string{"prompts", "run", "plan.jsonl", "--models", "openai:gpt-4.1-mini", "--out", "out.jsonl"}
	coord := r.queue(args...)
	r.waitFor("every job queued", func() bool { return r.count(`SELECT COUNT(*) FROM river_job`) == n })
	out := queue()
	if !strings.Contains(out, "openai:gpt-4.1-mini  30      0        0     0") || !strings.Contains(out, "no worker heard from") {
		t.Fatalf("queue before any worker:\n%s", out)
	}
	if out := queue("cancel", "1"); !strings.Contains(out, "cancelled 30 jobs of run 1") {
		t.Fatalf("queue cancel: %s", out)
	}
	if err := coord.Wait(); err == nil {
		t.Fatalf("a run whose jobs were cancelled exited 0\n%s", r.log("coordinator.log"))
	}
	if log := r.log("coordinator.log"); !strings.Contains(log, "cancelled by fallacylab queue cancel") {
		t.Fatalf("the run does not say its jobs were cancelled:\n%s", log)
	}
	var js struct {
		Jobs []struct {
			Run          int64
			Failed, Done int
			LastError    string `json:"last_error"`
		}
	}
	if err := json.Unmarshal([]byte(queue("--run", "1", "--json")), &js); err != nil || len(js.Jobs) != 1 || js.Jobs[0].Failed != n ||
		!strings.Contains(js.Jobs[0].LastError, "queue cancel") {
		t.Fatalf("queue --json after cancel: %+v (%v)", js, err)
	}
	if out := queue("retry", "1"); !strings.Contains(out, "queued 30 failed jobs of run 1 again") {
		t.Fatalf("queue retry: %s", out)
	}
	alive := r.spawn("alive.log", "worker", "--name", "the-listed-one")
	r.waitFor("the retried jobs made", func() bool {
		return r.count(`SELECT COUNT(*) FROM river_job WHERE state = 'completed'`) == n
	})
	r.waitFor("the worker's heartbeat", func() bool { return strings.Contains(queue(), "the-listed-one") })
	if out := queue(); !strings.Contains(out, "openai:gpt-4.1-mini  0       0        30    0") {
		t.Fatalf("queue after the retry:\n%s", out)
	}
	alive.Process.Kill()
	alive.Wait()
	if got := len(srv.Ledger()); got != n {
		t.Fatalf("%d requests for %d jobs", got, n)
	}
	// The run again, in one process: every answer from the cache.
	t.Setenv("OPENAI_API_KEY", "test-key")
	again := []string{"--db", pg, "prompts", "run", filepath.Join(r.dir, "plan.jsonl"), "--models", "openai:gpt-4.1-mini", "--out", filepath.Join(r.dir, "again.jsonl")}
	if out, _, err := runCLI(t, r.dir, again...); err != nil {
		t.Fatalf("the run again: %v\n%s", err, out)
	}
	if got := len(srv.Ledger()); got != n {
		t.Fatalf("the run again made %d requests, want 0", got-n)
	}
	if _, _, err := runCLI(t, r.dir, "queue"); err == nil || !strings.Contains(err.Error(), "postgres://") {
		t.Fatalf("queue on a SQLite store: %v", err)
	}
}
