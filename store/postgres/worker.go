package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"
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

// rescueBackstop is the age at which River's own rescuer returns a job
// still running, whatever its worker: the last resort for a job whose
// worker has no row to be found silent by (Rescue). A live worker's job
// may run for long — a call of 20-second generations waiting behind 127
// others for a limit pushed down to 2 slots, retries with back-off — and
// its attempted_at is no longer renewed by the heartbeat, so the backstop
// is a day, where it was 5 minutes.
const rescueBackstop = 24 * time.Hour

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

// Beat is the worker's heartbeat: its row in the workers table, which
// keeps the jobs it is working its own (River names their worker in each
// job's attempted_by), so a long call is never taken from a live worker.
// A worker that beats again after it was found silent is no longer
// rescued.
func (w *Worker) Beat(ctx context.Context, serves string) error {
	if _, err := w.st.pg.Exec(ctx, `INSERT INTO workers (id, label, serves, working, proc, lease_ms, protocol) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (id) DO UPDATE SET serves = excluded.serves, working = excluded.working, heartbeat_at = now(), rescued = false`,
		w.cfg.ID, w.cfg.Label, serves, w.Working(), w.cfg.Proc, w.lease().Milliseconds(), teamProtocol); err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	return nil
}

// teamProtocol is how this fallacylab's workers keep their jobs their own
// (the workers table's protocol column): 2, by their rows' heartbeats.
const teamProtocol = 2

// OlderWorkers are the labels of the workers alive (a heartbeat within
// lease) that keep their jobs by the older protocol: they return to the
// queue the jobs of this one that run longer than their lease.
func (w *Worker) OlderWorkers(ctx context.Context) ([]string, error) {
	rows, err := w.st.pg.Query(ctx, `SELECT label FROM workers WHERE protocol < $1
		AND heartbeat_at >= now() - lease_ms * interval '1 millisecond' ORDER BY label`, teamProtocol)
	if err != nil {
		return nil, fmt.Errorf("list older workers: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list older workers: %w", err)
	}
	return out, nil
}

// lease is the worker's Lease (default 10 s, as the worker's --lease).
func (w *Worker) lease() time.Duration {
	if w.cfg.Lease <= 0 {
		return 10 * time.Second
	}
	return w.cfg.Lease
}

