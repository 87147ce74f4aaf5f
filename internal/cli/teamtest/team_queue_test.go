package teamtest_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/internal/cli/clitest"
	"github.com/fallacylab/fallacylab/llm/llmtest"
	"github.com/fallacylab/fallacylab/store/postgres/pgproxy"
)

// TestStoreConnectTimeout (#26 item 5): a server that accepts connections
// and never answers makes a command fail within the default connect
// timeout (10 s; the URL's connect_timeout sets another), saying so,
// rather than hang.
func TestStoreConnectTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never answered
		}
	}()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), []byte("{}\n"), 0o644)
	db := fmt.Sprintf("postgres://lab:pw@%s/db", ln.Addr())
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, _, err := clitest.Run(t, dir, "--db", db, "runs")
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "timeout") || strings.Contains(err.Error(), "pw@") {
			t.Fatalf("a server that never answers: %v", err)
		}
		if d := time.Since(start); d < 10*time.Second {
			t.Fatalf("the command gave up after %s, with a 10 s connect timeout", d)
		}
	case <-time.After(2 * time.Minute): // a hang guard, not a timing
		t.Fatal("the command hangs on a server that never answers")
	}
}

// TestWorkersWithinConnectionLimit (#26 item 5): ten workers and their
// coordinator on a database that admits 40 connections, each process told
// --db-max-conns 3: every job is done and none fails with "too many
// clients" (before, each process opened up to 16: 301 of 2,462 jobs failed
// on a stock server with ten workers).
func TestWorkersWithinConnectionLimit(t *testing.T) {
	const n = 600
	r, _, pg := teamRig(t, llmtest.Options{Latency: func(r *rand.Rand) time.Duration { return time.Duration(2+r.IntN(5)) * time.Millisecond }}, n, "connection test prompt")
	u, err := url.Parse(pg)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	if _, err := r.db.Exec(`ALTER DATABASE ` + name + ` CONNECTION LIMIT 40`); err != nil {
		t.Fatal(err)
	}
	coord := r.queue("--db-max-conns", "3", "prompts", "run", "plan.jsonl", "--models", "openai:gpt-4.1-mini", "--out", "out.jsonl")
	r.wait(r.workers(10, []string{"--db-max-conns", "3"}))
	if err := coord.Wait(); err != nil {
		t.Fatalf("the run: %v\n%s", err, r.log("coordinator.log"))
	}
	r.allDone(n)
	for i := range 10 {
		if log := r.log(fmt.Sprintf("worker%d.log", i)); strings.Contains(log, "too many") {
			t.Fatalf("worker %d: %s", i, log)
		}
	}
}

