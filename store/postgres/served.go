package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// unservedAfter is how long a queue the run waits on may go without a
// worker alive that serves it before the run says so (the default of
// Dispatcher.UnservedAfter): long enough for a team started with the run
// to have named its queues (a worker lists them every second and beats
// every --lease/5).
const unservedAfter = 10 * time.Second

// SkipReasons says why a worker may not serve a queue, wherever a queue
// no worker serves is said (the queuing run, `fallacylab queue`; the
// viewer's page says it in a sentence of its own).
const SkipReasons = "a worker skips a queue whose provider it has no key for, that it reaches at another endpoint, or whose budgeted model it has no price for, and says why"

// liveServes is what each worker alive serves: the queue names of its
// last heartbeat, of each worker whose heartbeat is within its own
// --lease (a worker silent for longer is dead: its jobs are rescued).
func (s *Store) liveServes(ctx context.Context) ([][]string, error) {
	rows, err := s.pg.Query(ctx, `SELECT serves FROM workers WHERE heartbeat_at >= now() - lease_ms * interval '1 millisecond'`)
	if err != nil {
		return nil, fmt.Errorf("list the workers alive: %w", err)
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		var serves string
		if err := rows.Scan(&serves); err != nil {
			return nil, fmt.Errorf("list the workers alive: %w", err)
		}
		out = append(out, strings.Fields(serves))
	}
	return out, rows.Err()
}

// servedWatch is what a queuing run has said of the queues it waits on
// that no worker alive serves: when each was first seen so (since), and
// what it said of each (said: noneAlive or noneServes), so that it says
// each once until a worker serves the queue, or the reason changes.
type servedWatch struct {
	since map[string]time.Time
	said  map[string]int
}

// What a run said of a queue no worker serves.
const (
	noneAlive  = 1 // no worker is alive at all
	noneServes = 2 // the workers alive skip it
)

// news is what the run says at now, given the queues it waits on
// (waiting, by name) and what each worker alive serves (live): of the
// queues no worker has served for after or longer, once for each reason;
// and of each it spoke of that a worker now serves.
func (w *servedWatch) news(now time.Time, waiting map[string]QueueInfo, live [][]string, after time.Duration) []string {
	if w.since == nil {
		w.since, w.said = map[string]time.Time{}, map[string]int{}
	}
	names := make([]string, 0, len(waiting))
	for name := range waiting {
		names = append(names, name)
	}
	slices.Sort(names)
	why := noneServes
	if len(live) == 0 {
		why = noneAlive
	}
	var out, unserved []string
	var longest time.Duration // of the queues in unserved
	for _, name := range names {
		q := waiting[name]
		pm := q.Provider + ":" + q.Model
		if slices.ContainsFunc(live, func(serves []string) bool { return slices.Contains(serves, name) }) {
			if w.said[name] != 0 {
				out = append(out, fmt.Sprintf("a worker serves %s now (queue %s)", pm, name))
			}
			delete(w.since, name)
			delete(w.said, name)
			continue
		}
		if w.since[name].IsZero() {
			w.since[name] = now
		}
		waited := now.Sub(w.since[name]).Round(time.Second)
		if w.said[name] == why || now.Sub(w.since[name]) < after {
			continue
		}
		w.said[name] = why
		if why == noneAlive {
			unserved, longest = append(unserved, pm), max(longest, waited)
			continue
		}
		alive := fmt.Sprintf("the %d workers alive do not serve it", len(live))
		if len(live) == 1 {
			alive = "the worker alive does not serve it"
		}
		out = append(out, fmt.Sprintf("%s (queue %s) has waited %s for a worker: %s (%s; fallacylab --db … queue lists what each serves)",
			pm, name, waited, alive, SkipReasons))
	}
	if len(unserved) > 0 {
		out = append(out, fmt.Sprintf("no worker is alive to make this run's calls of %s, for %s now: start one with the provider's key (fallacylab --db … worker)", strings.Join(unserved, ", "), longest))
	}
	for name := range w.since { // queues the run no longer waits on
		if _, ok := waiting[name]; !ok {
			delete(w.since, name)
			delete(w.said, name)
		}
	}
	return out
}

// watchServed says, through Say, when no worker alive serves a queue the
// run waits on (UnservedAfter), and when one does again: a run queued
// where no worker can make its calls otherwise waits without a word. It
// looks every UnservedAfter/4 while jobs wait; a failed look is tried
// again at the next (the poll says nothing of the store either).
func (d *Dispatcher) watchServed(ctx context.Context) {
	after := d.UnservedAfter
	tick := time.NewTicker(max(after/4, 10*time.Millisecond))
	defer tick.Stop()
	var w servedWatch
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		waiting := d.waitingQueues()
		if len(waiting) == 0 {
			w = servedWatch{}
			continue
		}
		live, err := d.st.liveServes(ctx)
		if err != nil {
			continue
		}
		for _, line := range w.news(time.Now(), waiting, live, after) {
			d.Say(line)
		}
	}
}

// waitingQueues are the queues of the jobs the run waits for.
func (d *Dispatcher) waitingQueues() map[string]QueueInfo {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := map[string]QueueInfo{}
	for id := range d.waits {
		if name, ok := d.queueOf[id]; ok {
			out[name] = d.infos[name]
		}
	}
	return out
}