// Rescue returns to their queues, at once, the running jobs of the
// workers silent for longer than silence (they died, or lost the store);
// those cancelled meanwhile (`fallacylab queue cancel`) end cancelled. It
// also forgets workers rescued and silent for an hour.
//
// River 0.51 has no heartbeat of its own: its rescuer returns a job
// running past an age (RescueStuckJobsAfter), which a long call passes
// while its worker is alive, and it runs every 30 s. So the heartbeat is
// the workers table's (Beat), and the rescue is River's own, given the
// dead workers' jobs: its client lists them (JobList) and its driver
// returns them (JobRescueMany, the statement River's rescuer runs). River's
// heartbeat rescue (riverqueue/river#1256, "Active job rescue based on
// heartbeat") is on a branch, in no release: 0.51.2 is the module proxy's
// newest on 2026-12-07.
//
// One worker rescues a silent one: the others wait on its row, then find
// it rescued.
func (w *Worker) Rescue(ctx context.Context, silence time.Duration) (int64, error) {
	// One round trip at each heartbeat, unless a worker fell silent.
	var found bool
	if err := w.st.pg.QueryRow(ctx, `WITH gone AS (DELETE FROM workers WHERE rescued AND heartbeat_at < now() - interval '1 hour')
		SELECT EXISTS (SELECT 1 FROM workers WHERE NOT rescued AND heartbeat_at < now() - $1 * interval '1 millisecond')`,
		silence.Milliseconds()).Scan(&found); err != nil {
		return 0, fmt.Errorf("rescue jobs: %w", err)
	}
	if !found {
		return 0, nil
	}
	tx, err := w.st.pg.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("rescue jobs: %w", err)
	}
	defer tx.Rollback(ctx)
	var now time.Time
	if err := tx.QueryRow(ctx, `SELECT statement_timestamp()`).Scan(&now); err != nil {
		return 0, fmt.Errorf("rescue jobs: %w", err)
	}
	rows, err := tx.Query(ctx, `UPDATE workers SET rescued = true
		WHERE heartbeat_at < $1::timestamptz - $2 * interval '1 millisecond' AND NOT rescued RETURNING id`, now, silence.Milliseconds())
	if err != nil {
		return 0, fmt.Errorf("rescue jobs: %w", err)
	}
	silent, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return 0, fmt.Errorf("rescue jobs: %w", err)
	}
	n := 0
	if len(silent) > 0 {
		var fresh []string
		if n, fresh, err = w.rescueOf(ctx, tx, silent, now, silence); err != nil {
			return 0, err
		}
		// A worker with jobs taken within the lease is rescued again at
		// a later heartbeat, once they are older.
		if _, err := tx.Exec(ctx, `UPDATE workers SET rescued = false WHERE id = ANY($1)`, fresh); err != nil {
			return 0, fmt.Errorf("rescue jobs: %w", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, fmt.Errorf("rescue jobs: %w", err)
	}
	return int64(n), nil
}

// rescueOf returns the running call jobs of the silent workers taken
// more than a lease (silence) before now to their queues (or ends them
// cancelled), in tx. A job taken since is left to its worker, as when
// the heartbeat renewed its jobs' attempted_at: a worker late with a
// heartbeat (a busy machine) keeps what it took within the lease. fresh
// are the silent workers that hold such jobs.
func (w *Worker) rescueOf(ctx context.Context, tx pgx.Tx, silent []string, now time.Time, silence time.Duration) (n int, fresh []string, err error) {
	horizon := now.Add(-silence)
	var p riverdriver.JobRescueManyParams
	params := river.NewJobListParams().Kinds(CallKind).States(rivertype.JobStateRunning).First(rescuePage)
	why := fmt.Sprintf("its worker was silent for %s: rescued by worker %s", silence, w.cfg.Label)
	for {
		res, err := w.client.JobListTx(ctx, tx, params)
		if err != nil {
			return 0, nil, fmt.Errorf("rescue jobs: list the running ones: %w", err)
		}
		for _, j := range res.Jobs {
			if len(j.AttemptedBy) == 0 || !slices.Contains(silent, j.AttemptedBy[len(j.AttemptedBy)-1]) {
				continue
			}
			if j.AttemptedAt == nil || !j.AttemptedAt.Before(horizon) {
				if by := j.AttemptedBy[len(j.AttemptedBy)-1]; !slices.Contains(fresh, by) {
					fresh = append(fresh, by)
				}
				continue
			}
			if err := rescued(&p, j, now, why); err != nil {
				return 0, nil, err
			}
		}
		if len(res.Jobs) < rescuePage {
			break
		}
		params = params.After(res.LastCursor)
	}
	if len(p.ID) == 0 {
		return 0, fresh, nil
	}
	// Jobs taken again since (by a live worker, after another rescue)
	// are left be: River's statement changes only running jobs
	// attempted before the horizon.
	p.StuckHorizon = horizon
	if _, err := riverpgxv5.New(nil).UnwrapExecutor(tx).JobRescueMany(ctx, &p); err != nil {
		return 0, nil, fmt.Errorf("rescue jobs: %w", err)
	}
	return len(p.ID), fresh, nil
}

// rescuePage is how many running jobs one page of Rescue's list holds.
const rescuePage = 1000

// rescued adds job j to p, River's rescue of many jobs: back to its queue
// at its scheduled time, so that it is taken before the jobs queued or
// handed back since (a call the dead worker sent is made again before the
// calls of the run's budget that wait for it), with why as its attempt's
// error; or cancelled, if its cancel was asked for (River's
// cancel_attempted_at), as River ends a job its worker hands back.
func rescued(p *riverdriver.JobRescueManyParams, j *rivertype.JobRow, now time.Time, why string) error {
	e, err := json.Marshal(rivertype.AttemptError{At: now, Attempt: j.Attempt, Error: why})
	if err != nil {
		return fmt.Errorf("rescue job %d: %w", j.ID, err)
	}
	var meta map[string]json.RawMessage
	_ = json.Unmarshal(j.Metadata, &meta) // none: not cancelled
	state, finalized := rivertype.JobStateAvailable, (*time.Time)(nil)
	if _, ok := meta["cancel_attempted_at"]; ok {
		state, finalized = rivertype.JobStateCancelled, &now
	}
	p.ID = append(p.ID, j.ID)
	p.Error = append(p.Error, e)
	p.FinalizedAt = append(p.FinalizedAt, finalized)
	p.ScheduledAt = append(p.ScheduledAt, j.ScheduledAt)
	p.State = append(p.State, string(state))
	return nil
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

// Leave removes the worker's row (it exits), unless it still holds jobs.
func (w *Worker) Leave(ctx context.Context) error {
	if w.Working() > 0 {
		// Jobs it could not finish nor hand back stay River's running
		// ones: the row stays, to fall silent and have them rescued.
		return nil
	}
	_, err := w.st.pg.Exec(ctx, `DELETE FROM workers WHERE id = $1`, w.cfg.ID)
	return err
}
