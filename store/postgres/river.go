package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/fallacylab/fallacylab/store"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"
)

// The work queue of runs spread over workers (fallacylab worker) is River's
// (github.com/riverqueue/river): a run's calls are River jobs of kind
// CallKind, one queue per provider endpoint and model (QueueName), and a
// worker is a River client working the queues it can serve. Leases (River
// locks a job as "running" for its client), retries, snoozes (a job handed
// back), unique jobs, pruning of finished jobs and the leader's rescue of
// stuck jobs are River's, configured here.
//
// What stays beside River, and why: a call's claim (store.Claims: a row
// per call key, with a lease, taken before the call is paid for). River's
// unique jobs keep one job per call among those queued; a call is also
// made outside the queue — by a run in one process on the same store, by a
// run resumed after a crash — and the claim is what keeps every one of
// them from paying for it twice. Its lease no longer decides when a dead
// worker's call is made again (#42 item 5): River rescues the job, and the
// worker that gets it takes the dead owner's claim over at once (the
// engine's DeadOwner) and counts the call as paid twice.

// CallKind is the River job kind of a model call a run queued for workers.
const CallKind = "fallacylab_call"

// CallArgs is a queued call as River holds it (the job's args). Key and
// Refresh make a job unique among the unfinished ones: a call two runs
// queue at once is made once, and one queued again after it finished (its
// answer since removed, or to be made again) is a new job.
type CallArgs struct {
	Key     string `json:"key" river:"unique"`
	Refresh bool   `json:"refresh,omitempty" river:"unique"`
	Run     int64  `json:"run"`
	JobID   string `json:"job_id"`
	// Job is the call's canonical document (engine.Job.Canonical), kept as
	// text so its bytes, and so its key, survive jsonb.
	Job string `json:"job"`
	// Budgeted: the run holds a budget (SetBudget) that the call counts
	// against; only a worker with a price for the model may make it.
	Budgeted bool `json:"budgeted,omitempty"`
}

// Kind is CallKind (river.JobArgs).
func (CallArgs) Kind() string { return CallKind }

// openStates are the states of a job not yet finished.
var openStates = []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending,
	rivertype.JobStateRetryable, rivertype.JobStateRunning, rivertype.JobStateScheduled}

// cancelledNote is the error of a job cancelled through River (its cancel
// records none).
const cancelledNote = "cancelled by fallacylab queue cancel (or in River's UI)"

// lastError is the SQL of a River job's last error (p: the table's alias
// and a dot, or ""), or cancelledNote for one cancelled without an error.
func lastError(p string) string {
	return `COALESCE(` + p + `errors[array_length(` + p + `errors, 1)]->>'error', CASE WHEN ` + p + `state = 'cancelled' THEN '` +
		strings.ReplaceAll(cancelledNote, "'", "''") + `' END, '')`
}

// openSQL is openStates as an SQL list.
const openSQL = `('available', 'pending', 'retryable', 'running', 'scheduled')`

// maxAttempts is how often River makes a job before discarding it: the
// engine already retries a call's provider errors, so River's attempts are
// the worker deaths and store outages a job lives through.
const maxAttempts = 25

// callOpts are a queued call's River insert options.
func callOpts(queue string) *river.InsertOpts {
	return &river.InsertOpts{Queue: queue, MaxAttempts: maxAttempts,
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: openStates}}
}

// QueueName is the River queue of the calls to a provider's model at an
// endpoint ("" for its built-in one), and of budgeted runs' calls apart: a
// readable slug and a hash, within River's 64 characters of [a-z0-9_-].
func QueueName(provider, model, endpoint string, budgeted bool) string {
	sum := sha256.Sum256([]byte(provider + "\x00" + model + "\x00" + endpoint))
	var b strings.Builder
	sep := false
	for _, r := range strings.ToLower(provider + "_" + model) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if sep && b.Len() > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
			sep = false
		} else {
			sep = true
		}
	}
	slug := b.String()
	if len(slug) > 44 {
		slug = strings.TrimRight(slug[:44], "_")
	}
	name := slug + "_" + hex.EncodeToString(sum[:4])
	if budgeted {
		name += "_b"
	}
	return name
}