// TestWorkersWaitForAConnection (#42 item 8): ten workers at the default
// pool (8 connections each) and their run on a database that admits 16
// connections (fewer than they ask for at start): those the
// server turns away ("too many connections", 53300) wait for a connection
// and try again, as for a server that does not answer, and every worker
// exits 0 with every job done (before, 4 of 10 exited 1 at start).
func TestWorkersWaitForAConnection(t *testing.T) {
	const n = 600
	r, _, pg := teamRig(t, llmtest.Options{Latency: func(r *rand.Rand) time.Duration { return time.Duration(20+r.IntN(20)) * time.Millisecond }}, n, "connection wait prompt")
	u, err := url.Parse(pg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.db.Exec(`ALTER DATABASE ` + strings.TrimPrefix(u.Path, "/") + ` CONNECTION LIMIT 16`); err != nil {
		t.Fatal(err)
	}
	coord := r.queue("prompts", "run", "plan.jsonl", "--models", "openai:gpt-4.1-mini", "--out", "out.jsonl")
	r.wait(r.workers(10, nil))
	if err := coord.Wait(); err != nil {
		t.Fatalf("the run: %v\n%s", err, r.log("coordinator.log"))
	}
	r.allDone(n)
	waited := 0
	for i := range 10 {
		if strings.Contains(r.log(fmt.Sprintf("worker%d.log", i)), "too many connections") {
			waited++
		}
	}
	t.Logf("%d of 10 workers waited for a connection", waited)
	if waited == 0 {
		t.Fatal("no worker was turned away: the test proves nothing")
	}
}

// TestWorkerStartedBeforeItsRunWaits (#42 item 4): a worker started
// --until-empty a moment before the command that queues the run (as a
// script starting both at once may) waits for the run's work rather than
// leaving at once, and the run finishes (before: 2 of 4 trials left at
// once, and the run waited for ever).
func TestWorkerStartedBeforeItsRunWaits(t *testing.T) {
	const n = 100
	r, _, _ := teamRig(t, llmtest.Options{}, n, "early worker prompt")
	w := r.workers(1, nil)
	time.Sleep(time.Second) // the worker looks at an empty queue first
	coord := r.spawn("coordinator.log", "--workers", "0", "prompts", "run", "plan.jsonl", "--models", "openai:gpt-4.1-mini", "--out", "out.jsonl")
	r.finishes(coord, 90*time.Second, func() string { return "the worker left before the run queued its work\n" + r.log("worker0.log") }, w...)
	r.wait(w)
	r.allDone(n)
}

// TestWorkerSaysAnOlderWorkerIsInTheTeam: a worker of an older
// fallacylab — its heartbeat row written as the older code writes it, no
// protocol — alive in the team: a worker of this one says so, once, with
// what it costs (the older one returns this one's long jobs to the queue);
// one whose heartbeat ran out is not named.
func TestWorkerSaysAnOlderWorkerIsInTheTeam(t *testing.T) {
	const n = 20
	r, _, _ := teamRig(t, llmtest.Options{}, n, "older worker prompt")
	if err := r.spawn("create.log", "runs").Wait(); err != nil {
		t.Fatalf("the store: %v\n%s", err, r.log("create.log"))
	}
	for _, q := range []string{
		`INSERT INTO workers (id, label, serves, working, proc, lease_ms) VALUES ('old#1', 'old-w', '', 0, '', 600000)`,
		`INSERT INTO workers (id, label, serves, working, proc, lease_ms, heartbeat_at) VALUES ('gone#1', 'gone-w', '', 0, '', 10000, now() - interval '1 minute')`,
	} {
		if _, err := r.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	w := r.workers(1, nil)
	coord := r.spawn("coordinator.log", "--workers", "0", "prompts", "run", "plan.jsonl", "--models", "openai:gpt-4.1-mini", "--out", "out.jsonl")
	r.finishes(coord, 90*time.Second, func() string { return r.log("worker0.log") }, w...)
	r.wait(w)
	r.allDone(n)
	log := r.log("worker0.log")
	if strings.Count(log, "worker old-w runs an older fallacylab") != 1 || !strings.Contains(log, "run one fallacylab version in a team") {
		t.Fatalf("the worker does not say once that an older worker is in its team:\n%s", log)
	}
	if strings.Contains(log, "gone-w") {
		t.Fatalf("the worker names a worker whose heartbeat ran out:\n%s", log)
	}
}

// TestWorkerStopsDuringALongCall (#42 item 4): SIGTERM while a worker's
// calls take longer than the engine's 10 s grace: the worker ends its
// calls after the grace, hands its jobs back to the queue and exits
// (before: it hung until a second signal); another worker then makes
// them and the run finishes.
func TestWorkerStopsDuringALongCall(t *testing.T) {
	const n = 4
	var slow atomic.Bool
	var arrived atomic.Int64
	slow.Store(true)
	r, _, _ := teamRig(t, llmtest.Options{Latency: func(*rand.Rand) time.Duration {
		arrived.Add(1)
		if slow.Load() {
			return 40 * time.Second
		}
		return time.Millisecond
	}}, n, "long call prompt")
	coord := r.queue("prompts", "run", "plan.jsonl", "--models", "openai:gpt-4.1-mini", "--out", "out.jsonl")
	w := r.workers(1, nil)
	r.waitFor("the worker's calls to reach the server", func() bool { return arrived.Load() >= n })
	w[0].Process.Signal(syscall.SIGTERM)
	exited := make(chan error, 1)
	go func() { exited <- w[0].Wait() }()
	select {
	case err := <-exited:
		if log := r.log("worker0.log"); err != nil || !strings.Contains(log, "4 jobs handed back to the queue as it stopped") {
			t.Fatalf("the stopped worker: %v\n%s", err, log)
		}
	case <-time.After(60 * time.Second): // a hang guard: the grace is 10 s
		w[0].Process.Kill()
		t.Fatalf("the worker hangs after SIGTERM\n%s", r.log("worker0.log"))
	}
	if got := r.count(`SELECT COUNT(*) FROM river_job WHERE state = 'running'`); got != 0 {
		t.Fatalf("%d jobs still held by the stopped worker\n%s", got, r.states())
	}
	slow.Store(false)
	r.finishes(coord, 60*time.Second, func() string { return r.log("worker1.log") }, r.spawn("worker1.log", "worker", "--until-empty", "--name", "w1"))
	r.allDone(n)
}

// TestKilledWorkersCallsCountInTheSpend (#42 item 5): a worker killed
// with calls in flight (sent, so most likely paid) leaves them counted in
// its run's spend — its marks name the run, not run 0 — and once another
// worker has made them again, the run's spend is every request sent: 8
// for 4 jobs (before, the run counted the dead worker's calls nowhere
// until they were made again, and a run never made again counted none).
func TestKilledWorkersCallsCountInTheSpend(t *testing.T) {
	const n = 4
	var arrived atomic.Int64
	r, srv, _ := teamRig(t, llmtest.Options{Latency: func(*rand.Rand) time.Duration {
		if arrived.Add(1) <= n {
			return time.Minute // the first worker's calls never end
		}
		return time.Millisecond
	}}, n, "killed spend prompt")
	coord := r.queue("prompts", "run", "plan.jsonl", "--models", "openai:gpt-4.1-mini", "--out", "out.jsonl")
	first := r.spawn("first.log", "worker", "--lease", "2s", "--name", "first")
	r.waitFor("the first worker's calls to reach the server", func() bool { return arrived.Load() >= n })
	r.waitFor("their marks", func() bool { return r.count(`SELECT COUNT(*) FROM sent_calls`) >= n })
	first.Process.Kill()
	first.Wait()
	if got := r.count(`SELECT COUNT(*) FROM sent_calls WHERE run_id = 1`); got != n {
		t.Fatalf("%d of the dead worker's %d calls in flight count in run 1's spend", got, n)
	}
	r.finishes(coord, 90*time.Second, func() string { return r.log("worker0.log") }, r.workers(1, nil, "--lease", "2s")...)
	r.allDone(n)
	var spent, unit float64
	if err := r.db.QueryRow(`SELECT COALESCE(SUM(c.cost), 0), COALESCE(MIN(c.cost / c.attempts), 0) FROM run_calls rc JOIN calls c ON c.key = rc.key WHERE rc.run_id = 1`).Scan(&spent, &unit); err != nil {
		t.Fatal(err)
	}
	sent := len(srv.Ledger())
	t.Logf("%d requests sent for %d jobs; the run's spend $%.6f, $%.6f a request", sent, n, spent, unit)
	if sent != 2*n || unit <= 0 || math.Abs(spent-float64(sent)*unit) > 1e-9 {
		t.Fatalf("the run's spend $%.6f is not the %d requests sent at $%.6f", spent, sent, unit)
	}
	if got := r.count(`SELECT COUNT(*) FROM sent_calls`); got != 0 {
		t.Fatalf("%d marks left once every answer was stored (counted twice in the spend)", got)
	}
}

// TestRestartedWorkerNameInheritsNothing (#26 item 4): a worker killed
// mid-run and started again under the same --name does not keep its dead
// predecessor's leases alive (before, it renewed them forever and the run
// hung): they run out, are taken again, and the run finishes.
func TestRestartedWorkerNameInheritsNothing(t *testing.T) {
	const n = 200
	r, _, _ := teamRig(t, llmtest.Options{Latency: func(r *rand.Rand) time.Duration { return time.Duration(150+r.IntN(100)) * time.Millisecond }}, n, "restart test prompt")
	coord := r.queue("prompts", "run", "plan.jsonl", "--models", "openai:gpt-4.1-mini", "--out", "out.jsonl")
	first := r.spawn("worker-a.log", "worker", "--name", "same", "--lease", "2s", "--take", "32")
	r.waitFor("the worker to lease jobs", func() bool { return r.count(`SELECT COUNT(*) FROM river_job WHERE state = 'running'`) > 0 })
	first.Process.Kill()
	first.Wait()
	again := r.spawn("worker-b.log", "worker", "--name", "same", "--lease", "2s", "--take", "32", "--until-empty")
	r.finishes(coord, 60*time.Second, func() string {
		return fmt.Sprintf("%d jobs still leased by the dead worker's name\n%s", r.count(`SELECT COUNT(*) FROM river_job WHERE state = 'running'`), r.log("worker-b.log"))
	}, again)
	if err := again.Wait(); err != nil {
		t.Fatalf("the restarted worker: %v\n%s", err, r.log("worker-b.log"))
	}
	if got := r.doneJobs(""); got != n {
		t.Fatalf("%d of %d jobs done", got, n)
	}
}

// TestRunningWorkerRefreshes (#42 item 3): a run with --cache refresh
// through a worker already running since an earlier run of the same
// calls has the worker call again (before: it sent nothing and reported
// the calls answered, with a cost).
func TestRunningWorkerRefreshes(t *testing.T) {
	const n = 30
	r, srv, _ := teamRig(t, llmtest.Options{}, n, "running refresh prompt")
	w := r.spawn("worker0.log", "worker", "--name", "w0") // not --until-empty: it outlives both runs
	run := func(flags ...string) {
		t.Helper()
		args := append(append([]string{"--workers", "0"}, flags...), "prompts", "run", "plan.jsonl", "--models", "openai:gpt-4.1-mini", "--out", "out.jsonl")
		r.finishes(r.spawn("coordinator.log", args...), 90*time.Second, func() string { return r.log("worker0.log") })
	}
	run()
	if got := len(srv.Ledger()); got != n {
		t.Fatalf("the first run made %d requests, want %d", got, n)
	}
	run("--cache", "refresh")
	if got := len(srv.Ledger()); got != 2*n {
		t.Fatalf("--cache refresh through the running worker made %d requests, want %d", got-n, n)
	}
	w.Process.Signal(syscall.SIGTERM)
	if err := w.Wait(); err != nil {
		t.Fatalf("the worker: %v\n%s", err, r.log("worker0.log"))
	}
}

// TestQueueAfterRunsRmAndCacheRefresh (#26): the queue's done rows do not
// outlive what they stood for. After `runs rm` and `cache clear`, a run
// queued again has its calls made again (before, every job failed: "a
// worker finished job … but its answer is not in the store"), and a run
// with --cache refresh has its workers call again (before, they answered
// from the cache: 0 requests, reported answered, with a cost).
func TestQueueAfterRunsRmAndCacheRefresh(t *testing.T) {
	const n = 40
	r, srv, pg := teamRig(t, llmtest.Options{}, n, "stale test prompt")
	dir := r.dir
	round := func(what string, flags ...string) {
		t.Helper()
		args := append(append([]string{"--workers", "0"}, flags...), "prompts", "run", "plan.jsonl", "--models", "openai:gpt-4.1-mini", "--out", "out.jsonl")
		coord := r.spawn("coordinator.log", args...)
		r.waitFor(what+": jobs to make", func() bool {
			return r.count(`SELECT COUNT(*) FROM river_job WHERE state IN ('available', 'scheduled', 'retryable', 'pending')`) > 0
		})
		r.work(nil)
		if err := coord.Wait(); err != nil {
			t.Fatalf("%s: the run failed: %v\n%s", what, err, r.log("coordinator.log"))
		}
	}
	round("the first run")
	if got := len(srv.Ledger()); got != n {
		t.Fatalf("the first run made %d requests, want %d", got, n)
	}
	if _, _, err := clitest.Run(t, dir, "--db", pg, "runs", "rm", "1"); err != nil {
		t.Fatal(err)
	}
	if got := r.count(`SELECT COUNT(*) FROM river_job WHERE (args->>'run')::bigint = 1`); got != 0 {
		t.Fatalf("runs rm left %d of the run's jobs in the queue", got)
	}
	if out, _, err := clitest.Run(t, dir, "--db", pg, "cache", "clear", "--yes"); err != nil {
		t.Fatalf("cache clear: %v %s", err, out)
	}
	round("a run after runs rm and cache clear")
	if got := len(srv.Ledger()); got != 2*n {
		t.Fatalf("after runs rm and cache clear the run made %d requests, want %d", got-n, n)
	}
	round("--cache refresh", "--cache", "refresh")
	if got := len(srv.Ledger()); got != 3*n {
		t.Fatalf("--cache refresh made %d requests through the workers, want %d", got-2*n, n)
	}
	for run := 2; run <= 3; run++ {
		if got := r.doneJobs(fmt.Sprintf(`(args->>'run')::bigint = %d`, run)); got != n {
			t.Fatalf("run %d: %d jobs done, want %d", run, got, n)
		}
	}
}

// TestUntilEmptyWaitsForTheNextPhase (#26 item 2): a worker told
// --until-empty does not exit between a run's phases — generations done,
// judgements not yet queued — so a DeflectBench run with one such worker
// finishes (before, the worker exited after the last generation and the
// run waited forever for its judgements).
func TestUntilEmptyWaitsForTheNextPhase(t *testing.T) {
	r, _, _ := teamRig(t, llmtest.Options{}, 0, "")
	coord := r.queue("--max-unusable", "-1", "deflect", "run", "--models", "openai:gpt-4.1-mini", "--judges", "openai:gpt-4.1", "--limit", "2", "--samples", "1")
	w := r.spawn("worker.log", "worker", "--until-empty")
	r.finishes(coord, 60*time.Second, func() string { return "it waits for its judgements: the worker left\n" + r.log("worker.log") }, w)
	if err := w.Wait(); err != nil {
		t.Fatalf("the worker: %v\n%s", err, r.log("worker.log"))
	}
	if got := r.doneJobs(""); got != 60 {
		t.Fatalf("%d jobs done, want 30 generations and 30 judgements", got)
	}
}

// TestMisconfiguredWorkerFailsNothing (#26 item 3): a worker without the
// key for the run's provider, beside a healthy one, takes none of its jobs
// and says why (before: 472 of 600 jobs failed, exit 2, with two healthy
// workers beside it); the run finishes with every job done.
func TestMisconfiguredWorkerFailsNothing(t *testing.T) {
	const n = 300
	r, _, _ := teamRig(t, llmtest.Options{Latency: func(r *rand.Rand) time.Duration { return time.Duration(2+r.IntN(5)) * time.Millisecond }}, n, "keyless test prompt")
	coord := r.queue("prompts", "run", "plan.jsonl", "--models", "openai:gpt-4.1-mini", "--out", "out.jsonl")
	keyless := r.spawnEnv("keyless.log", []string{"OPENAI_API_KEY="}, "worker", "--until-empty", "--name", "keyless")
	time.Sleep(500 * time.Millisecond) // the keyless worker looks at the queue first
	// Not --quiet, so that it says what it does.
	healthy := r.spawn("healthy.log", "--quiet=false", "worker", "--until-empty", "--name", "healthy")
	for _, w := range []*exec.Cmd{keyless, healthy} {
		if err := w.Wait(); err != nil {
			t.Fatalf("a worker: %v\n%s\n%s", err, r.log("keyless.log"), r.log("healthy.log"))
		}
	}
	if err := coord.Wait(); err != nil {
		t.Fatalf("the run: %v\n%s", err, r.log("coordinator.log"))
	}
	r.allDone(n)
	log := r.log("keyless.log")
	if !regexp.MustCompile(`none for [a-z, ]*openai`).MatchString(log) ||
		!regexp.MustCompile(`skips queue \S+ \(openai:gpt-4.1-mini\): missing API key for openai: set OPENAI_API_KEY`).MatchString(log) ||
		!strings.Contains(log, "0 jobs done, 0 failed") || strings.Contains(log, "skips anthropic") {
		t.Fatalf("the keyless worker does not say why it skips the run's provider, or made jobs:\n%s", log)
	}
	// The healthy worker made every call, and says what its keys paid for.
	if log := r.log("healthy.log"); !strings.Contains(log, fmt.Sprintf("%d jobs done, 0 failed; %d requests sent, ", n, n)) ||
		strings.Count(log, "makes the jobs of run 1 (prompts plan.jsonl)") != 1 {
		t.Fatalf("the healthy worker does not say whose jobs it made, once, and what it sent:\n%s", tail(log, 2000))
	}
}

// TestWorkerWithAWrongKeyFailsNothing (#42 item 1): beside two healthy
// workers, one whose key the provider refuses (401) hands back the job
// it was refused, stops taking the provider's jobs and says why; the run
// ends with every job done (before: 268 of 600 jobs failed, exit 2).
func TestWorkerWithAWrongKeyFailsNothing(t *testing.T) {
	const n = 600
	r, srv, _ := teamRig(t, llmtest.Options{APIKey: "test-key",
		Latency: func(r *rand.Rand) time.Duration { return time.Duration(20+r.IntN(20)) * time.Millisecond }}, n, "wrong key test prompt")
	coord := r.queue("prompts", "run", "plan.jsonl", "--models", "openai:gpt-4.1-mini", "--out", "out.jsonl")
	bad := r.spawnEnv("bad.log", []string{"OPENAI_API_KEY=sk-wrong-key-0123456789"}, "worker", "--until-empty", "--name", "bad")
	r.waitFor("the wrong key to be refused", func() bool {
		return slices.ContainsFunc(srv.Ledger(), func(e llmtest.Entry) bool { return e.Status == 401 })
	})
	healthy := r.workers(2, nil)
	if err := bad.Wait(); err != nil {
		t.Fatalf("the worker with the wrong key: %v\n%s", err, r.log("bad.log"))
	}
	r.wait(healthy)
	if err := coord.Wait(); err != nil {
		t.Fatalf("the run: %v\n%s", err, r.log("coordinator.log"))
	}
	r.allDone(n)
	refused := 0
	for _, e := range srv.Ledger() {
		if e.Status == 401 {
			refused++
		}
	}
	log := r.log("bad.log")
	t.Logf("%d requests refused 401\n%s", refused, log)
	if !strings.Contains(log, "openai refused this worker's key, so its jobs are left to other workers") {
		t.Fatalf("the worker with the wrong key does not say why it stops:\n%s", log)
	}
	if strings.Contains(log, "sk-wrong-key-0123456789") {
		t.Fatalf("the worker printed its key:\n%s", log)
	}
}

// TestWorkersPruneTheQueue (#26): a run's finished jobs go an hour after
// they finished — River's job cleaner, run by the leading worker (before,
// the queue kept every job of every run: ~650 MB per million jobs).
func TestWorkersPruneTheQueue(t *testing.T) {
	const n = 50
	r, _, _ := teamRig(t, llmtest.Options{}, n, "prune test prompt")
	coord := r.queue("prompts", "run", "plan.jsonl", "--models", "openai:gpt-4.1-mini", "--out", "out.jsonl")
	r.work(nil)
	if err := coord.Wait(); err != nil {
		t.Fatalf("the run: %v\n%s", err, r.log("coordinator.log"))
	}
	if got := r.count(`SELECT COUNT(*) FROM river_job`); got != n {
		t.Fatalf("%d jobs right after the run, want its %d (runs show reads them)", got, n)
	}
	if _, err := r.db.Exec(`UPDATE river_job SET finalized_at = now() - interval '2 hours' WHERE id IN (SELECT id FROM river_job ORDER BY id LIMIT 20)`); err != nil {
		t.Fatal(err)
	}
	w := r.spawn("pruner.log", "worker", "--name", "pruner") // no --until-empty: it leads, and its cleaner runs
	defer w.Process.Kill()
	r.waitFor("the cleaner to delete the old jobs", func() bool { return r.count(`SELECT COUNT(*) FROM river_job`) == n-20 })
	time.Sleep(500 * time.Millisecond)
	if got := r.count(`SELECT COUNT(*) FROM river_job`); got != n-20 {
		t.Fatalf("%d jobs kept, want the %d that finished less than an hour ago", got, n-20)
	}
}

// proxiedRig is a rig whose processes reach the store through a proxy the
// test can cut (its own reads go straight to it), a test server answering
// in 10–20 ms, and a plan of n prompts of text in plan.jsonl.
func proxiedRig(t *testing.T, n int, text string) (*pgproxy.Proxy, *rig, *llmtest.Server) {
	t.Helper()
	pg := pgStore(t)
	proxy, via := pgproxy.New(t, pg)
	dir := t.TempDir()
	srv := clitest.Server(t, dir, llmtest.Options{Latency: func(r *rand.Rand) time.Duration { return time.Duration(10+r.IntN(10)) * time.Millisecond }})
	promptFile(t, dir, "plan.jsonl", n, text)
	direct := newRig(t, pg, dir)
	return proxy, &rig{t: t, pg: via, dir: dir, db: direct.db}, srv
}

// TestWorkersRideOutADatabaseRestart (#26 item 5): the database goes away
// for 4 s in the middle of a run (every connection cut, new ones refused):
// the workers pause, say so and carry on, the queuing run waits, and the
// run finishes with every job done once and none failed (before, workers
// exited with code 1 within 0.2–1.6 s and never came back).
func TestWorkersRideOutADatabaseRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	const n = 600
	proxy, r, srv := proxiedRig(t, n, "restart test prompt")
	coord := r.queue("prompts", "run", "plan.jsonl", "--models", "openai:gpt-4.1-mini", "--out", "out.jsonl")
	workers := r.workers(3, nil, "--lease", "3s")
	r.waitFor("a third of the jobs", func() bool { return r.count(`SELECT COUNT(*) FROM river_job WHERE state = 'completed'`) >= n/3 })
	proxy.Cut(4 * time.Second)
	stuck := time.AfterFunc(90*time.Second, func() {
		t.Logf("the queue after 90 s: %s", r.states())
		for i, w := range workers {
			t.Logf("worker %d after 90 s:\n%s", i, r.log(fmt.Sprintf("worker%d.log", i)))
			w.Process.Kill()
		}
		t.Logf("the queue after 90 s: %s", r.states())
		t.Logf("the run after 90 s:\n%s", r.log("coordinator.log"))
		coord.Process.Kill()
	})
	defer stuck.Stop()
	r.wait(workers)
	if err := coord.Wait(); err != nil {
		t.Fatalf("the run: %v\n%s", err, r.log("coordinator.log"))
	}
	r.allDone(n)
	if got := r.count(`SELECT COUNT(*) FROM calls WHERE status = 'ok'`); got != n {
		t.Fatalf("%d answers stored, want %d", got, n)
	}
	said := false
	for i := range 3 {
		said = said || strings.Contains(r.log(fmt.Sprintf("worker%d.log", i)), "the store does not answer")
	}
	if !said {
		t.Fatal("no worker said the store was away")
	}
	t.Logf("%d requests for %d jobs (made again: in flight when the connections were cut)", len(srv.Ledger()), n)
}

// TestOneProcessRidesOutADatabaseRestart: a run on the team store that
// makes its calls itself (no workers) goes on through the database going
// away for 3 s (every connection cut, new ones refused) — its look-ups,
// claims, sent marks and answers wait for the store, as a worker's do —
// and finishes with every job answered, each call sent once. Before, a
// fast restart of PostgreSQL (about a second) failed 822 of a run's 1,500
// jobs: every call between the cut and the end failed at once.
func TestOneProcessRidesOutADatabaseRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	const n = 600
	proxy, r, srv := proxiedRig(t, n, "one-process restart prompt")
	run := r.spawn("run.log", "--concurrency", "8", "prompts", "run", "plan.jsonl", "--models", "openai:gpt-4.1-mini", "--out", "out.jsonl")
	r.waitFor("a third of the answers", func() bool { return r.count(`SELECT COUNT(*) FROM calls WHERE status = 'ok'`) >= n/3 })
	proxy.Cut(3 * time.Second)
	if err := run.Wait(); err != nil {
		t.Fatalf("the run: %v\n%s", err, r.log("run.log"))
	}
	if got := r.count(`SELECT COUNT(*) FROM calls WHERE status = 'ok'`); got != n {
		t.Fatalf("%d answers stored, want %d", got, n)
	}
	if sent := len(srv.Ledger()); sent != n {
		t.Fatalf("%d requests for %d calls: a call was paid twice", sent, n)
	}
}

