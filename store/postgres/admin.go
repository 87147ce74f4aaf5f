package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// QueueRow is one run's jobs in one queue, by queue state (`fallacylab
// queue`).
type QueueRow struct {
	Run                           int64
	Queue, Provider, Model        string
	Queued, Running, Done, Failed int
	LastError                     string // the newest failed job's last error ("" if none failed)
}

// QueueTable is every run's jobs per queue (run 0), or one run's, in run
// and queue order. It reads River's table: River's own counts (its
// driver's JobCountByQueueAndState and JobCountByAllStates, behind its UI)
// are of a whole queue (available and running only) or of the whole
// table, while a queue here is shared by every run of its model; and its
// JobList pages whole rows, tens of thousands for one run's progress,
// where this is one grouped count. So the count is SQL of ours, read
// only, as OpenJobs' is.
func (s *Store) QueueTable(ctx context.Context, run int64) ([]QueueRow, error) {
	rows, err := s.pg.Query(ctx, `SELECT (j.args->>'run')::bigint AS run, j.queue,
			COALESCE(q.provider, ''), COALESCE(q.model, ''),
			COUNT(*) FILTER (WHERE j.state IN `+openSQL+` AND j.state <> 'running'),
			COUNT(*) FILTER (WHERE j.state = 'running'),
			COUNT(*) FILTER (WHERE j.state = 'completed'),
			COUNT(*) FILTER (WHERE j.state IN ('cancelled', 'discarded')),
			COALESCE((array_agg(`+lastError("j.")+` ORDER BY j.finalized_at DESC)
				FILTER (WHERE j.state IN ('cancelled', 'discarded')))[1], '')
		FROM river_job j LEFT JOIN queue_names q ON q.name = j.queue
		WHERE j.kind = $1 AND ($2 = 0 OR (j.args->>'run')::bigint = $2)
		GROUP BY 1, 2, 3, 4 ORDER BY 1, 2`, CallKind, run)
	if err != nil {
		return nil, fmt.Errorf("queue table: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (QueueRow, error) {
		var q QueueRow
		err := r.Scan(&q.Run, &q.Queue, &q.Provider, &q.Model, &q.Queued, &q.Running, &q.Done, &q.Failed, &q.LastError)
		return q, err
	})
	if err != nil {
		return nil, fmt.Errorf("queue table: %w", err)
	}
	return out, nil
}

// WorkerInfo is a worker process as its heartbeats describe it.
type WorkerInfo struct {
	ID, Label, Serves  string
	Working            int
	Started, Heartbeat time.Time
}

// Workers is the workers heard from within the last `within`, newest
// first.
func (s *Store) Workers(ctx context.Context, within time.Duration) ([]WorkerInfo, error) {
	rows, err := s.pg.Query(ctx, `SELECT id, label, serves, working, started_at, heartbeat_at FROM workers
		WHERE heartbeat_at >= now() - $1 * interval '1 millisecond' ORDER BY started_at DESC, id`, within.Milliseconds())
	if err != nil {
		return nil, fmt.Errorf("list workers: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (WorkerInfo, error) {
		var w WorkerInfo
		err := r.Scan(&w.ID, &w.Label, &w.Serves, &w.Working, &w.Started, &w.Heartbeat)
		return w, err
	})
	if err != nil {
		return nil, fmt.Errorf("list workers: %w", err)
	}
	return out, nil
}

// CancelJobs cancels a run's open jobs through River's cancel: those
// waiting in a queue at once, those being made when their worker next
// hears of it (its call is interrupted), or, should their worker be dead,
// when its jobs are rescued. The run waiting for them sees them failed.
// It returns how many it cancelled at once (queued) and how many were
// being made (running: cancelled when their worker hears of it, unless
// their call ends first and keeps its answer).
func (s *Store) CancelJobs(ctx context.Context, run int64) (queued, running int, err error) {
	c, err := s.inserter()
	if err != nil {
		return 0, 0, err
	}
	ids, err := s.runJobs(ctx, run, openStates...)
	if err != nil {
		return 0, 0, err
	}
	for _, id := range ids {
		j, err := c.JobCancel(ctx, id)
		if err != nil {
			if errors.Is(err, river.ErrNotFound) {
				continue // finished and removed meanwhile
			}
			return queued, running, fmt.Errorf("cancel job %d of run %d: %w", id, run, err)
		}
		switch j.State {
		case rivertype.JobStateCancelled:
			queued++
		case rivertype.JobStateRunning:
			running++
		}
	}
	return queued, running, nil
}

// RetryJobs puts a run's failed jobs (cancelled, or out of attempts) back
// in their queues, through River's retry: the workers make them again and
// store their answers. It returns how many.
func (s *Store) RetryJobs(ctx context.Context, run int64) (int, error) {
	c, err := s.inserter()
	if err != nil {
		return 0, err
	}
	ids, err := s.runJobs(ctx, run, rivertype.JobStateCancelled, rivertype.JobStateDiscarded)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		j, err := c.JobRetry(ctx, id)
		if err != nil {
			return n, fmt.Errorf("retry job %d of run %d: %w", id, run, err)
		}
		if j.State == rivertype.JobStateAvailable {
			n++
		}
	}
	return n, nil
}

// runJobs is the ids of a run's jobs in the given states, listed through
// River (its job list, filtered on the run in the job's args).
func (s *Store) runJobs(ctx context.Context, run int64, states ...rivertype.JobState) ([]int64, error) {
	c, err := s.inserter()
	if err != nil {
		return nil, err
	}
	const page = 1000
	params := river.NewJobListParams().Kinds(CallKind).States(states...).First(page).
		Where("(args->>'run')::bigint = @run", river.NamedArgs{"run": run})
	var ids []int64
	for {
		res, err := c.JobList(ctx, params)
		if err != nil {
			return nil, fmt.Errorf("run %d's jobs: %w", run, err)
		}
		for _, j := range res.Jobs {
			ids = append(ids, j.ID)
		}
		if len(res.Jobs) < page || res.LastCursor == nil {
			return ids, nil
		}
		params = params.After(res.LastCursor)
	}
}
