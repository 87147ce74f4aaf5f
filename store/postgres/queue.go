package postgres

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/fallacylab/fallacylab/engine"
)

// Queue states.
const (
	Queued = "queued"
	Leased = "leased"
	Done   = "done"
	Failed = "failed"
)

// Enqueue queues a job of a run for the workers. A job already queued or
// leased stays as it is (a call two runs need is made once); a failed one
// is queued again, and so is a done one whose answer the cache no longer
// holds (its run removed and the cache cleared since) or that is to be
// made again (j.Refresh: --cache refresh).
func (s *Store) Enqueue(ctx context.Context, runID int64, j engine.Job, key string) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO queue (key, run_id, job_id, job, status, refresh, provider, model) VALUES (?,?,?,?,'queued',?,?,?)
		ON CONFLICT (key) DO UPDATE SET status = 'queued', error = '', run_id = excluded.run_id, job_id = excluded.job_id,
			refresh = excluded.refresh, updated_at = now()
		WHERE queue.status = 'failed' OR (queue.status = 'done' AND (excluded.refresh = 1
			OR NOT EXISTS (SELECT 1 FROM calls c WHERE c.key = queue.key AND c.status = 'ok')))`,
		key, runID, j.ID, string(j.Canonical()), j.Refresh, j.Spec.Provider, j.Spec.Model)
	if err != nil {
		return fmt.Errorf("queue job %s: %w", j.ID, err)
	}
	return nil
}

// Lease is a queued job a worker now holds.
type Lease struct {
	Key, JobID string
	RunID      int64
	// Job is the job to make; its Budget names the run's budget when the
	// run has one (SetBudget), which the worker's engine then holds.
	Job engine.Job
}

// Serves is what a worker can make: jobs of these providers (nil: any),
// except these provider:model pairs.
type Serves struct {
	Providers []string
	Except    []string
}

// Lease takes up to n queued jobs it serves — and such jobs whose lease ran
// out, a dead worker's — for worker, until lease from now. Rows another
// worker is taking at the same moment are skipped, never waited for.
func (s *Store) Lease(ctx context.Context, worker string, n int, lease time.Duration, serves Serves) ([]Lease, error) {
	rows, err := s.db.QueryContext(ctx, `UPDATE queue q SET status = 'leased', worker = ?, lease_until = now() + ? * interval '1 millisecond',
		leases = q.leases + 1, updated_at = now()
		WHERE q.key IN (SELECT key FROM queue WHERE status IN ('queued', 'leased') AND (status = 'queued' OR lease_until < now())
			AND (?::text[] IS NULL OR provider = ANY(?::text[])) AND NOT (provider || ':' || model) = ANY(?::text[])
			ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED)
		RETURNING q.key, q.job_id, q.run_id, q.job, q.refresh = 1, EXISTS (SELECT 1 FROM run_budgets b WHERE b.run_id = q.run_id)`,
		worker, lease.Milliseconds(), serves.Providers, serves.Providers, append([]string{}, serves.Except...), n)
	if err != nil {
		return nil, fmt.Errorf("lease jobs: %w", err)
	}
	defer rows.Close()
	var out []Lease
	for rows.Next() {
		var l Lease
		var doc string
		var budgeted, refresh bool
		if err := rows.Scan(&l.Key, &l.JobID, &l.RunID, &doc, &refresh, &budgeted); err != nil {
			return nil, fmt.Errorf("lease jobs: %w", err)
		}
		if l.Job, err = engine.JobFromCanonical([]byte(doc)); err != nil {
			return nil, fmt.Errorf("lease job %s: %w", l.JobID, err)
		}
		l.Job.ID, l.Job.Refresh = l.JobID, refresh
		if budgeted {
			l.Job.Budget = BudgetScope(l.RunID)
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// Renew extends worker's leases of the jobs keys, while it works on them
// (only those: a job it lost track of, its finish refused by a store that
// was away, runs out and goes to another).
func (s *Store) Renew(ctx context.Context, worker string, keys []string, lease time.Duration) error {
	_, err := s.db.ExecContext(ctx, `UPDATE queue SET lease_until = now() + ? * interval '1 millisecond' WHERE worker = ? AND status = 'leased' AND key = ANY(?::text[])`,
		lease.Milliseconds(), worker, keys)
	return err
}

// PruneQueue deletes the rows of finished jobs (done or failed) whose run
// ended more than age ago, or no longer exists: what the queue keeps of a
// run only lasts while someone may look at its progress (`runs show`). At
// most 10,000 rows a call; it returns how many went.
func (s *Store) PruneQueue(ctx context.Context, age time.Duration) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM queue WHERE key IN (SELECT q.key FROM queue q LEFT JOIN runs r ON r.id = q.run_id
		WHERE q.status IN ('done', 'failed') AND q.updated_at < now() - ? * interval '1 millisecond'
			AND (r.id IS NULL OR (r.status <> 'running' AND `+asTime("r.ended_at")+` < now() - ? * interval '1 millisecond'))
		LIMIT 10000)`, age.Milliseconds(), age.Milliseconds())
	if err != nil {
		return 0, fmt.Errorf("prune the queue: %w", err)
	}
	return res.RowsAffected()
}

