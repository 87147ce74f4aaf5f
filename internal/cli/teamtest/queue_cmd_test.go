package teamtest_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/backend"
	"github.com/fallacylab/fallacylab/internal/cli/clitest"
	"github.com/fallacylab/fallacylab/llm/llmtest"
	"github.com/fallacylab/fallacylab/web"
	"github.com/fallacylab/fallacylab/web/webtest"
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
		out, _, err := clitest.Run(t, r.dir, append([]string{"--db", pg, "queue"}, args...)...)
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
	if _, _, err := clitest.Run(t, r.dir, "--db", pg, "queue", "cancel", "99"); err == nil || !strings.Contains(err.Error(), "no run 99") {
		t.Fatalf("queue cancel of a run that is not there: %v, want an error (before: \"cancelled 0 jobs\")", err)
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
	// A worker alive without the provider's key: the queue says that none
	// of the workers serves the open jobs' queue.
	keyless := r.spawnEnv("keyless.log", []string{"OPENAI_API_KEY="}, "worker", "--name", "the-keyless-one")
	r.waitFor("the keyless worker's heartbeat", func() bool { return strings.Contains(queue(), "the-keyless-one") })
	if out := queue(); !strings.Contains(out, "run 1, openai:gpt-4.1-mini: 30 open and none of the workers heard from serves its queue") {
		t.Fatalf("queue with a worker that skips the queue:\n%s", out)
	}
	if out, _, err := clitest.Run(t, r.dir, "--db", pg, "runs", "show", "1"); err != nil || !strings.Contains(out, "openai:gpt-4.1-mini: 30 open, none of the workers heard from in the last 1m0s serves its queue") {
		t.Fatalf("runs show with a worker that skips the run's queue (%v):\n%s", err, out)
	}
	var shown struct {
		Workers struct {
			Queued   int
			Unserved []struct {
				Model string
				Open  int
			}
			NoWorker bool `json:"no_worker_alive"`
		}
	}
	out, _, err := clitest.Run(t, r.dir, "--db", pg, "runs", "show", "1", "--json")
	if err != nil || json.Unmarshal([]byte(out), &shown) != nil || shown.Workers.Queued != n || len(shown.Workers.Unserved) != 1 ||
		shown.Workers.Unserved[0].Model != "openai:gpt-4.1-mini" || shown.Workers.Unserved[0].Open != n || shown.Workers.NoWorker {
		t.Fatalf("runs show --json with a worker that skips the run's queue (%v): %+v\n%s", err, shown, out)
	}
	keyless.Process.Kill()
	keyless.Wait()
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
	if out, _, err := clitest.Run(t, r.dir, again...); err != nil {
		t.Fatalf("the run again: %v\n%s", err, out)
	}
	if got := len(srv.Ledger()); got != n {
		t.Fatalf("the run again made %d requests, want 0", got-n)
	}
	if _, _, err := clitest.Run(t, r.dir, "queue"); err == nil || !strings.Contains(err.Error(), "postgres://") {
		t.Fatalf("queue on a SQLite store: %v", err)
	}
}

