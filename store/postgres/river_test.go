package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/postgres"
	"github.com/jackc/pgx/v5"
)

// startWorker starts a River worker of st serving queue, making up to n
// jobs at a time with work; it stops when the test ends.
func startWorker(ctx context.Context, t *testing.T, st *postgres.Store, id, queue string, n int, work func(context.Context, string, postgres.CallArgs) error) *postgres.Worker {
	t.Helper()
	w, err := st.NewWorker(postgres.WorkerConfig{ID: id, Label: id, MaxWorkers: n, Retention: time.Hour, Work: answering(st, work)})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Serve(queue); err != nil {
		t.Fatal(err)
	}
	if err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Stop(context.Background()) })
	return w
}

// answering is work, storing the answer of each job it makes (as a
// worker's engine does before its job ends): the dispatcher reads it
// back for the run.
func answering(st *postgres.Store, work func(context.Context, string, postgres.CallArgs) error) func(context.Context, string, postgres.CallArgs) error {
	return func(ctx context.Context, queue string, a postgres.CallArgs) error {
		if err := work(ctx, queue, a); err != nil {
			return err
		}
		c := store.Call{Key: a.Key, Namespace: "test", Provider: "openai", Model: "gpt-4.1-mini", Request: []byte(`{}`),
			Status: store.StatusOK, Response: &llm.Response{Text: "answer to " + a.JobID}, Attempts: 1, Replace: a.Refresh}
		_, err := st.PutAnswer(ctx, c)
		return err
	}
}

// errOf is a dispatch's error.
func errOf(_ store.Call, err error) error { return err }

// runStore is a fresh store with runs 1 and 2, those the tests'
// dispatchers queue for.
func runStore(t *testing.T) *postgres.Store {
	t.Helper()
	st := freshStore(t)
	for range 2 {
		if _, err := st.StartRun(context.Background(), store.Run{Name: "queued", Benchmark: "prompts", Version: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

// dispatchRig is a fresh store, the dispatcher of its run 1 polling every
// poll, and a context that ends after limit.
func dispatchRig(t *testing.T, limit, poll time.Duration) (context.Context, *postgres.Store, *postgres.Dispatcher) {
	t.Helper()
	st := runStore(t)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	t.Cleanup(cancel) // before the store closes, as a deferred cancel would
	d := postgres.NewDispatcher(st, 1)
	d.Poll = poll
	return ctx, st, d
}

// succeeded waits for a dispatched job's outcome (until ctx ends) and
// fails the test unless the job succeeded.
func succeeded(ctx context.Context, t *testing.T, done <-chan error, what string) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	case <-ctx.Done():
		t.Fatalf("%s is still waited for", what)
	}
}

// callJob is a job of the test, its key and its queue.
func callJob(i int) (engine.Job, string) {
	j := engine.Job{ID: "job-" + string(rune('a'+i)), Namespace: "test"}
	j.Spec.Provider, j.Spec.Model = "openai", "gpt-4.1-mini"
	j.Request = llm.Request{Messages: []llm.Message{{Role: "user", Content: "prompt " + string(rune('a'+i))}}}
	return j, j.Key()
}

// TestRiverQueue: a dispatched call becomes one River job in its model's
// queue; the same call dispatched twice at once runs once; a worker's Fail
// reaches the run, its HandBack returns the job for another, and a job
// whose worker went silent is rescued at once.
func TestRiverQueue(t *testing.T) {
	ctx, st, d := dispatchRig(t, 60*time.Second, 20*time.Millisecond)
	var made sync.Map
	var calls atomic.Int64
	work := func(ctx context.Context, queue string, a postgres.CallArgs) error {
		calls.Add(1)
		switch {
		case strings.HasSuffix(a.JobID, "b"):
			return postgres.Fail(errors.New("the model refused the request"))
		case strings.HasSuffix(a.JobID, "c"):
			if _, again := made.LoadOrStore(a.Key, true); !again {
				return postgres.HandBack(10 * time.Millisecond)
			}
		}
		made.Store(a.Key, true)
		return nil
	}
	var queued sync.WaitGroup
	var dups atomic.Int64
	queued.Add(4)
	d.Queued = func(_ string, _ int64, dup bool) {
		if dup {
			dups.Add(1)
		}
		queued.Done()
	}
	var wg sync.WaitGroup
	errs, answers := make([]error, 4), make([]store.Call, 4)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			j, key := callJob(i % 3)
			answers[i], errs[i] = d.Dispatch(ctx, j, key)
		}()
	}
	queued.Wait() // all queued before any is made: the duplicate finds its twin open
	if dups.Load() != 1 {
		t.Fatalf("%d of 4 dispatches found their call queued, want 1", dups.Load())
	}
	j, _ := callJob(0)
	queue := postgres.QueueName(j.Spec.Provider, j.Spec.Model, "", false)
	startWorker(ctx, t, st, "test-worker-1", queue, 8, work)
	wg.Wait()
	if errs[0] != nil || errs[3] != nil || errs[2] != nil {
		t.Fatalf("dispatch: %v", errs)
	}
	if errs[1] == nil || !strings.Contains(errs[1].Error(), "the model refused the request") {
		t.Fatalf("a failed job answers %v", errs[1])
	}
	// Each answered dispatch has its answer, linked to the run (one link
	// per call: jobs a and d are one call).
	for _, i := range []int{0, 2, 3} {
		if a := answers[i]; a.Response == nil || !strings.HasPrefix(a.Response.Text, "answer to job-") || a.Key != answers[i%3].Key {
			t.Errorf("dispatch %d answered %+v", i, a)
		}
	}
	var links int
	if err := st.DB().QueryRow(`SELECT COUNT(*) FROM run_calls WHERE run_id = 1 AND cached = 0 AND job IN ('job-a', 'job-c', 'job-d')`).Scan(&links); err != nil || links != 2 {
		t.Errorf("%d links of run 1's 2 answered calls (%v)", links, err)
	}
	var jobs int
	st.DB().QueryRow(`SELECT COUNT(*) FROM river_job WHERE queue = $1`, queue).Scan(&jobs)
	if jobs != 3 {
		t.Errorf("%d jobs for 3 calls (one dispatched twice)", jobs)
	}
}

