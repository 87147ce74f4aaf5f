package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/sqlstore"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Dispatcher queues a run's jobs for workers as River jobs and waits for
// them: one poll of their rows every Poll (default 100 ms) answers every
// waiting job.
type Dispatcher struct {
	st   *Store
	run  int64
	Poll time.Duration
	// EndPoll is how soon a poll follows one that heard of an answer
	// while few jobs wait (FullPollBelow), as at a phase's end, where the
	// run waits for its last answers (default 20 ms); a poll that heard
	// of none doubles the wait, up to Poll.
	EndPoll time.Duration
	// FullPollEvery and FullPollBelow are how often (in polls) a poll
	// reads every waiting job, and how few waiting jobs it always reads so
	// (poll; defaults 10 and 512).
	FullPollEvery, FullPollBelow int
	// Budget, when > 0, is the run's budget in USD, held by the workers
	// together (SetBudget at the first job); 0 clears an earlier one.
	Budget float64
	// Queued, if set, hears of each job queued: its River job id, and
	// whether the same call was already queued and not finished (the job
	// then waits for that one).
	Queued func(job string, id int64, duplicate bool)
	// Say, if set, hears when no worker alive has served a queue the run
	// waits on for UnservedAfter (default 10 s), and when one serves it
	// again (watchServed).
	Say           func(string)
	UnservedAfter time.Duration

	budget  sync.Once
	berr    error
	mu      sync.Mutex
	waits   map[int64][]waiter
	keys    map[int64]string     // the call key of each job waited for, but refreshed ones
	queueOf map[int64]string     // the queue of each job waited for
	infos   map[string]QueueInfo // each queue's provider and model, for Say
	named   map[string]bool      // the queues this run is known to use (naming held)
	naming  sync.Mutex           // held while named is read or a queue named
	once    sync.Once
	// inserts are the jobs Dispatch hands to insertLoop, started once.
	inserts chan insertReq
	insOnce sync.Once
}

// NewDispatcher makes the dispatcher of a run.
func NewDispatcher(st *Store, runID int64) *Dispatcher {
	return &Dispatcher{st: st, run: runID, Poll: 100 * time.Millisecond, EndPoll: 20 * time.Millisecond, FullPollEvery: fullPollEvery, FullPollBelow: fullPollBelow,
		UnservedAfter: unservedAfter, queueOf: map[int64]string{}, infos: map[string]QueueInfo{},
		waits: map[int64][]waiter{}, keys: map[int64]string{}, named: map[string]bool{},
		inserts: make(chan insertReq, insertBatch)}
}

// outage is how long a queuing run waits for a store that does not
// answer before its jobs fail.
const outage = 5 * time.Minute

// waiter is a Dispatch waiting for a River job: the run's job and its call
// key, and where its answer goes.
type waiter struct {
	job, key string
	ch       chan answer
}

// answer is what a waiting Dispatch is given: the call stored and linked
// to the run, or the error its job failed with.
type answer struct {
	call store.Call
	err  error
}

// Dispatch queues the job — unless the same call is queued and not
// finished, which it then waits for — and waits until a worker has
// finished it; it returns the answer the worker stored, linked to the
// run.
func (d *Dispatcher) Dispatch(ctx context.Context, j engine.Job, key string) (store.Call, error) {
	d.budget.Do(func() {
		if d.Budget > 0 {
			d.berr = d.st.SetBudget(ctx, d.run, d.Budget)
		} else {
			d.berr = d.st.ClearBudget(ctx, d.run) // an earlier invocation's
		}
	})
	if d.berr != nil {
		return store.Call{}, d.berr
	}
	c, err := d.st.inserter()
	if err != nil {
		return store.Call{}, err
	}
	q := QueueInfo{Provider: j.Spec.Provider, Model: j.Spec.Model, Endpoint: j.Endpoint, Budgeted: d.Budget > 0}
	q.Name = QueueName(q.Provider, q.Model, q.Endpoint, q.Budgeted)
	args := CallArgs{Key: key, Refresh: j.Refresh, Run: d.run, JobID: j.ID, Job: string(j.Canonical()), Budgeted: q.Budgeted}
	if err := d.name(ctx, q); err != nil {
		return store.Call{}, err
	}
	d.insOnce.Do(func() { go d.insertLoop(context.WithoutCancel(ctx), c) })
	reply := make(chan inserted, 1)
	d.inserts <- insertReq{p: river.InsertManyParams{Args: args, InsertOpts: callOpts(q.Name)}, reply: reply}
	var in inserted
	select {
	case in = <-reply:
	case <-ctx.Done():
		return store.Call{}, ctx.Err() // queued or not, the run no longer waits for it
	}
	if in.err != nil {
		return store.Call{}, fmt.Errorf("queue job %s: %w", j.ID, in.err)
	}
	id, dup := in.id, in.dup
	if d.Queued != nil {
		d.Queued(j.ID, id, dup)
	}
	ch := make(chan answer, 1)
	d.mu.Lock()
	d.waits[id] = append(d.waits[id], waiter{job: j.ID, key: key, ch: ch})
	d.queueOf[id], d.infos[q.Name] = q.Name, q
	if !j.Refresh { // a refreshed call's old answer is not its new one
		d.keys[id] = key
	}
	d.mu.Unlock()
	d.once.Do(func() {
		go d.poll(context.WithoutCancel(ctx))
		if d.Say != nil && d.UnservedAfter > 0 {
			go d.watchServed(ctx) // says nothing once the run has stopped waiting
		}
	})
	select {
	case a := <-ch:
		return a.call, a.err
	case <-ctx.Done():
		return store.Call{}, ctx.Err()
	}
}

