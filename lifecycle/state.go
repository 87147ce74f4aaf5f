package lifecycle

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

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
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

// ErrNotDone is wrapped by Reportable's errors.
var ErrNotDone = errors.New("did not finish")

// Reportable checks that a run may be reported: done, or allowed otherwise.
// The error names the run and says what to do.
func Reportable(r store.Run, allowIncomplete bool, now time.Time) error {
	s := State(r, now)
	if s == store.RunDone || allowIncomplete {
		return nil
	}
	what := Describe(r, now)
	if s == store.RunRunning {
		return fmt.Errorf("run %d (%s) is %s: its records are not complete yet; wait for it, or report what is there with --run %d --allow-incomplete: %w",
			r.ID, r.Name, what, r.ID, ErrNotDone)
	}
	return fmt.Errorf("run %d (%s) %w: it is %s. Run the same command again to resume it, report what is there with --run %d --allow-incomplete, or delete it with `fallacylab runs rm %d`",
		r.ID, r.Name, ErrNotDone, what, r.ID, r.ID)
}