// TestWorkerStartedDuringARestartWaits: a worker started while the
// database is away (every connection refused, then closed) says so, waits,
// and once the database is back works the queue to the end (before, it
// exited 1 at once: "open …: migrate River: conn closed"). A server that
// answers with an error of its own is not waited for.
func TestWorkerStartedDuringARestartWaits(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	pg := pgStore(t)
	proxy, via := pgproxy.New(t, pg)
	dir := t.TempDir()
	clitest.Server(t, dir, llmtest.Options{})
	const n = 40
	promptFile(t, dir, "plan.jsonl", n, "late worker prompt")
	direct := newRig(t, pg, dir)
	r := &rig{t: t, pg: via, dir: dir, db: direct.db}
	coord := direct.queue("prompts", "run", "plan.jsonl", "--models", "openai:gpt-4.1-mini", "--out", "out.jsonl")
	proxy.Down()
	workers := r.workers(1, nil, "--lease", "3s")
	r.waitFor("the worker to find the store away", func() bool {
		return strings.Contains(r.log("worker0.log"), "the store does not answer (open")
	})
	proxy.Up()
	r.wait(workers)
	if err := coord.Wait(); err != nil {
		t.Fatalf("the run: %v\n%s", err, r.log("coordinator.log"))
	}
	r.allDone(n)
	wrong := strings.Replace(via, "postgres://", "postgres://nobody:", 1)
	if !strings.Contains(wrong, "nobody:") {
		t.Fatalf("cannot make a wrong user of %s", via)
	}
	bad := &rig{t: t, pg: wrong, dir: dir, db: direct.db}
	start := time.Now()
	if err := bad.workers(1, nil)[0].Wait(); err == nil || time.Since(start) > 2*time.Minute {
		t.Fatalf("a wrong user: %v after %s\n%s", err, time.Since(start), bad.log("worker0.log"))
	}
}

