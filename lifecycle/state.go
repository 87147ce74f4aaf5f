package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fallacylab/fallacylab/procstate"
	"github.com/fallacylab/fallacylab/store"
)

// StaleAfter is how long a running run may go without a heartbeat before it
// is taken as interrupted (its process is gone or cannot reach the store).
const StaleAfter = 90 * time.Second

// State is a run's effective state: the stored status, except that a run
// stored as running whose process is gone (on this host) or whose heartbeat
// is stale is interrupted.
func State(r store.Run, now time.Time) string {
	if r.Status != store.RunRunning {
		return r.Status
	}
	if r.PID > 0 && r.Host == hostname() && !alive(r.PID) {
		return store.RunInterrupted
	}
	if !r.Heartbeat.IsZero() && now.Sub(r.Heartbeat) > StaleAfter {
		return store.RunInterrupted
	}
	if r.Heartbeat.IsZero() && r.PID == 0 && now.Sub(r.Started) > StaleAfter {
		// Made by a fallacylab without heartbeats and still "running":
		// nothing owns it any more.
		return store.RunInterrupted
	}
	return store.RunRunning
}

// Describe is a run's state for people: the state, and the reason or the
// owner where there is one.
func Describe(r store.Run, now time.Time) string {
	s := State(r, now)
	switch {
	case s == store.RunInterrupted && r.Status == store.RunRunning:
		return s + " (its process is gone)"
	case s == store.RunRunning && r.PID > 0:
		return fmt.Sprintf("%s (process %d on %s)", s, r.PID, r.Host)
	case r.Reason != "" && s != store.RunDone:
		return s + ": " + r.Reason
	}
	return s
}

// alive reports whether a process with that id exists on this host.
func alive(pid int) bool { return procstate.Alive(pid) }

// ErrNotDone is wrapped by Reportable's errors.
var ErrNotDone = errors.New("did not finish")

// Reportable checks that a run may be reported: done, or allowed otherwise.
// The error names the run and says what to do.
func Reportable(r store.Run, allowIncomplete bool, now time.Time) error {
	s := State(r, now)
	if s == store.RunDone || allowIncomplete {
		return nil
	}
	return &NotDoneError{Run: r, Running: s == store.RunRunning, What: Describe(r, now)}
}

// NotDoneError is Reportable's error: a run that did not finish, and what
// to do about it. Command writes the command line it suggests (nil:
// "fallacylab " + args); a command on a store the user named by --db sets
// it, so that "delete it with `fallacylab runs rm N`", pasted, deletes
// this run and not run N of ./fallacylab.db.
type NotDoneError struct {
	Run     store.Run
	Running bool   // it is still running
	What    string // its state, described (Describe)
	// Newest names the benchmark (Pick's what) when the run is the
	// newest of it, picked for want of --run.
	Newest  string
	Command func(args string) string
}

// Error says what happened to the run and what to do. It is written when
// it is read, with the Command set meanwhile.
func (e *NotDoneError) Error() string {
	if e.Newest != "" {
		return fmt.Sprintf("the newest %s run: %s; or name an earlier one with --run N", e.Newest, e.of())
	}
	return e.of()
}

// of is the error of the run alone.
func (e *NotDoneError) of() string {
	r := e.Run
	if e.Running {
		return fmt.Sprintf("run %d (%s) is %s: its records are not complete yet; wait for it, or report what is there with --run %d --allow-incomplete: %v",
			r.ID, r.Name, e.What, r.ID, ErrNotDone)
	}
	cmd := e.Command
	if cmd == nil {
		cmd = func(args string) string { return "fallacylab " + args }
	}
	return fmt.Sprintf("run %d (%s) %v (%s). Run the same command again to resume it, report what is there with --run %d --allow-incomplete, or delete it with `%s`",
		r.ID, r.Name, ErrNotDone, e.What, r.ID, cmd(fmt.Sprintf("runs rm %d", r.ID)))
}

// Unwrap is ErrNotDone.
func (e *NotDoneError) Unwrap() error { return ErrNotDone }

// Lister is what Pick needs of a store.
type Lister interface {
	Runs(ctx context.Context) ([]store.Run, error)
	Run(ctx context.Context, id int64) (store.Run, bool, error)
}

// Pick returns the run a report reads: run id, or (id 0) the newest run of
// the benchmark for which has is true (nil: any). A run that did not finish
// is refused (see Reportable) unless allowIncomplete; so is the newest run
// when it did not finish, rather than silently reporting an older one.
// what names the benchmark in messages ("DeflectBench").
func Pick(ctx context.Context, st Lister, benchmark, what string, id int64, allowIncomplete bool, has func(store.Run) bool) (store.Run, error) {
	now := time.Now()
	if id != 0 {
		r, ok, err := st.Run(ctx, id)
		if err != nil {
			return r, err
		}
		if !ok {
			return r, fmt.Errorf("no run %d in the store (fallacylab runs lists them)", id)
		}
		if r.Benchmark != benchmark {
			return r, fmt.Errorf("run %d is a %s run, not %s", id, r.Benchmark, what)
		}
		return r, Reportable(r, allowIncomplete, now)
	}
	runs, err := st.Runs(ctx)
	if err != nil {
		return store.Run{}, err
	}
	for _, r := range runs {
		if r.Benchmark != benchmark || (has != nil && !has(r)) {
			continue
		}
		if err := Reportable(r, allowIncomplete, now); err != nil {
			nd := err.(*NotDoneError) // the only error Reportable returns
			nd.Newest = what
			return r, nd
		}
		return r, nil
	}
	return store.Run{}, fmt.Errorf("no %s run in the store: %w", what, ErrNoRun)
}

// ErrNoRun is wrapped by Pick when the store has no run of the benchmark.
var ErrNoRun = errors.New("no run")