// QueueInfo is a queue a run has put calls in, and what it serves.
type QueueInfo struct {
	Name, Provider, Model, Endpoint string
	Budgeted                        bool
}

// Queues are every queue runs have put calls in.
func (s *Store) Queues(ctx context.Context) ([]QueueInfo, error) {
	rows, err := s.pg.Query(ctx, `SELECT name, provider, model, endpoint, budgeted FROM queue_names ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("list queues: %w", err)
	}
	defer rows.Close()
	var out []QueueInfo
	for rows.Next() {
		var q QueueInfo
		if err := rows.Scan(&q.Name, &q.Provider, &q.Model, &q.Endpoint, &q.Budgeted); err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	return out, rows.Err()
}

// nameQueue records a queue and that run uses it.
func (s *Store) nameQueue(ctx context.Context, run int64, q QueueInfo) error {
	if _, err := s.pg.Exec(ctx, `INSERT INTO queue_names (name, provider, model, endpoint, budgeted) VALUES ($1,$2,$3,$4,$5) ON CONFLICT (name) DO NOTHING`,
		q.Name, q.Provider, q.Model, q.Endpoint, q.Budgeted); err != nil {
		return fmt.Errorf("name queue %s: %w", q.Name, err)
	}
	if _, err := s.pg.Exec(ctx, `INSERT INTO run_queues (run_id, queue) VALUES ($1,$2) ON CONFLICT DO NOTHING`, run, q.Name); err != nil {
		return fmt.Errorf("name queue %s: %w", q.Name, err)
	}
	return nil
}

// quiet is the logger of River's clients: what a worker needs to say (an
// outage, a job it skips) it says itself, and stdout is the command's.
// FALLACYLAB_RIVER_LOG=debug|info|warn|error sends River's own log to
// stderr, for diagnosing the queue.
var quiet = riverLogger(os.Getenv("FALLACYLAB_RIVER_LOG"))

func riverLogger(level string) *slog.Logger {
	var l slog.Level
	if level == "" || l.UnmarshalText([]byte(level)) != nil {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}

// RiverClient is the store's River client (not started: it inserts and
// manages jobs; workers are clients of their own, NewWorker), for the
// River UI (`fallacylab view --queue`).
func (s *Store) RiverClient() (*river.Client[pgx.Tx], error) { return s.inserter() }

// inserter is the River client a store queues calls with (insert only).
// Its FetchCooldown is River's shortest: an insert-only client fetches
// nothing, and River allows one insert notification per queue per
// FetchCooldown (100 ms by default) — a run's second batch of jobs, inserted
// some 10–60 ms after its first, notified no worker, and a worker that had
// found nothing in the first waited for its next poll (the three workers of
// a run began their calls 0, 37 and 95 ms after the first job; now 6, 20
// and 43 ms).
func (s *Store) inserter() (*river.Client[pgx.Tx], error) {
	s.riverOnce.Do(func() {
		s.river, s.riverErr = river.NewClient(riverpgxv5.New(s.pg), &river.Config{Logger: quiet, FetchCooldown: river.FetchCooldownMin})
	})
	return s.river, s.riverErr
}

// migrateRiver applies River's migrations (River's own migrator), then
// adds an index of fallacylab's call jobs by run beside River's: the
// counts of one run's jobs (QueueCounts, BetweenPhases, `fallacylab
// queue`) read it; River's own indexes of jobs (by state, queue, kind, and
// its GIN index of args, for containment) do not serve a run's number.
// River's migrations do not touch it. Then the jobs an older store's
// home-made queue held move into River, its table dropped (moveOldQueue).
func (s *Store) migrateRiver(ctx context.Context) error {
	m, err := rivermigrate.New(riverpgxv5.New(s.pg), &rivermigrate.Config{Logger: quiet})
	if err != nil {
		return fmt.Errorf("migrate River: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("migrate River: %w", err)
	}
	if _, err := s.pg.Exec(ctx, `CREATE INDEX IF NOT EXISTS river_job_fallacylab_run ON river_job (((args->>'run')::bigint)) WHERE kind = 'fallacylab_call'`); err != nil {
		return fmt.Errorf("migrate River: %w", err)
	}
	return s.moveOldQueue(ctx)
}

// moveOldQueue moves the open jobs of the queue table fallacylab kept
// before River (queued or leased: a lease is void once its worker runs
// this fallacylab) into River jobs, and drops the table, in one
// transaction: nothing is lost and nothing is moved twice.
func (s *Store) moveOldQueue(ctx context.Context) error {
	var exists bool
	if err := s.pg.QueryRow(ctx, `SELECT to_regclass('queue') IS NOT NULL`).Scan(&exists); err != nil || !exists {
		return err
	}
	c, err := s.inserter()
	if err != nil {
		return err
	}
	tx, err := s.pg.Begin(ctx)
	if err != nil {
		return fmt.Errorf("move the old queue: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	rows, err := tx.Query(ctx, `SELECT q.key, q.run_id, q.job_id, q.job, q.refresh = 1, q.provider, q.model,
		COALESCE(q.job::jsonb->>'endpoint', ''), EXISTS (SELECT 1 FROM run_budgets b WHERE b.run_id = q.run_id)
		FROM queue q WHERE q.status IN ('queued', 'leased') ORDER BY q.seq`)
	if err != nil {
		return fmt.Errorf("move the old queue: %w", err)
	}
	var params []river.InsertManyParams
	var named []QueueInfo
	var runs []int64
	for rows.Next() {
		var a CallArgs
		var q QueueInfo
		if err := rows.Scan(&a.Key, &a.Run, &a.JobID, &a.Job, &a.Refresh, &q.Provider, &q.Model, &q.Endpoint, &a.Budgeted); err != nil {
			rows.Close()
			return fmt.Errorf("move the old queue: %w", err)
		}
		q.Budgeted = a.Budgeted
		q.Name = QueueName(q.Provider, q.Model, q.Endpoint, q.Budgeted)
		params = append(params, river.InsertManyParams{Args: a, InsertOpts: callOpts(q.Name)})
		named, runs = append(named, q), append(runs, a.Run)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("move the old queue: %w", err)
	}
	for i, q := range named {
		if _, err := tx.Exec(ctx, `INSERT INTO queue_names (name, provider, model, endpoint, budgeted) VALUES ($1,$2,$3,$4,$5) ON CONFLICT (name) DO NOTHING`,
			q.Name, q.Provider, q.Model, q.Endpoint, q.Budgeted); err != nil {
			return fmt.Errorf("move the old queue: %w", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO run_queues (run_id, queue) VALUES ($1,$2) ON CONFLICT DO NOTHING`, runs[i], q.Name); err != nil {
			return fmt.Errorf("move the old queue: %w", err)
		}
	}
	if len(params) > 0 {
		if _, err := c.InsertManyTx(ctx, tx, params); err != nil {
			return fmt.Errorf("move the old queue: %w", err)
		}
	}
	if _, err := tx.Exec(ctx, `DROP TABLE queue`); err != nil {
		return fmt.Errorf("move the old queue: %w", err)
	}
	return tx.Commit(ctx)
}

// Queue states, as `runs show` and `fallacylab queue` count a run's jobs.
const (
	Queued  = "queued"
	Running = "running"
	Done    = "done"
	Failed  = "failed"
)

// stateOf is the queue state of a River job state.
const stateOf = `CASE state WHEN 'running' THEN 'running' WHEN 'completed' THEN 'done'
	WHEN 'cancelled' THEN 'failed' WHEN 'discarded' THEN 'failed' ELSE 'queued' END`

// QueueCounts is how many of a run's jobs are in each queue state. It,
// OpenJobs, OpenCallJobsBut and BetweenPhases read River's table (and
// write nothing there): River's counts (its driver's
// JobCountByQueueAndState) are per queue, of its available and running
// jobs only — a job handed back with a delay (scheduled, retryable) is not
// among them, and a worker counting on them would leave while it waits —
// and a queue is shared by the runs of one model; its job list pages
// whole rows (the calls' documents with them).
func (s *Store) QueueCounts(ctx context.Context, runID int64) (map[string]int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+stateOf+`, COUNT(*) FROM river_job
		WHERE kind = 'fallacylab_call' AND (args->>'run')::bigint = ? GROUP BY 1`, runID)
	if err != nil {
		return nil, fmt.Errorf("count run %d's jobs: %w", runID, err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var st string
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			return nil, err
		}
		out[st] += n
	}
	return out, rows.Err()
}

// OpenJobs is how many jobs in these queues are not finished.
func (s *Store) OpenJobs(ctx context.Context, queues []string) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM river_job WHERE state IN `+openSQL+` AND queue = ANY(?::text[])`, queues).Scan(&n)
	return n, err
}

// OpenCallJobsBut is how many call jobs are not finished in the queues
// other than skipped: those a worker serves, and those named since it
// last listed the queues (which it may serve once it has).
func (s *Store) OpenCallJobsBut(ctx context.Context, skipped []string) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM river_job WHERE kind = '`+CallKind+`' AND state IN `+openSQL+`
		AND NOT (queue = ANY(COALESCE(?::text[], '{}')))`, skipped).Scan(&n) // none skipped: nil, NULL
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

// BetweenPhases is how many runs that queue jobs for workers are still
// running (a heartbeat in the last liveRunAge) with no job open: between
// two phases (generations answered, judgements not yet queued), so that a
// worker waiting for the work it can serve to end waits for the next phase
// too. A run whose open jobs are all in queues a worker does not serve has
// nothing for it.
//
// Why not River's InsertTx in the transaction that stores a phase's last
// answer (#42): the next phase's jobs are not known there. They are built
// by the run's own process from the answers (a judge prompt quotes the
// generation; a ranking's next window depends on the last), by its Task's
// code, which a worker — serving every run and knowing no benchmark — does
// not have. So the coordinator queues each phase (River's InsertMany, in
// one transaction per batch), and a worker waiting for work to end reads
// this count rather than a job that would hand the phase over.
func (s *Store) BetweenPhases(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM runs r WHERE r.status = 'running'
		AND `+asTime("r.heartbeat_at")+` > now() - ? * interval '1 millisecond'
		AND EXISTS (SELECT 1 FROM run_queues q WHERE q.run_id = r.id)
		AND NOT EXISTS (SELECT 1 FROM river_job j WHERE j.kind = 'fallacylab_call' AND (j.args->>'run')::bigint = r.id AND j.state IN `+openSQL+`)`,
		liveRunAge.Milliseconds()).Scan(&n)
	return n, err
}

// DeleteRun removes a run as the shared store does (sqlstore.Store.DeleteRun)
// and then its River jobs and queue links, so that `fallacylab queue` lists
// no removed run and nothing of it waits for the cleaner.
func (s *Store) DeleteRun(ctx context.Context, id int64, withStudies bool) (store.Deleted, error) {
	d, err := s.Store.DeleteRun(ctx, id, withStudies)
	if err != nil {
		return d, err
	}
	if err := s.deleteRunJobs(ctx, id); err != nil {
		return d, fmt.Errorf("delete run %d: its queued jobs: %w", id, err)
	}
	if _, err := s.pg.Exec(ctx, `DELETE FROM run_queues WHERE run_id = $1`, id); err != nil {
		return d, fmt.Errorf("delete run %d: its queues: %w", id, err)
	}
	return d, nil
}

// deleteRunJobs deletes a run's River jobs through River (JobDeleteMany by
// id, as it deletes only by id, kind, queue, state or priority); a job
// being made is cancelled (River deletes no running job), so that it ends
// cancelled and the job cleaner removes it.
func (s *Store) deleteRunJobs(ctx context.Context, run int64) error {
	c, err := s.inserter()
	if err != nil {
		return err
	}
	ids, err := s.runJobs(ctx, run, append(slices.Clone(openStates), rivertype.JobStateCancelled,
		rivertype.JobStateCompleted, rivertype.JobStateDiscarded)...)
	if err != nil {
		return err
	}
	running, err := s.runJobs(ctx, run, rivertype.JobStateRunning)
	if err != nil {
		return err
	}
	for _, id := range running {
		if _, err := c.JobCancel(ctx, id); err != nil && !errors.Is(err, river.ErrNotFound) {
			return fmt.Errorf("cancel job %d: %w", id, err)
		}
	}
	for len(ids) > 0 {
		batch := ids[:min(len(ids), 10_000)]
		ids = ids[len(batch):]
		if _, err := c.JobDeleteMany(ctx, river.NewJobDeleteManyParams().IDs(batch...).First(len(batch))); err != nil {
			return err
		}
	}
	return nil
}