// states is how many jobs the queue holds in each state, and its leader.
func (r *rig) states() string {
	var s string
	if err := r.db.QueryRow(`SELECT COALESCE(string_agg(state::text || ' ' || n, ', '), 'no jobs') || '; leader ' ||
		COALESCE((SELECT leader_id || ' until ' || expires_at::text FROM river_leader LIMIT 1), 'none') || ' at ' || now()::text
		FROM (SELECT state, COUNT(*) AS n FROM river_job GROUP BY state) q`).Scan(&s); err != nil {
		return err.Error()
	}
	return s
}

// allDone fails the test unless the queue holds n done jobs and no failed
// one.
func (r *rig) allDone(n int) {
	r.t.Helper()
	if got := r.doneJobs(""); got != n {
		r.t.Fatalf("%d of %d jobs done", got, n)
	}
	if got := r.count(`SELECT COUNT(*) FROM river_job WHERE state IN ('cancelled', 'discarded')`); got != 0 {
		r.t.Fatalf("%d jobs failed", got)
	}
}

// doneJobs is how many River jobs (those matching where; "": all) are
// completed, counted once none of them is open: a queued run ends as its
// last answers are stored, and River's completer records the ends of its
// workers' jobs in batches, up to 250 ms later — a killed worker's job
// whose answer was stored, once it is rescued and made again from the
// cache.
func (r *rig) doneJobs(where string) int {
	r.t.Helper()
	if where != "" {
		where = " AND " + where
	}
	r.waitFor("River to record the jobs' ends", func() bool {
		return r.count(`SELECT COUNT(*) FROM river_job WHERE state IN ('available', 'pending', 'retryable', 'running', 'scheduled')`+where) == 0
	})
	return r.count(`SELECT COUNT(*) FROM river_job WHERE state = 'completed'` + where)
}