// name records that the run uses queue q, once: the jobs dispatched
// together wait for the first of them to name it (one write, where each
// of a run's first thousand jobs wrote it).
func (d *Dispatcher) name(ctx context.Context, q QueueInfo) error {
	d.naming.Lock()
	defer d.naming.Unlock()
	if d.named[q.Name] {
		return nil
	}
	err := engine.RetryStore(ctx, outage, func() error { return d.st.nameQueue(ctx, d.run, q) })
	if err != nil {
		return err
	}
	d.named[q.Name] = true
	return nil
}

// insertReq is a job to insert, and where its insert's outcome goes.
type insertReq struct {
	p     river.InsertManyParams
	reply chan inserted
}

// inserted is a job's insert: its River job id, whether the same call was
// queued and not finished (dup), or the error.
type inserted struct {
	id  int64
	dup bool
	err error
}

// insertBatch is the most jobs inserted in one statement.
const insertBatch = 1000

// insertLoop inserts the jobs Dispatch hands it, those waiting together
// in one River InsertMany (one round trip and transaction, where one
// insert each queued 550 jobs a second): the run's jobs reach the workers
// as fast as the engine plans them. Two jobs of the same call never share
// a batch (one statement cannot insert a unique key twice): the second
// waits for the next, and finds the first queued.
func (d *Dispatcher) insertLoop(ctx context.Context, c *river.Client[pgx.Tx]) {
	var carry []insertReq
	for {
		batch := carry
		carry = nil
		if len(batch) == 0 {
			batch = append(batch, <-d.inserts)
		}
	drain:
		for len(batch) < insertBatch {
			select {
			case r := <-d.inserts:
				batch = append(batch, r)
			default:
				break drain
			}
		}
		seen := map[CallArgs]bool{}
		var reqs []insertReq
		for _, r := range batch {
			a := r.p.Args.(CallArgs)
			u := CallArgs{Key: a.Key, Refresh: a.Refresh}
			if seen[u] {
				carry = append(carry, r)
				continue
			}
			seen[u] = true
			reqs = append(reqs, r)
		}
		params := make([]river.InsertManyParams, len(reqs))
		for i, r := range reqs {
			params[i] = r.p
		}
		var res []*rivertype.JobInsertResult
		err := engine.RetryStore(ctx, outage, func() (err error) {
			res, err = c.InsertMany(ctx, params)
			return err
		})
		for i, r := range reqs {
			if err != nil {
				r.reply <- inserted{err: err}
				continue
			}
			r.reply <- inserted{id: res[i].Job.ID, dup: res[i].UniqueSkippedAsDuplicate}
		}
	}
}

