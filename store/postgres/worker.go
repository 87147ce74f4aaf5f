package postgres

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
)

// WorkerConfig is how a worker process works the queue.
type WorkerConfig struct {
	// ID names this process to River and in the workers table: unique to
	// it, never reused, so a restarted worker inherits nothing.
	ID, Label string
	// Proc is the worker's engine name (engine.Engine.Proc), the owner of
	// its call claims.
	Proc string
	// Lease is how long the worker may be silent (no heartbeat) before it
	// counts as dead: its jobs are rescued, its call claims taken over and
	// its budget bookings released.
	Lease time.Duration
	// MaxWorkers is how many jobs of one queue it works at a time.
	MaxWorkers int
	// Retention is how long finished jobs are kept (River's job cleaner).
	Retention time.Duration
	// Work makes a job of queue: nil when its answer is committed,
	// HandBack(d) to return it unmade, Fail(err) to fail it for its runs;
	// another error is River's to retry later.
	Work func(ctx context.Context, queue string, a CallArgs) error
}

// HandBack, returned by WorkerConfig.Work, returns the job to its queue
// unmade and unfailed, to be taken again after d (by a worker that can
// serve it): River's snooze, which spends no attempt.
func HandBack(d time.Duration) error { return river.JobSnooze(d) }

// Fail, returned by WorkerConfig.Work, fails the job for the runs waiting
// on it, with no further attempt (the engine already retried the call).
func Fail(err error) error { return river.JobCancel(err) }

// Worker is a worker process's River client and its heartbeat.
type Worker struct {
	st     *Store
	cfg    WorkerConfig
	client *river.Client[pgx.Tx]
	mu     sync.Mutex
	held   map[int64]bool // the jobs being worked (their heartbeat)
}

type callWorker struct {
	river.WorkerDefaults[CallArgs]
	w *Worker
}

// Work works one job, holding it (its heartbeat) meanwhile.
func (c *callWorker) Work(ctx context.Context, job *river.Job[CallArgs]) error {
	c.w.mu.Lock()
	c.w.held[job.ID] = true
	c.w.mu.Unlock()
	defer func() {
		c.w.mu.Lock()
		delete(c.w.held, job.ID)
		c.w.mu.Unlock()
	}()
	return c.w.cfg.Work(ctx, job.Queue, job.Args)
}

// rescueBackstop is River's own rescue of a job running this long without
// a heartbeat, should no worker rescue it sooner (Rescue).
const rescueBackstop = 5 * time.Minute

// NewWorker makes the River client of a worker process; it works no queue
// until Serve.
func (s *Store) NewWorker(cfg WorkerConfig) (*Worker, error) {
	w := &Worker{st: s, cfg: cfg, held: map[int64]bool{}}
	workers := river.NewWorkers()
	river.AddWorker(workers, &callWorker{w: w})
	c, err := river.NewClient(riverpgxv5.New(s.pg), &river.Config{
		ID: cfg.ID, Logger: quiet, Workers: workers,
		// River starts no working client without a queue; fallacylab puts
		// no job in its default one.
		Queues: map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 1}},
		// A call is bounded by the engine (its call timeout and retries);
		// a job's lease is its worker's heartbeat, not a deadline.
		JobTimeout:                  -1,
		RescueStuckJobsAfter:        rescueBackstop,
		CompletedJobRetentionPeriod: cfg.Retention,
		CancelledJobRetentionPeriod: max(cfg.Retention, 24*time.Hour),
		FetchCooldown:               10 * time.Millisecond,
		// Poll rather than LISTEN: River's listener hijacks a connection
		// out of the pool, one more than --db-max-conns; polling keeps a
		// process within it (N workers: at most N × --db-max-conns).
		PollOnly:          true,
		FetchPollInterval: 100 * time.Millisecond,
	})
	if err != nil {
		return nil, fmt.Errorf("worker %s: %w", cfg.Label, err)
	}
	w.client = c
	return w, nil
}

// Start starts working the served queues; Stop waits for the jobs being
// worked, then stops.
func (w *Worker) Start(ctx context.Context) error { return w.client.Start(ctx) }

// Stop stops taking jobs and waits for those being worked (until ctx ends).
func (w *Worker) Stop(ctx context.Context) error { return w.client.Stop(ctx) }

// Serve starts working a queue.
func (w *Worker) Serve(queue string) error {
	return w.client.Queues().Add(queue, river.QueueConfig{MaxWorkers: w.cfg.MaxWorkers})
}