// TestViewQueueUI (#26 item 8): `view --queue` serves River's own UI of
// the work queue under /queue/ on loopback — its pages and its API list
// the run's jobs — behind the viewer's rules: a request naming another
// host is refused, a change (cancel) coming from another site is refused,
// one from the UI's own page is made; a non-loopback --addr is refused.
func TestViewQueueUI(t *testing.T) {
	const n = 5
	r, _, pg := teamRig(t, llmtest.Options{}, n, "queue ui prompt")
	coord := r.queue("prompts", "run", "plan.jsonl", "--models", "openai:gpt-4.1-mini", "--out", "out.jsonl")
	defer coord.Process.Kill()
	r.waitFor("every job queued", func() bool { return r.count(`SELECT COUNT(*) FROM river_job`) == n })
	view := r.spawn("view.log", "view", "--queue", "--addr", "127.0.0.1:0")
	defer view.Process.Kill()
	var base string
	r.waitFor("the viewer's address", func() bool {
		m := regexp.MustCompile(`River UI\) on (http://127\.0\.0\.1:\d+)/queue/`).FindStringSubmatch(r.log("view.log"))
		if m != nil {
			base = m[1]
		}
		return m != nil
	})
	get := func(path string, hdr map[string]string) (int, string) {
		req, _ := http.NewRequest("GET", base+path, nil)
		for k, v := range hdr {
			if k == "Host" {
				req.Host = v
			} else {
				req.Header.Set(k, v)
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/queue/", nil); code != 200 || !strings.Contains(body, "<html") {
		t.Fatalf("/queue/: %d %.200s", code, body)
	}
	code, body := get("/queue/api/jobs?state=available&limit=20", nil)
	var jobs struct {
		Data []struct {
			ID    json.Number `json:"id"`
			Kind  string      `json:"kind"`
			Queue string      `json:"queue"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(body), &jobs); code != 200 || err != nil || len(jobs.Data) != n || jobs.Data[0].Kind != "fallacylab_call" {
		t.Fatalf("/queue/api/jobs: %d %v %.300s", code, err, body)
	}
	if code, _ := get("/queue/api/jobs?state=available", map[string]string{"Host": "evil.example"}); code == 200 {
		t.Fatal("a request naming another host was answered")
	}
	cancel := func(hdr map[string]string) int {
		req, _ := http.NewRequest("POST", base+"/queue/api/jobs/cancel", strings.NewReader(`{"ids": ["`+string(jobs.Data[0].ID)+`"]}`))
		req.Header.Set("Content-Type", "application/json")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := cancel(map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "http://evil.example"}); code != http.StatusForbidden {
		t.Fatalf("a cancel from another site answered %d", code)
	}
	if got := r.count(`SELECT COUNT(*) FROM river_job WHERE state = 'cancelled'`); got != 0 {
		t.Fatalf("%d jobs cancelled by a refused request", got)
	}
	if code := cancel(map[string]string{"Sec-Fetch-Site": "same-origin"}); code != 200 {
		t.Fatalf("a cancel from the UI's own page answered %d", code)
	}
	if got := r.count(`SELECT COUNT(*) FROM river_job WHERE state = 'cancelled'`); got != 1 {
		t.Fatalf("%d jobs cancelled, want 1", got)
	}
	if _, _, err := clitest.RunIn(t, r.dir, pg, "view", "--queue", "--allow-remote", "--addr", "0.0.0.0:0"); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("view --queue on a non-loopback address: %v", err)
	}
}

// TestQueuingNeedsNoKeys: a run queued with --workers 0 on a machine
// without the provider's key queues its calls (the workers call, with
// their own keys) and finishes when a worker with the key has made them;
// before, it refused to start for want of a key it never uses.
func TestQueuingNeedsNoKeys(t *testing.T) {
	const n = 10
	r, srv, _ := teamRig(t, llmtest.Options{}, n, "keyless prompt")
	coord := r.spawnEnv("coordinator.log", []string{"OPENAI_API_KEY="}, "--workers", "0", "prompts", "run", "plan.jsonl", "--models", "openai:gpt-4.1-mini", "--out", "out.jsonl")
	r.waitFor("the keyless run to queue its jobs", func() bool { return r.count(`SELECT COUNT(*) FROM river_job`) == n })
	r.work(nil)
	if err := coord.Wait(); err != nil {
		t.Fatalf("the keyless run: %v\n%s", err, r.log("coordinator.log"))
	}
	r.allDone(n)
	if got := len(srv.Ledger()); got != n {
		t.Fatalf("%d requests for %d jobs", got, n)
	}
}

// TestInterruptedQueuingRunSaysItsJobsStay: a queuing run interrupted
// (Ctrl-C) while no worker has made its jobs exits 130 and says that the
// jobs it queued stay in the queue for the workers, and how to take them
// out (before: only that it was interrupted, while workers went on making
// — and paying for — its calls).
func TestInterruptedQueuingRunSaysItsJobsStay(t *testing.T) {
	const n = 30
	r, _, pg := teamRig(t, llmtest.Options{}, n, "interrupted prompt")
	coord := r.queue("prompts", "run", "plan.jsonl", "--models", "openai:gpt-4.1-mini", "--out", "out.jsonl")
	r.waitFor("every job queued", func() bool { return r.count(`SELECT COUNT(*) FROM river_job`) == n })
	if err := coord.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := coord.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("the interrupted run: %v, want exit 130\n%s", err, r.log("coordinator.log"))
	}
	if log := r.log("coordinator.log"); !strings.Contains(log, "30 jobs this run queued stay in the queue") || !strings.Contains(log, "queue cancel 1 takes them out") {
		t.Fatalf("the interrupted run does not say its jobs stay queued:\n%s", log)
	}
	// The queue says so too, of a run no process waits for.
	out, _, err := clitest.Run(t, r.dir, "--db", pg, "queue")
	if err != nil || !regexp.MustCompile(`run 1 is interrupted[^\n]*, with 30 jobs open: the workers still make them`).MatchString(out) {
		t.Fatalf("queue after the run was interrupted (%v):\n%s", err, out)
	}
}

// TestViewerShowsAQueuedRunsWorkers: the viewer's page of a queued run
// still running says how its jobs stand with the workers, and, where no
// worker alive serves a model's queue, says so in place of that model's
// ETA (before: the page showed an ETA from the run's pace for a model no
// one was calling, and nothing of the workers).
func TestViewerShowsAQueuedRunsWorkers(t *testing.T) {
	const n = 30
	r, _, pg := teamRig(t, llmtest.Options{}, n, "viewer prompt")
	coord := r.queue("prompts", "run", "plan.jsonl", "--models", "openai:gpt-4.1-mini", "--out", "out.jsonl")
	defer func() { coord.Process.Kill(); coord.Wait() }()
	r.waitFor("every job queued", func() bool { return r.count(`SELECT COUNT(*) FROM river_job`) == n })
	st, err := backend.Open(context.Background(), pg, backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	v, err := web.New(st)
	if err != nil {
		t.Fatal(err)
	}
	get := webtest.Visitor(v.Handler())
	var page string
	r.waitFor("the run's phase counted on its page", func() bool {
		rec := get("GET", "/runs/1", nil)
		page = rec.Body.String()
		return rec.Code == 200 && strings.Contains(page, "<td>openai:gpt-4.1-mini</td>")
	})
	for _, want := range []string{"Its calls are made by workers: 30 queued, 0 being made, 0 done, 0 failed.",
		"openai:gpt-4.1-mini: 30 open, no worker heard from in the last 1m0s.", "no worker serves it"} {
		if !strings.Contains(page, want) {
			t.Fatalf("the run's page lacks %q:\n%s", want, page)
		}
	}
}