// poll answers the waiting jobs that finished: completed, cancelled by
// their worker (the call failed), discarded (out of attempts) or gone
// (cancelled and deleted by `fallacylab queue`). Each poll reads the jobs
// finalized since the last one (River's index on state and finalized_at:
// what a poll reads grows with the throughput, not with the jobs waiting —
// up to dispatchInFlight of them); every fullPollEvery polls it reads all
// the waiting jobs instead (and every poll does while few wait), which
// finds those gone and any finalized with an earlier time than the last
// poll saw (a worker's clock behind, or its batch committed late).
//
// While few jobs wait (a phase's end), a poll also reads which of their
// calls have an answer stored: a worker stores it before its job ends, and
// River's completer commits a job's end in batches, up to 250 ms later
// when they are few — the run need not wait for that. And a poll then
// follows one that heard of an answer after EndPoll, not Poll.
func (d *Dispatcher) poll(ctx context.Context) {
	wait := d.Poll
	t := time.NewTimer(wait)
	defer t.Stop()
	var since time.Time // the last poll's start, by the store's clock
	for n := 0; ; n++ {
		<-t.C
		d.mu.Lock()
		ids := make([]int64, 0, len(d.waits))
		for id := range d.waits {
			ids = append(ids, id)
		}
		d.mu.Unlock()
		end := len(ids) <= d.FullPollBelow
		finished, at, err := d.pollOnce(ctx, ids, since, end || n%max(d.FullPollEvery, 1) == 0, end)
		switch {
		case len(ids) > 0 && err == nil && end && len(finished) > 0:
			wait = min(max(d.EndPoll, time.Millisecond), d.Poll)
		case end:
			wait = min(2*wait, d.Poll)
		default:
			wait = d.Poll
		}
		t.Reset(wait)
		if len(ids) == 0 || err != nil {
			continue // the next poll tries again
		}
		d.mu.Lock()
		var answered []waiter
		for id, err := range finished {
			if err == nil {
				answered = append(answered, d.waits[id]...)
			}
		}
		d.mu.Unlock()
		calls, err := d.st.linkAnswers(ctx, d.run, answered)
		if err != nil {
			continue // the next poll reads them again
		}
		since = at
		d.mu.Lock()
		for id, err := range finished {
			for _, w := range d.waits[id] {
				a := answer{err: err}
				if err == nil {
					c, ok := calls[w.key]
					a.call = c
					if !ok {
						a.err = fmt.Errorf("a worker finished job %s but its answer is not in the store", w.job)
					}
				}
				w.ch <- a
			}
			delete(d.waits, id)
			delete(d.keys, id)
			delete(d.queueOf, id)
		}
		d.mu.Unlock()
	}
}

// linkAnswers links the answers of the waiting jobs ws to run, as the
// jobs of run they are, and returns them by call key: one statement for
// a poll's answers, where a read and a link of each cost two round trips
// (and the link a wait for the run's totals, which every link updates).
// A call with no answer stored is neither linked nor returned.
func (st *Store) linkAnswers(ctx context.Context, run int64, ws []waiter) (map[string]store.Call, error) {
	if len(ws) == 0 {
		return nil, nil
	}
	keys, jobs := make([]string, len(ws)), make([]string, len(ws))
	for i, w := range ws {
		keys[i], jobs[i] = w.key, w.job
	}
	rows, err := st.db.QueryContext(ctx, `WITH linked AS (
			INSERT INTO run_calls (run_id, key, cached, job)
			SELECT ?, u.key, 0, u.job FROM unnest(?::text[], ?::text[]) AS u(key, job)
			WHERE EXISTS (SELECT 1 FROM calls c WHERE c.key = u.key AND c.status = 'ok')
			ON CONFLICT (run_id, key) DO NOTHING)
		SELECT `+sqlstore.CallColumns+` FROM calls WHERE key = ANY(?::text[]) AND status = 'ok'`, run, keys, jobs, keys)
	if err != nil {
		return nil, fmt.Errorf("link run %d's answers: %w", run, err)
	}
	defer rows.Close()
	calls := make(map[string]store.Call, len(ws))
	for rows.Next() {
		c, err := sqlstore.ScanCall(rows)
		if err != nil {
			return nil, fmt.Errorf("link run %d's answers: %w", run, err)
		}
		calls[c.Key] = c
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("link run %d's answers: %w", run, err)
	}
	return calls, nil
}

// pollOnce reads which of the jobs ids finished: all of them (full, or
// the first poll), or those finalized since the last poll; and with
// answered, those whose call has an answer stored.
func (d *Dispatcher) pollOnce(ctx context.Context, ids []int64, since time.Time, full, answered bool) (map[int64]error, time.Time, error) {
	if len(ids) == 0 {
		return nil, since, nil
	}
	if !full && !since.IsZero() {
		return d.finishedSince(ctx, since.Add(-pollOverlap))
	}
	finished, at, err := d.finishedOf(ctx, ids)
	if err != nil || !answered {
		return finished, at, err
	}
	d.mu.Lock()
	keyed := map[string][]int64{}
	for _, id := range ids {
		if k, ok := d.keys[id]; ok {
			if _, done := finished[id]; !done {
				keyed[k] = append(keyed[k], id)
			}
		}
	}
	d.mu.Unlock()
	ok, err := d.st.answeredOf(ctx, keyed)
	if err != nil {
		return nil, time.Time{}, err
	}
	for _, id := range ok {
		finished[id] = nil
	}
	return finished, at, nil
}