// finishes waits up to limit for the queuing run coord to end well; one
// that hangs is killed with the others, and the test fails saying why.
func (r *rig) finishes(coord *exec.Cmd, limit time.Duration, why func() string, others ...*exec.Cmd) {
	r.t.Helper()
	done := make(chan error, 1)
	go func() { done <- coord.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			r.t.Fatalf("the run: %v\n%s", err, r.log("coordinator.log"))
		}
	case <-time.After(limit):
		coord.Process.Kill()
		for _, o := range others {
			o.Process.Kill()
		}
		r.t.Fatalf("the run hangs: %s", why())
	}
}

// teamRig is a test of the team queue: a fresh PostgreSQL store, a test
// server with o, a plan of n prompts (none when n is 0) and the rig that
// runs processes on them; skipped in -short.
func teamRig(t testing.TB, o llmtest.Options, n int, prompt string) (*rig, *llmtest.Server, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("spawns processes")
	}
	pg := pgStore(t)
	dir := t.TempDir()
	srv := clitest.Server(t, dir, o)
	if n > 0 {
		promptFile(t, dir, "plan.jsonl", n, prompt)
	}
	return newRig(t, pg, dir), srv, pg
}

// BenchmarkWorkers is the team queue's rate: a run of 3,000 calls queued
// with --workers 0 and made by 1 and by 3 worker processes against a test
// server that answers at once (jobs/s, from the run's start to its end).
func BenchmarkWorkers(b *testing.B) {
	for _, k := range []int{1, 3} {
		b.Run(fmt.Sprintf("%d-workers", k), func(b *testing.B) {
			for range b.N {
				r, _, _ := teamRig(b, llmtest.Options{}, 3000, "rate prompt")
				start := time.Now()
				coord := r.spawn("coordinator.log", "--workers", "0", "prompts", "run", "plan.jsonl", "--models", "openai:gpt-4.1-mini", "--out", "out.jsonl")
				r.waitFor("the run to queue its jobs", func() bool { return r.count(`SELECT COUNT(*) FROM river_job`) > 0 })
				r.wait(r.workers(k, nil))
				if err := coord.Wait(); err != nil {
					b.Fatalf("the run: %v\n%s", err, r.log("coordinator.log"))
				}
				b.ReportMetric(3000/time.Since(start).Seconds(), "jobs/s")
			}
		})
	}
}