// Unserve stops working a queue (waiting for its jobs being worked: never
// call it from Work).
func (w *Worker) Unserve(ctx context.Context, queue string) error {
	return w.client.Queues().Remove(ctx, queue)
}

// Working is how many jobs the worker is working now.
func (w *Worker) Working() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.held)
}

// Beat is the worker's heartbeat: its row in the workers table, and the
// jobs it is working marked alive (River's attempted_at, which the rescue
// reads), so a long call is never taken from a live worker.
func (w *Worker) Beat(ctx context.Context, serves string) error {
	w.mu.Lock()
	ids := make([]int64, 0, len(w.held))
	for id := range w.held {
		ids = append(ids, id)
	}
	w.mu.Unlock()
	if _, err := w.st.pg.Exec(ctx, `INSERT INTO workers (id, label, serves, working, proc, lease_ms) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (id) DO UPDATE SET serves = excluded.serves, working = excluded.working, heartbeat_at = now()`,
		w.cfg.ID, w.cfg.Label, serves, len(ids), w.cfg.Proc, w.lease().Milliseconds()); err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	if len(ids) > 0 {
		if _, err := w.st.pg.Exec(ctx, `UPDATE river_job SET attempted_at = now() WHERE id = ANY($1) AND state = 'running'`, ids); err != nil {
			return fmt.Errorf("heartbeat: %w", err)
		}
	}
	return nil
}

// lease is the worker's Lease (default 10 s, as the worker's --lease).
func (w *Worker) lease() time.Duration {
	if w.cfg.Lease <= 0 {
		return 10 * time.Second
	}
	return w.cfg.Lease
}

// Rescue returns to their queues, at once, the running jobs without a
// heartbeat for silence: their worker died (or lost the store); those
// cancelled meanwhile (`fallacylab queue cancel`) end cancelled. It is the
// update River's rescuer makes, written here because River 0.51 has no
// heartbeat of its own and its rescuer runs every 30 s on rescue ages a
// long call would pass; River's rescue stays as the backstop
// (rescueBackstop). River's own heartbeat rescue (riverqueue/river#1256,
// "Active job rescue based on heartbeat") is on a branch, in no release:
// 0.51.2 is the module proxy's newest on 2026-12-07. Once it is released,
// Beat's and Rescue's updates of river_job go. It also forgets workers
// silent for an hour.
func (w *Worker) Rescue(ctx context.Context, silence time.Duration) (int64, error) {
	// A job whose cancel was asked for (River's cancel_attempted_at) ends
	// cancelled, as River ends one when its worker hands it back. The
	// others keep their scheduled time, so they are taken before the jobs
	// queued or handed back since (a call the dead worker sent is made
	// again before the calls of the run's budget that wait for it).
	res, err := w.st.pg.Exec(ctx, `UPDATE river_job SET
		state = CASE WHEN metadata ? 'cancel_attempted_at' THEN 'cancelled'::river_job_state ELSE 'available'::river_job_state END,
		finalized_at = CASE WHEN metadata ? 'cancel_attempted_at' THEN now() END, `+appendError(`$2::text`)+`
		WHERE kind = 'fallacylab_call' AND state = 'running' AND attempted_at < now() - $1 * interval '1 millisecond'`,
		silence.Milliseconds(), fmt.Sprintf("its worker was silent for %s: rescued by worker %s", silence, w.cfg.Label))
	if err != nil {
		return 0, fmt.Errorf("rescue jobs: %w", err)
	}
	if _, err := w.st.pg.Exec(ctx, `DELETE FROM workers WHERE heartbeat_at < now() - interval '1 hour'`); err != nil {
		return 0, fmt.Errorf("rescue jobs: %w", err)
	}
	return res.RowsAffected(), nil
}

// DeadOwner reports whether owner, a call claim's owner, is the engine of
// a worker silent for longer than silence (killed, or cut off from the
// store): engine.Options.DeadOwner.
func (s *Store) DeadOwner(ctx context.Context, owner string, silence time.Duration) bool {
	var dead bool
	err := s.pg.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM workers WHERE proc = $1 AND heartbeat_at < now() - $2 * interval '1 millisecond')`,
		owner, silence.Milliseconds()).Scan(&dead)
	return err == nil && dead
}

// Leave removes the worker's row (it exits).
func (w *Worker) Leave(ctx context.Context) error {
	_, err := w.st.pg.Exec(ctx, `DELETE FROM workers WHERE id = $1`, w.cfg.ID)
	return err
}