// fullPollEvery is how often (in polls) a poll reads every waiting job,
// and fullPollBelow how few waiting jobs it always reads so (the
// defaults of Dispatcher.FullPollEvery and FullPollBelow); pollOverlap is
// how far before the last poll a poll reads what ended. River's completer
// commits a job's end in batches, under load more than a second after the
// time it records: such a job is heard of by a full poll, which at a
// phase's end (few jobs waiting, all of them at once) is every poll.
const (
	fullPollEvery = 10
	fullPollBelow = 512
	pollOverlap   = time.Second
)

// finishedOf reads the jobs ids that finished, and those no longer in the
// queue, with the store's time before it read them.
//
// River's job list (JobList by IDs) returns whole rows, the calls'
// documents with them: up to dispatchInFlight of them is tens of MB, where
// this reads three columns.
func (d *Dispatcher) finishedOf(ctx context.Context, ids []int64) (map[int64]error, time.Time, error) {
	rows, err := d.st.db.QueryContext(ctx, `SELECT statement_timestamp(), j.id, j.state::text, `+lastError("j.")+`
		FROM (SELECT 1) AS one LEFT JOIN river_job j ON j.id = ANY(?::bigint[])`, ids)
	if err != nil {
		return nil, time.Time{}, err
	}
	finished, at, seen, err := scanFinished(rows)
	if err != nil {
		return nil, time.Time{}, err
	}
	for _, id := range ids {
		if !seen[id] {
			finished[id] = fmt.Errorf("job %d is no longer in the queue (cancelled with fallacylab queue cancel?)", id)
		}
	}
	return finished, at, nil
}

// answeredOf returns the jobs of keyed (call key → its jobs) whose call
// has an answer stored.
func (st *Store) answeredOf(ctx context.Context, keyed map[string][]int64) ([]int64, error) {
	if len(keyed) == 0 {
		return nil, nil
	}
	keys := make([]string, 0, len(keyed))
	for k := range keyed {
		keys = append(keys, k)
	}
	rows, err := st.db.QueryContext(ctx, `SELECT key FROM calls WHERE key = ANY(?::text[]) AND status = 'ok'`, keys)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		ids = append(ids, keyed[k]...)
	}
	return ids, rows.Err()
}

// finishedSince reads the call jobs finalized at or after since (any
// run's: those this run does not wait for are let be), and the store's
// time before it read them. Three columns, as finishedOf reads: River's
// job list with a Where on finalized_at would return whole rows.
func (d *Dispatcher) finishedSince(ctx context.Context, since time.Time) (map[int64]error, time.Time, error) {
	rows, err := d.st.db.QueryContext(ctx, `SELECT statement_timestamp(), j.id, j.state::text, `+lastError("j.")+`
		FROM (SELECT 1) AS one LEFT JOIN river_job j
		ON j.state IN ('completed', 'cancelled', 'discarded') AND j.finalized_at >= ? AND j.kind = '`+CallKind+`'`, since)
	if err != nil {
		return nil, time.Time{}, err
	}
	finished, at, _, err := scanFinished(rows)
	return finished, at, err
}

// scanFinished reads rows of the statement's time and a job's id, state
// and last error (all NULL in the one row of a statement that found no
// job): the jobs finished among them, when the statement began, and
// every id seen.
func scanFinished(rows *sql.Rows) (finished map[int64]error, at time.Time, seen map[int64]bool, err error) {
	defer rows.Close()
	finished, seen = map[int64]error{}, map[int64]bool{}
	for rows.Next() {
		var id sql.NullInt64
		var st, msg sql.NullString
		if err := rows.Scan(&at, &id, &st, &msg); err != nil {
			return nil, time.Time{}, nil, err
		}
		if !id.Valid {
			continue
		}
		seen[id.Int64] = true
		switch st.String {
		case "completed":
			finished[id.Int64] = nil
		case "cancelled", "discarded":
			finished[id.Int64] = jobFailure(msg.String)
		}
	}
	return finished, at, seen, rows.Err()
}

// jobFailure is the error of a job its worker failed with msg.
func jobFailure(msg string) error {
	switch {
	case strings.Contains(msg, engine.ErrBudget.Error()):
		return engine.ErrBudget // the run's budget, held by the workers
	case msg == "":
		return fmt.Errorf("a worker failed it")
	}
	return fmt.Errorf("a worker failed it: %s", msg)
}