// BenchmarkScaling (#42 item 6) is a run of 1,800 calls at 300 ms latency
// at default flags: in one process on the team store, and queued
// (--workers 0) for one and for three workers started with it; wall
// seconds from the run command's start to its end, calls a second, when
// the workers had all left (workers-gone-s), and when
// the first call reached the server, every job was queued, and the run
// ended after the last call. The store is made before the clock starts.
// FALLACYLAB_SCALING_CALLS sets another number of calls: a run's fixed
// costs (its start, each engine's ramp from 32 calls at once, the last
// round trip) weigh less in a longer one. The -used-store runs are on a
// store that served the model before the clock (a run of 600 other
// prompts in one process): their processes start the model at the
// concurrency it held then (engine.Levels), not at 32.
func BenchmarkScaling(b *testing.B) {
	n := 1800
	if v, err := strconv.Atoi(os.Getenv("FALLACYLAB_SCALING_CALLS")); err == nil && v > 0 {
		n = v
	}
	slow := llmtest.Options{Latency: func(*rand.Rand) time.Duration { return 300 * time.Millisecond }}
	args := []string{"prompts", "run", "plan.jsonl", "--models", "openai:gpt-4.1-mini", "--out", "out.jsonl"}
	for _, used := range []bool{false, true} {
		for _, k := range []int{0, 1, 3} {
			name := fmt.Sprintf("%d-workers", k)
			if k == 0 {
				name = "one-process"
			}
			if used {
				name += "-used-store"
			}
			scaling(b, name, n, k, used, slow, args)
		}
	}
}

// scaling is one of BenchmarkScaling's runs: k workers (0: one process),
// on a store that served the model before (used) or not.
func scaling(b *testing.B, name string, n, k int, used bool, slow llmtest.Options, args []string) {
	b.Run(name, func(b *testing.B) {
		for range b.N {
			r, srv, _ := teamRig(b, slow, n, "scaling prompt")
			// A team's store exists before its runs: its tables are
			// made before the clock starts (the first command to open
			// a new store makes them, 0.2–0.3 s, and the others wait).
			if err := r.spawn("create.log", "runs").Wait(); err != nil {
				b.Fatalf("the store: %v\n%s", err, r.log("create.log"))
			}
			if used {
				promptFile(b, r.dir, "earlier.jsonl", 600, "earlier prompt")
				if err := r.spawn("earlier.log", "prompts", "run", "earlier.jsonl", "--models", "openai:gpt-4.1-mini", "--out", "earlier.out").Wait(); err != nil {
					b.Fatalf("the earlier run: %v\n%s", err, r.log("earlier.log"))
				}
			}
			before := len(srv.Ledger())
			pg0, pgOK := postgresCPU(r.db)
			start := time.Now()
			load := startBusy()
			var wall time.Duration
			if k == 0 {
				coord := r.spawn("coordinator.log", args...)
				if err := coord.Wait(); err != nil {
					b.Fatalf("the run: %v\n%s", err, r.log("coordinator.log"))
				}
				wall = time.Since(start)
				load.report(b)
				b.ReportMetric(cpuOf(coord).Seconds(), "run-cpu-s")
			} else {
				coord := r.spawn("coordinator.log", append([]string{"--workers", "0"}, args...)...)
				ended := make(chan error, 1)
				go func() { err := coord.Wait(); wall = time.Since(start); load.end(); ended <- err }()
				ws := r.workers(k, nil)
				r.waitFor("every job queued", func() bool { return r.count(`SELECT COUNT(*) FROM river_job`) >= n })
				b.ReportMetric(time.Since(start).Seconds(), "all-queued-s")
				r.wait(ws)
				// The workers leave (--until-empty) once they find the
				// queues empty, which may be after the run has ended: the
				// run's time is its command's, as in one process.
				b.ReportMetric(time.Since(start).Seconds(), "workers-gone-s")
				if err := <-ended; err != nil {
					b.Fatalf("the run: %v\n%s", err, r.log("coordinator.log"))
				}
				load.report(b)
				b.ReportMetric(cpuOf(coord).Seconds(), "run-cpu-s")
				b.ReportMetric(cpuOf(ws...).Seconds(), "workers-cpu-s")
			}
			if pg1, ok := postgresCPU(r.db); ok && pgOK {
				// The backends still connected (the test's own) count
				// later: this is a floor, by at most theirs.
				b.ReportMetric((pg1 - pg0).Seconds(), "postgres-cpu-s")
			}
			if k > 0 {
				var first, last time.Time
				if err := r.db.QueryRow(`SELECT MIN(created_at), MAX(finalized_at) FROM river_job`).Scan(&first, &last); err == nil {
					b.ReportMetric(first.Sub(start).Seconds(), "first-queued-s")
					b.ReportMetric(last.Sub(start).Seconds(), "last-done-s")
				}
			}
			if l := srv.Ledger()[before:]; len(l) > 0 {
				b.ReportMetric(l[len(l)-1].Time.Sub(start).Seconds(), "last-answer-s")
				b.ReportMetric(l[0].Arrived.Sub(start).Seconds(), "first-call-s")
				b.ReportMetric(wall.Seconds()-l[len(l)-1].Arrived.Sub(start).Seconds(), "after-last-call-s")
			}
			b.ReportMetric(wall.Seconds(), "wall-s")
			b.ReportMetric(float64(n)/wall.Seconds(), "calls/s")

		}
	})
}