// hangs is a worker's Work that says on taken that it took a job, then
// hangs, as a worker cut off from the store would, until hold is closed or
// the job's context ends.
func hangs(hold <-chan struct{}, taken chan<- struct{}) func(context.Context, string, postgres.CallArgs) error {
	return func(ctx context.Context, _ string, _ postgres.CallArgs) error {
		taken <- struct{}{}
		select {
		case <-hold:
		case <-ctx.Done():
		}
		return ctx.Err()
	}
}

// TestRiverRescue: a worker's job stays its own while it beats; once it is
// silent for longer than the lease, another worker's Rescue returns it to
// the queue at once and that worker makes it — without waiting for
// River's backstop (a day).
func TestRiverRescue(t *testing.T) {
	ctx, st, d := dispatchRig(t, 60*time.Second, 20*time.Millisecond)
	j, key := callJob(0)
	queue := postgres.QueueName(j.Spec.Provider, j.Spec.Model, "", false)
	hold, taken := make(chan struct{}), make(chan struct{}, 1)
	defer close(hold)
	silent := startWorker(ctx, t, st, "silent", queue, 1, hangs(hold, taken))
	done := make(chan error, 1)
	go func() { done <- errOf(d.Dispatch(ctx, j, key)) }()
	<-taken
	const lease = 300 * time.Millisecond
	time.Sleep(lease + 100*time.Millisecond)
	if err := silent.Beat(ctx, queue); err != nil {
		t.Fatal(err)
	}
	rescuedLater(ctx, t, st, queue, lease, done, "a job whose worker beats")
}