// HandBack returns a job worker leased to the queue, unmade and not
// failed, for a worker that can serve it.
func (s *Store) HandBack(ctx context.Context, worker, key string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE queue SET status = 'queued', worker = '', lease_until = NULL, updated_at = now()
		WHERE key = ? AND worker = ? AND status = 'leased'`, key, worker)
	return err
}

// Finish marks a leased job done (its answer is committed) or failed, if
// worker still holds it.
func (s *Store) Finish(ctx context.Context, worker, key string, failure error) error {
	status, msg := Done, ""
	if failure != nil {
		status, msg = Failed, failure.Error()
	}
	_, err := s.db.ExecContext(ctx, `UPDATE queue SET status = ?, error = ?, updated_at = now() WHERE key = ? AND worker = ? AND status = 'leased'`,
		status, msg, key, worker)
	return err
}

// OpenJobs is how many jobs are queued or leased, of any run.
func (s *Store) OpenJobs(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM queue WHERE status IN ('queued', 'leased')`).Scan(&n)
	return n, err
}

// asTime is a text timestamp column as a time, NULL where it holds none (the
// shared schema keeps times as RFC 3339 text; a cast of "" would fail the
// query).
func asTime(col string) string {
	return "(CASE WHEN " + col + " ~ '^[0-9]{4}-' THEN " + col + "::timestamptz END)"
}

// liveRunAge is how long since its last heartbeat a running run counts as
// alive (three of lifecycle's 15 s heartbeats): a coordinator that died
// is given up on after it.
const liveRunAge = 45 * time.Second

// QueuingRuns is how many runs that queue jobs for workers are still
// running (a heartbeat in the last liveRunAge): between two phases of such
// a run no job is open, and a worker waiting for the queue to empty must
// wait for its next phase too.
func (s *Store) QueuingRuns(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM runs r WHERE r.status = 'running'
		AND `+asTime("r.heartbeat_at")+` > now() - ? * interval '1 millisecond'
		AND EXISTS (SELECT 1 FROM queue q WHERE q.run_id = r.id)`, liveRunAge.Milliseconds()).Scan(&n)
	return n, err
}

// QueueCounts is how many of a run's jobs are in each state.
func (s *Store) QueueCounts(ctx context.Context, runID int64) (map[string]int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT status, COUNT(*) FROM queue WHERE run_id = ? GROUP BY status`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var st string
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			return nil, err
		}
		out[st] = n
	}
	return out, rows.Err()
}

// Dispatcher queues a run's jobs for workers and waits for them: one poll
// of the queue every Poll (default 250 ms) answers every waiting job.
type Dispatcher struct {
	st   *Store
	run  int64
	Poll time.Duration
	// Budget, when > 0, is the run's budget in USD, held by the workers
	// together (SetBudget at the first job); 0 clears an earlier one.
	Budget float64
	budget sync.Once
	berr   error
	mu     sync.Mutex
	waits  map[string][]chan error
	once   sync.Once
}

// NewDispatcher makes the dispatcher of a run.
func NewDispatcher(st *Store, runID int64) *Dispatcher {
	return &Dispatcher{st: st, run: runID, Poll: 250 * time.Millisecond, waits: map[string][]chan error{}}
}

// Dispatch queues the job and waits until a worker has finished it.
func (d *Dispatcher) Dispatch(ctx context.Context, j engine.Job, key string) error {
	d.budget.Do(func() {
		if d.Budget > 0 {
			d.berr = d.st.SetBudget(ctx, d.run, d.Budget)
		} else {
			d.berr = d.st.ClearBudget(ctx, d.run) // an earlier invocation's
		}
	})
	if d.berr != nil {
		return d.berr
	}
	if err := engine.RetryStore(ctx, outage, func() error { return d.st.Enqueue(ctx, d.run, j, key) }); err != nil {
		return err
	}
	ch := make(chan error, 1)
	d.mu.Lock()
	d.waits[key] = append(d.waits[key], ch)
	d.mu.Unlock()
	d.once.Do(func() { go d.poll(context.WithoutCancel(ctx)) })
	select {
	case err := <-ch:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// outage is how long a queuing run waits for a store that does not
// answer before its jobs fail.
const outage = 5 * time.Minute

// poll answers the waiting jobs whose rows are done or failed.
func (d *Dispatcher) poll(ctx context.Context) {
	t := time.NewTicker(d.Poll)
	defer t.Stop()
	for range t.C {
		d.mu.Lock()
		keys := make([]string, 0, len(d.waits))
		for k := range d.waits {
			keys = append(keys, k)
		}
		d.mu.Unlock()
		if len(keys) == 0 {
			continue
		}
		rows, err := d.st.db.QueryContext(ctx, `SELECT key, status, error FROM queue WHERE key = ANY(?) AND status IN ('done', 'failed')`, keys)
		if err != nil {
			continue // the next poll tries again
		}
		for rows.Next() {
			var k, st, msg string
			if rows.Scan(&k, &st, &msg) != nil {
				continue
			}
			var err error
			switch {
			case st == Failed && msg == engine.ErrBudget.Error():
				err = engine.ErrBudget // the run's budget, held by the workers
			case st == Failed:
				err = fmt.Errorf("a worker failed it: %s", msg)
			}
			d.mu.Lock()
			for _, ch := range d.waits[k] {
				ch <- err
			}
			delete(d.waits, k)
			d.mu.Unlock()
		}
		rows.Close()
	}
}