// BenchmarkIdleTeamFirstCall is the worker path's latency on an idle team:
// one worker already waiting, a run of 20 calls queued with --workers 0;
// the time from the queuing command's start, and from its first job's
// insert, to the first call the provider sees, and to the run's end.
func BenchmarkIdleTeamFirstCall(b *testing.B) {
	for range b.N {
		r, srv, _ := teamRig(b, llmtest.Options{}, 20, "idle team prompt")
		r.spawn("worker0.log", "worker", "--name", "idle")
		r.waitFor("the worker to wait", func() bool { return r.count(`SELECT COUNT(*) FROM workers`) >= 1 })
		time.Sleep(time.Second) // idle
		start := time.Now()
		coord := r.spawn("coordinator.log", "--workers", "0", "prompts", "run", "plan.jsonl", "--models", "openai:gpt-4.1-mini", "--out", "out.jsonl")
		if err := coord.Wait(); err != nil {
			b.Fatalf("the run: %v\n%s", err, r.log("coordinator.log"))
		}
		wall := time.Since(start)
		var queued time.Time
		if err := r.db.QueryRow(`SELECT MIN(created_at) FROM river_job`).Scan(&queued); err != nil {
			b.Fatal(err)
		}
		l := srv.Ledger()
		if len(l) == 0 {
			b.Fatal("no call")
		}
		b.ReportMetric(l[0].Arrived.Sub(start).Seconds(), "first-call-after-start-s")
		b.ReportMetric(l[0].Arrived.Sub(queued).Seconds(), "first-call-after-queued-s")
		b.ReportMetric(wall.Seconds(), "wall-s")
	}
}

// BenchmarkPhaseGap is the hand-over between a queued run's phases on an
// idle team: one worker waiting, a DeflectBench pilot (30 generations,
// then 30 judgements) queued with --workers 0; the time from the last
// generation the provider answered to the first judgement it got (the
// test server echoes: the judgements are unusable, and allowed).
func BenchmarkPhaseGap(b *testing.B) {
	for range b.N {
		r, srv, _ := teamRig(b, llmtest.Options{}, 0, "")
		r.spawn("worker0.log", "worker", "--name", "idle")
		r.waitFor("the worker to wait", func() bool { return r.count(`SELECT COUNT(*) FROM workers`) >= 1 })
		coord := r.spawn("coordinator.log", "--workers", "0", "--max-unusable", "1", "deflect", "run", "--models", "openai:gen-m", "--judges", "openai:judge-m",
			"--samples", "1", "--pilot", "2")
		if err := coord.Wait(); err != nil {
			b.Fatalf("the run: %v\n%s", err, r.log("coordinator.log"))
		}
		var lastGen, firstJudge time.Time
		for _, e := range srv.Ledger() {
			switch e.Call.Model {
			case "gen-m":
				if e.Time.After(lastGen) {
					lastGen = e.Time
				}
			case "judge-m":
				if firstJudge.IsZero() || e.Arrived.Before(firstJudge) {
					firstJudge = e.Arrived
				}
			}
		}
		if lastGen.IsZero() || firstJudge.IsZero() {
			b.Fatal("no generation or no judgement")
		}
		b.ReportMetric(firstJudge.Sub(lastGen).Seconds(), "phase-gap-s")
	}
}

// BenchmarkScalingTeam is BenchmarkScaling's run (1,800 calls at 300 ms,
// default flags, queued with --workers 0) on a team that is already up, as
// a team's workers are (`fallacylab worker` left running): k workers
// waiting before the clock starts — idle (started, no run served yet) or
// warm (they served an earlier run of 600 other prompts of the same model,
// so each engine's concurrency has ramped: a worker keeps one engine, and
// its limits, across runs). BenchmarkScaling's one-process run is the
// baseline: one process has no team to be warm in.
func BenchmarkScalingTeam(b *testing.B) {
	n := 1800
	if v, err := strconv.Atoi(os.Getenv("FALLACYLAB_SCALING_CALLS")); err == nil && v > 0 {
		n = v
	}
	slow := llmtest.Options{Latency: func(*rand.Rand) time.Duration { return 300 * time.Millisecond }}
	run := func(plan string) []string {
		return []string{"--workers", "0", "prompts", "run", plan, "--models", "openai:gpt-4.1-mini", "--out", plan + ".out"}
	}
	for _, warm := range []bool{false, true} {
		for _, k := range []int{1, 3} {
			name := fmt.Sprintf("%d-workers-idle", k)
			if warm {
				name = fmt.Sprintf("%d-workers-warm", k)
			}
			b.Run(name, func(b *testing.B) {
				for range b.N {
					r, srv, _ := teamRig(b, slow, n, "scaling prompt")
					if err := r.spawn("create.log", "runs").Wait(); err != nil {
						b.Fatalf("the store: %v\n%s", err, r.log("create.log"))
					}
					var ws []*exec.Cmd
					for i := range k {
						ws = append(ws, r.spawn(fmt.Sprintf("worker%d.log", i), "worker", "--name", fmt.Sprintf("w%d", i)))
					}
					r.waitFor("the workers to wait", func() bool { return r.count(`SELECT COUNT(*) FROM workers`) >= k })
					if warm {
						promptFile(b, r.dir, "warmup.jsonl", 600, "warm-up prompt")
						if err := r.spawn("warmup.log", run("warmup.jsonl")...).Wait(); err != nil {
							b.Fatalf("the warm-up run: %v\n%s", err, r.log("warmup.log"))
						}
					}
					time.Sleep(500 * time.Millisecond) // idle
					before := len(srv.Ledger())
					start := time.Now()
					load := startBusy()
					if err := r.spawn("coordinator.log", run("plan.jsonl")...).Wait(); err != nil {
						b.Fatalf("the run: %v\n%s", err, r.log("coordinator.log"))
					}
					wall := time.Since(start)
					load.report(b)
					for _, w := range ws {
						_ = w.Process.Signal(syscall.SIGTERM)
					}
					r.wait(ws)
					if l := srv.Ledger()[before:]; len(l) > 0 {
						b.ReportMetric(l[0].Arrived.Sub(start).Seconds(), "first-call-s")
						b.ReportMetric(wall.Seconds()-l[len(l)-1].Arrived.Sub(start).Seconds(), "after-last-call-s")
					}
					b.ReportMetric(wall.Seconds(), "wall-s")
					b.ReportMetric(float64(n)/wall.Seconds(), "calls/s")
				}
			})
		}
	}
}