// rescuedLater starts another worker of queue and checks that its Rescue
// returns no job now (not, what must not be rescued), the one job of done
// a lease later, and that it then makes that job, once.
func rescuedLater(ctx context.Context, t *testing.T, st *postgres.Store, queue string, lease time.Duration, done <-chan error, not string) {
	t.Helper()
	var made atomic.Int64
	other := startWorker(ctx, t, st, "other", queue, 1, func(context.Context, string, postgres.CallArgs) error { made.Add(1); return nil })
	if n, err := other.Rescue(ctx, lease); err != nil || n != 0 {
		t.Fatalf("%s was rescued: %d, %v", not, n, err)
	}
	time.Sleep(lease + 100*time.Millisecond)
	if n, err := other.Rescue(ctx, lease); err != nil || n != 1 {
		t.Fatalf("rescued %d jobs of a worker silent past the lease (%v), want 1", n, err)
	}
	succeeded(ctx, t, done, "the rescued job")
	if made.Load() != 1 {
		t.Fatalf("the other worker made the job %d times, want 1", made.Load())
	}
}

// TestRiverRescueOnce (#42, River's API for River's job): three workers
// that find the same worker silent return its jobs once — the job whose
// cancel was asked for ends cancelled, the other is made — and leave the
// job of a worker that beats, running for longer than the lease, its own.
// A worker's heartbeat writes nothing to River's table: its jobs'
// attempted_at stays the time they were taken.
func TestRiverRescueOnce(t *testing.T) {
	ctx, st, d := dispatchRig(t, 60*time.Second, 20*time.Millisecond)
	j0, _ := callJob(0)
	queue := postgres.QueueName(j0.Spec.Provider, j0.Spec.Model, "", false)
	hold := make(chan struct{})
	defer close(hold)
	other := postgres.NewDispatcher(st, 2) // the run whose job is cancelled
	other.Poll = d.Poll
	dispatch := func(d *postgres.Dispatcher, i int) chan error {
		done := make(chan error, 1)
		j, key := callJob(i)
		go func() { done <- errOf(d.Dispatch(ctx, j, key)) }()
		return done
	}
	const lease = 300 * time.Millisecond
	taken := make(chan struct{}, 3)
	silent := startWorker(ctx, t, st, "silent", queue, 2, hangs(hold, taken))
	if err := silent.Beat(ctx, queue); err != nil {
		t.Fatal(err)
	}
	made, cancelled := dispatch(d, 0), dispatch(other, 1)
	<-taken
	<-taken
	busy := startWorker(ctx, t, st, "busy", queue, 1, hangs(hold, taken))
	kept := dispatch(d, 2)
	<-taken
	if queued, running, err := st.CancelJobs(ctx, 2); err != nil || queued != 0 || running != 1 { // taken by the silent worker
		t.Fatalf("cancel: %d queued and %d running, %v", queued, running, err)
	}
	var was time.Time
	if err := st.DB().QueryRow(`SELECT attempted_at FROM river_job WHERE args->>'job_id' = 'job-c'`).Scan(&was); err != nil {
		t.Fatal(err)
	}
	time.Sleep(lease + 100*time.Millisecond)
	if err := busy.Beat(ctx, queue); err != nil {
		t.Fatal(err)
	}
	var makes atomic.Int64
	var rescuers []*postgres.Worker
	for _, id := range []string{"r1", "r2", "r3"} {
		rescuers = append(rescuers, startWorker(ctx, t, st, id, queue, 4, func(context.Context, string, postgres.CallArgs) error { makes.Add(1); return nil }))
	}
	var wg sync.WaitGroup
	counts := make([]int64, len(rescuers))
	errs := make([]error, len(rescuers))
	for i, r := range rescuers {
		wg.Go(func() { counts[i], errs[i] = r.Rescue(ctx, lease) })
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil || errs[2] != nil {
		t.Fatalf("rescue: %v", errs)
	}
	if sum := counts[0] + counts[1] + counts[2]; sum != 2 {
		t.Fatalf("three rescuers returned %v jobs, want 2 in all: the silent worker's, once", counts)
	}
	if n, err := rescuers[0].Rescue(ctx, lease); err != nil || n != 0 {
		t.Fatalf("a silent worker already rescued was rescued again: %d, %v", n, err)
	}
	succeeded(ctx, t, made, "the rescued job")
	select {
	case err := <-cancelled:
		if err == nil {
			t.Fatal("a job cancelled while its worker was silent was made")
		}
	case <-ctx.Done():
		t.Fatal("the cancelled job is still waited for")
	}
	if makes.Load() != 1 {
		t.Fatalf("the rescuers made %d jobs, want 1", makes.Load())
	}
	var state string
	var now time.Time
	if err := st.DB().QueryRow(`SELECT state, attempted_at FROM river_job WHERE args->>'job_id' = 'job-c'`).Scan(&state, &now); err != nil {
		t.Fatal(err)
	}
	if state != "running" || !now.Equal(was) {
		t.Fatalf("the beating worker's job: %s, attempted at %v (was %v), want running and untouched", state, now, was)
	}
	select {
	case err := <-kept:
		t.Fatalf("the beating worker's job ended: %v", err)
	default:
	}
}

// TestRiverRescueLeavesAFreshJob: a worker late with its heartbeat keeps
// a job it took within the lease (as a busy machine's worker does); the
// job is rescued once it has been held for longer than the lease with no
// heartbeat.
func TestRiverRescueLeavesAFreshJob(t *testing.T) {
	ctx, st, d := dispatchRig(t, 60*time.Second, 20*time.Millisecond)
	j, key := callJob(0)
	queue := postgres.QueueName(j.Spec.Provider, j.Spec.Model, "", false)
	hold, taken := make(chan struct{}), make(chan struct{}, 1)
	defer close(hold)
	late := startWorker(ctx, t, st, "late", queue, 1, hangs(hold, taken))
	const lease = 300 * time.Millisecond
	if err := late.Beat(ctx, queue); err != nil {
		t.Fatal(err)
	}
	time.Sleep(lease + 100*time.Millisecond) // late: no heartbeat since
	done := make(chan error, 1)
	go func() { done <- errOf(d.Dispatch(ctx, j, key)) }()
	<-taken
	rescuedLater(ctx, t, st, queue, lease, done, "a job taken within the lease")
}

// TestOldQueueMovesIntoRiver: a store made before River holds its open
// jobs in the old queue table; opening it with this fallacylab moves the
// queued and leased ones (a lease is void: its worker is an old one) into
// River jobs of their model's queue, keeps the done ones out, names the
// queue for the run, and drops the table.
func TestOldQueueMovesIntoRiver(t *testing.T) {
	a, ka := callJob(0)
	b, kb := callJob(1)
	c, kc := callJob(2)
	row := func(key string, j engine.Job, status string) string {
		return fmt.Sprintf(`INSERT INTO queue (key, run_id, job_id, job, status, provider, model) VALUES ('%s', 1, '%s', '%s', '%s', 'openai', 'gpt-4.1-mini')`,
			key, j.ID, strings.ReplaceAll(string(j.Canonical()), "'", "''"), status)
	}
	st, id := upgraded(t, store.Run{Name: "queued before River", Benchmark: "prompts"},
		`CREATE TABLE queue (key TEXT PRIMARY KEY, seq BIGSERIAL, run_id BIGINT NOT NULL, job_id TEXT NOT NULL, job TEXT NOT NULL,
			status TEXT NOT NULL, worker TEXT NOT NULL DEFAULT '', lease_until TIMESTAMPTZ, leases INTEGER NOT NULL DEFAULT 0,
			error TEXT NOT NULL DEFAULT '', updated_at TIMESTAMPTZ NOT NULL DEFAULT now(), refresh INTEGER NOT NULL DEFAULT 0,
			provider TEXT NOT NULL DEFAULT '', model TEXT NOT NULL DEFAULT '')`,
		row(ka, a, "queued"), row(kb, b, "leased"), row(kc, c, "done"))
	if id != 1 {
		t.Fatalf("run %d, want 1", id)
	}
	var gone bool
	if err := st.DB().QueryRow(`SELECT to_regclass('queue') IS NULL`).Scan(&gone); err != nil || !gone {
		t.Fatalf("the old queue table is still there (%v)", err)
	}
	queue := postgres.QueueName("openai", "gpt-4.1-mini", "", false)
	rows, err := st.DB().Query(`SELECT args->>'key', args->>'job_id', queue, state::text FROM river_job ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var key, job, q, state string
		if err := rows.Scan(&key, &job, &q, &state); err != nil {
			t.Fatal(err)
		}
		if q != queue || state != "available" {
			t.Errorf("job %s in queue %s, %s; want %s, available", job, q, state, queue)
		}
		got = append(got, key+" "+job)
	}
	if want := []string{ka + " " + a.ID, kb + " " + b.ID}; !slices.Equal(got, want) {
		t.Fatalf("River jobs %v, want %v (the done one stays out)", got, want)
	}
	var named int
	st.DB().QueryRow(`SELECT COUNT(*) FROM run_queues r JOIN queue_names q ON q.name = r.queue WHERE r.run_id = 1 AND q.model = 'gpt-4.1-mini'`).Scan(&named)
	if named != 1 {
		t.Fatalf("the run names %d queues, want 1", named)
	}
}

// TestDispatchNamesItsQueueOnce: the jobs of a run dispatched at once (as
// the engine dispatches a phase) name their queue in one write, not one
// each; every one of them is queued.
func TestDispatchNamesItsQueueOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st := freshStore(t)
	// A row trigger before insert sees each write that names a queue,
	// those that then find the name there too.
	for _, q := range []string{
		`CREATE TABLE namings (n INT)`,
		`CREATE FUNCTION count_naming() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO namings VALUES (1); RETURN NEW; END $$`,
		`CREATE TRIGGER count_naming BEFORE INSERT ON run_queues FOR EACH ROW EXECUTE FUNCTION count_naming()`,
	} {
		if _, err := st.DB().Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	d := postgres.NewDispatcher(st, 1)
	d.Poll = 20 * time.Millisecond
	const n = 40
	var queued sync.WaitGroup
	queued.Add(n)
	d.Queued = func(string, int64, bool) { queued.Done() }
	for i := range n {
		go func() {
			j, key := callJob(i)
			d.Dispatch(ctx, j, key)
		}()
	}
	queued.Wait()
	var namings, jobs int
	st.DB().QueryRow(`SELECT COUNT(*) FROM namings`).Scan(&namings)
	st.DB().QueryRow(`SELECT COUNT(*) FROM river_job`).Scan(&jobs)
	if namings != 1 || jobs != n {
		t.Fatalf("%d jobs named their queue %d times, want %d jobs and one naming", jobs, namings, n)
	}
}

// TestDispatchHearsEveryEnd: a queuing run waiting for more jobs than it
// reads one by one hears a job end from the polls of what ended since the
// last (with no full poll at all); one whose worker's clock ran an hour
// behind (finalized before those polls look) from its full poll; and one
// deleted from the queue as an error that says so.
func TestDispatchHearsEveryEnd(t *testing.T) {
	for _, c := range []struct {
		name      string
		every     int
		finalized string
	}{
		{"what ended since", 1 << 30, "now()"},
		{"a clock behind", 10, "now() - interval '1 hour'"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, st, d := dispatchRig(t, 30*time.Second, 10*time.Millisecond)
			d.FullPollBelow, d.FullPollEvery = 0, c.every
			ids := make(chan int64, 2)
			d.Queued = func(_ string, id int64, _ bool) { ids <- id }
			done := make(chan error, 2)
			for i := range 2 {
				go func() {
					j, key := callJob(i)
					done <- errOf(d.Dispatch(ctx, j, key))
				}()
			}
			ended, gone := <-ids, <-ids
			time.Sleep(50 * time.Millisecond) // the first (full) poll, and a few after it
			for i := range 2 {                // the answers a worker stores before its job ends (neither ends a job here: no poll reads them)
				j, _ := callJob(i)
				if err := answering(st, func(context.Context, string, postgres.CallArgs) error { return nil })(ctx, "", postgres.CallArgs{Key: j.Key(), JobID: j.ID}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := st.DB().Exec(`UPDATE river_job SET state = 'completed', finalized_at = `+c.finalized+` WHERE id = $1`, ended); err != nil {
				t.Fatal(err)
			}
			succeeded(ctx, t, done, "the job that ended")
			if c.every > 100 {
				return // no full poll: a job gone is never heard of
			}
			if _, err := st.DB().Exec(`DELETE FROM river_job WHERE id = $1`, gone); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "no longer in the queue") {
					t.Fatalf("the job gone: %v", err)
				}
			case <-ctx.Done():
				t.Fatal("a job gone is still waited for")
			}
		})
	}
}

// TestDispatchHearsAnAnswerBeforeItsJobEnds: while few jobs wait (a
// phase's end), a job whose call has an answer stored is done for the run
// at the next poll, before River's completer ends the job (up to 250 ms
// later); a refreshed call's answer stored before is not its new one, and
// its job is waited for until it ends.
func TestDispatchHearsAnAnswerBeforeItsJobEnds(t *testing.T) {
	ctx, st, d := dispatchRig(t, 30*time.Second, 10*time.Millisecond)
	answer := func(key string) {
		t.Helper()
		if _, err := st.PutAnswer(ctx, store.Call{Key: key, Namespace: "test", Provider: "openai", Model: "gpt-4.1-mini", Status: store.StatusOK,
			Response: &llm.Response{Text: "ok"}, Attempts: 1}); err != nil {
			t.Fatal(err)
		}
	}
	ids := make(chan int64, 2)
	d.Queued = func(_ string, id int64, _ bool) { ids <- id }
	refreshed, rkey := callJob(1)
	refreshed.Refresh = true
	answer(rkey) // an old answer
	rdone := make(chan error, 1)
	go func() { rdone <- errOf(d.Dispatch(ctx, refreshed, rkey)) }()
	rid := <-ids
	j, key := callJob(0)
	done := make(chan error, 1)
	go func() { done <- errOf(d.Dispatch(ctx, j, key)) }()
	id := <-ids
	answer(key)
	succeeded(ctx, t, done, "the job whose answer is stored")
	var state string
	if err := st.DB().QueryRow(`SELECT state::text FROM river_job WHERE id = $1`, id).Scan(&state); err != nil || state != "available" {
		t.Fatalf("the job's state: %q (%v), want it still available (no worker ran it)", state, err)
	}
	time.Sleep(50 * time.Millisecond) // five polls more
	select {
	case err := <-rdone:
		t.Fatalf("the refreshed job was done on its old answer (%v)", err)
	default:
	}
	if _, err := st.DB().Exec(`UPDATE river_job SET state = 'completed', finalized_at = now() WHERE id = $1`, rid); err != nil {
		t.Fatal(err)
	}
	if err := <-rdone; err != nil {
		t.Fatalf("the refreshed job: %v", err)
	}
}

// TestOpenCallJobsBut: open call jobs count in every queue but those
// skipped, a queue none has listed yet included; with none skipped, all.
func TestOpenCallJobsBut(t *testing.T) {
	ctx, st, d := dispatchRig(t, 30*time.Second, 100*time.Millisecond)
	queued := make(chan struct{}, 1)
	d.Queued = func(string, int64, bool) { queued <- struct{}{} }
	wait, stop := context.WithCancel(ctx)
	j, key := callJob(0)
	go d.Dispatch(wait, j, key)
	<-queued
	stop() // the job stays queued
	queue := postgres.QueueName(j.Spec.Provider, j.Spec.Model, "", false)
	for _, c := range []struct {
		skipped []string
		want    int
	}{{nil, 1}, {[]string{}, 1}, {[]string{"another"}, 1}, {[]string{queue}, 0}} {
		if n, err := st.OpenCallJobsBut(ctx, c.skipped); err != nil || n != c.want {
			t.Fatalf("skipping %q: %d open (%v), want %d", c.skipped, n, err, c.want)
		}
	}
}

// TestDispatchSaysWhenNoWorkerServesItsQueue: a run waiting on a queue no
// worker alive serves says so once UnservedAfter has passed (before: it
// waited without a word), says it again when the worker that comes skips
// the queue, then that a worker serves it once one does, and gets its
// answer.
func TestDispatchSaysWhenNoWorkerServesItsQueue(t *testing.T) {
	ctx, st, d := dispatchRig(t, 60*time.Second, 20*time.Millisecond)
	said := make(chan string, 16)
	d.Say = func(line string) { said <- line }
	d.UnservedAfter = 200 * time.Millisecond
	j, key := callJob(0)
	queue := postgres.QueueName(j.Spec.Provider, j.Spec.Model, "", false)
	done := make(chan error, 1)
	go func() { done <- errOf(d.Dispatch(ctx, j, key)) }()
	hear := func(want string) {
		t.Helper()
		select {
		case line := <-said:
			if !strings.Contains(line, want) {
				t.Fatalf("the run said %q, want %q", line, want)
			}
		case <-ctx.Done():
			t.Fatalf("the run never said %q", want)
		}
	}
	hear("no worker is alive to make this run's calls of openai:gpt-4.1-mini")
	// A worker alive that serves another queue (its heartbeat names what
	// it serves).
	other := startWorker(ctx, t, st, "keyless", "lab_m1_x", 1, func(context.Context, string, postgres.CallArgs) error { return nil })
	if err := other.Beat(ctx, "lab_m1_x"); err != nil {
		t.Fatal(err)
	}
	hear("openai:gpt-4.1-mini (queue " + queue + ") has waited")
	w := startWorker(ctx, t, st, "keyed", queue, 1, func(context.Context, string, postgres.CallArgs) error { return nil })
	if err := w.Beat(ctx, queue); err != nil {
		t.Fatal(err)
	}
	succeeded(ctx, t, done, "the job")
	select {
	case line := <-said:
		if !strings.Contains(line, "a worker serves openai:gpt-4.1-mini now") {
			t.Fatalf("the run said %q once its queue had a worker", line)
		}
	default: // the answer may come before the watch's next look: then it has nothing to say
	}
}

// TestEveryInsertNotifiesTheWorkers: a run's batches of jobs each notify
// the workers listening (River's insert topic), however soon one follows
// another. River allows a client one insert notification per queue per
// its FetchCooldown (100 ms by default): a run's second batch, some 10–60
// ms after its first, notified no one, and a worker that had found
// nothing waited for its next poll.
func TestEveryInsertNotifiesTheWorkers(t *testing.T) {
	u := freshDB(t)
	st, err := postgres.Open(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, `LISTEN "public.river_insert"`); err != nil {
		t.Fatal(err)
	}
	d := postgres.NewDispatcher(st, 1)
	queued := make(chan struct{}, 2)
	d.Queued = func(string, int64, bool) { queued <- struct{}{} }
	for i := range 2 {
		j, key := callJob(i)
		go d.Dispatch(ctx, j, key)
		select {
		case <-queued:
		case <-ctx.Done():
			t.Fatal("the job was not queued")
		}
		time.Sleep(5 * time.Millisecond) // past River's shortest cooldown (1 ms), well within its default (100 ms)
	}
	for i := range 2 {
		wait, stop := context.WithTimeout(ctx, 2*time.Second)
		n, err := conn.WaitForNotification(wait)
		stop()
		if err != nil {
			t.Fatalf("insert %d of 2 notified no worker: %v", i+1, err)
		}
		if !strings.Contains(n.Payload, `"queue"`) {
			t.Fatalf("notification %q", n.Payload)
		}
	}
}