// TestPhaseGoesOnPastAKilledWorker (#42, "a test that kills a worker
// between the two"): a worker is killed after it stored the last answer
// of a run's first phase and before River recorded the end of its job —
// the test holds the phase's job rows locked, so River's completer cannot
// end them, and kills the worker once every answer is stored. The run
// goes on to its next phase at once: it hears an answer as it is stored,
// not as its job ends, so a second worker makes the judgements while the
// dead worker's jobs are still running (both workers' leases are an hour:
// nothing rescues them meanwhile), and no call is made twice.
func TestPhaseGoesOnPastAKilledWorker(t *testing.T) {
	r, srv, _ := teamRig(t, llmtest.Options{Latency: func(*rand.Rand) time.Duration { return 1500 * time.Millisecond }}, 0, "")
	coord := r.queue("--max-unusable", "1", "deflect", "run", "--models", "openai:gen-m", "--judges", "openai:judge-m", "--samples", "1", "--pilot", "2")
	const gens = 30
	first := r.spawnEnv("first.log", []string{"PGAPPNAME=fallacylab-first"}, "worker", "--name", "first", "--lease", "1h")
	r.waitFor("the worker to take the generations", func() bool {
		return r.count(`SELECT COUNT(*) FROM river_job WHERE state = 'running'`) == gens
	})
	hold, err := r.db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback()
	var held int
	if err := hold.QueryRow(`WITH l AS (SELECT id FROM river_job WHERE state = 'running' FOR UPDATE) SELECT COUNT(*) FROM l`).Scan(&held); err != nil || held != gens {
		t.Fatalf("%d jobs held (%v), want the %d generations running", held, err, gens)
	}
	r.waitFor("every generation's answer to be stored", func() bool {
		return r.count(`SELECT COUNT(*) FROM calls WHERE model = 'gen-m' AND status = 'ok'`) == gens
	})
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	// The dead worker's statements blocked on the held rows (River's
	// completer, ending its jobs) end with it: PostgreSQL would find its
	// connections gone only after the lock, and end the jobs after all.
	r.waitFor("the killed worker's connections to end", func() bool {
		_, err := r.db.Exec(`SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE application_name = 'fallacylab-first'`)
		return err == nil && r.count(`SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = 'fallacylab-first'`) == 0
	})
	if err := hold.Rollback(); err != nil {
		t.Fatal(err)
	}
	second := r.spawn("second.log", "worker", "--name", "second", "--lease", "1h")
	r.finishes(coord, 90*time.Second, func() string {
		return "it waits for the jobs of the killed worker, whose answers are stored: " + r.states() + "\n" + r.log("coordinator.log")
	}, second)
	if got := r.count(`SELECT COUNT(*) FROM river_job WHERE state = 'running' AND attempted_by[array_length(attempted_by, 1)] LIKE 'first%'`); got != gens {
		t.Fatalf("%d of the killed worker's jobs still running, want all %d (its answers were stored: the run did not wait for them)", got, gens)
	}
	calls := map[string]int{}
	for _, e := range srv.Ledger() {
		calls[e.Call.Model]++
	}
	if calls["gen-m"] != gens || calls["judge-m"] != gens {
		t.Fatalf("requests per model: %v, want %d generations and %d judgements, none made twice", calls, gens, gens)
	}
	_ = second.Process.Signal(syscall.SIGTERM)
	_ = second.Wait()
}

// TestQueueSaysWhatADoneRunsOpenJobsAre: `fallacylab queue` while a run's
// jobs are being made lists the queue among those its workers serve (a
// worker says so when it starts serving one, not at its next heartbeat:
// the table said "—" and the queue "none of the workers serves its
// queue"); once the run is done and River has not marked its jobs ended
// yet (their rows held here; River marks ends in batches), it says the run
// has every answer, not that "the workers still make them", and so does
// `runs show`.
func TestQueueSaysWhatADoneRunsOpenJobsAre(t *testing.T) {
	const n = 12
	r, _, _ := teamRig(t, llmtest.Options{Latency: func(*rand.Rand) time.Duration { return 1500 * time.Millisecond }}, n, "queue view prompt")
	w := r.spawn("worker0.log", "worker", "--name", "only", "--lease", "1h")
	r.waitFor("the worker to start", func() bool { return r.count(`SELECT COUNT(*) FROM workers`) >= 1 })
	coord := r.queue("prompts", "run", "plan.jsonl", "--models", "openai:gpt-4.1-mini", "--out", "out.jsonl")
	r.waitFor("the worker to take the jobs", func() bool { return r.count(`SELECT COUNT(*) FROM river_job WHERE state = 'running'`) == n })
	queue := func(name string) string {
		if err := r.spawn(name, "queue").Wait(); err != nil {
			t.Fatalf("queue: %v\n%s", err, r.log(name))
		}
		return r.log(name)
	}
	var name string
	if err := r.db.QueryRow(`SELECT DISTINCT queue FROM river_job`).Scan(&name); err != nil {
		t.Fatal(err)
	}
	if out := queue("queue1.log"); !regexp.MustCompile(`(?m)^only +only#\S+ +`+regexp.QuoteMeta(name)+` `).MatchString(out) || strings.Contains(out, "none of the workers") {
		t.Fatalf("the worker making the jobs of %s does not serve it in the table:\n%s", name, out)
	}
	hold, err := r.db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback()
	if _, err := hold.Exec(`SELECT id FROM river_job WHERE state = 'running' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	if err := coord.Wait(); err != nil {
		t.Fatalf("the run: %v\n%s", err, r.log("coordinator.log"))
	}
	out := queue("queue2.log")
	if !strings.Contains(out, fmt.Sprintf("run 1 is done: it has every answer it waited for, and River has not yet marked the end of %d jobs", n)) ||
		strings.Contains(out, "still make them") || strings.Contains(out, "none of the workers") {
		t.Fatalf("a done run whose jobs River has not marked ended:\n%s", out)
	}
	if err := r.spawn("show.log", "runs", "show", "1").Wait(); err != nil {
		t.Fatalf("runs show: %v", err)
	}
	if out := r.log("show.log"); !strings.Contains(out, fmt.Sprintf("the run has every answer it waited for: River has not yet marked the end of %d jobs", n)) {
		t.Fatalf("runs show of a done run whose jobs River has not marked ended:\n%s", out)
	}
	hold.Rollback()
	_ = w.Process.Signal(syscall.SIGTERM)
	_ = w.Wait()
}
