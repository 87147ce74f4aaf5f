// Package lifecycle is the one run lifecycle every benchmark goes through:
// start (or resume) a run → phases → finish. It owns run states (running,
// done, failed, interrupted, incomplete), notices runs whose process died,
// counts every phase's answers per model (answered, from cache, unusable,
// failed) and turns how a run ended into an exit code, so that no command can
// report an unfinished or unusable run as a success. The CLI and the viewer
// both use it.
package lifecycle

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/fallacylab/fallacylab/store"
)

// Store is what the lifecycle needs of a store (store.Lifecycle).
type Store = store.Lifecycle

// Spec describes a run to start.
type Spec struct {
	Name      string
	Benchmark string
	Config    json.RawMessage // snapshot of options and config, secrets excluded
	Version   string
	// Fingerprint identifies the command (see Fingerprint): a run with the
	// same fingerprint that did not finish is resumed instead of a new one
	// being started. Empty: always a new run.
	Fingerprint string
}

// Options tune the lifecycle. The zero value is the default.
type Options struct {
	// MaxUnusable is the share of a phase's answers that may be unusable
	// before the run fails with ExitUnusable: nil is the default
	// (DefaultMaxUnusable), 0 means none may be, negative means no limit.
	MaxUnusable *float64
	// HeartbeatEvery is how often a running run says it is alive (default 15s).
	HeartbeatEvery time.Duration
}

// DefaultMaxUnusable is the default --max-unusable.
const DefaultMaxUnusable = 0.2

// Exit codes of runs that did not succeed, beside 0 (success) and 1 (error).
const (
	ExitFailedJobs  = 2   // some jobs have no answer
	ExitBudget      = 3   // the budget stopped the run
	ExitUnusable    = 4   // too many answers could not be parsed
	ExitInterrupted = 130 // Ctrl-C or SIGTERM
)

// ExitError is how a run ended when that was not a success.
type ExitError struct {
	Code int
	Err  error
	// Reason is the short form stored with the run ("" : the error's
	// first line).
	Reason string
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// Run is a run in progress.
type Run struct {
	ID int64
	// Resumed is set when the run continues an earlier one that did not
	// finish; Previous is that run's state then.
	Resumed  bool
	Previous string

	st     Store
	opt    Options
	mu     sync.Mutex
	phases []*Phase
	stop   chan struct{}
	done   chan struct{}
	ended  bool
}

// Fingerprint hashes what identifies a command: the benchmark and any
// JSON-encodable parts (its options, a digest of its plan).
func Fingerprint(benchmark string, parts ...any) string {
	h := sha256.New()
	h.Write([]byte(benchmark))
	for _, p := range parts {
		b, err := json.Marshal(p)
		if err != nil {
			b = []byte(fmt.Sprintf("%#v", p))
		}
		h.Write([]byte{0})
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ErrStillRunning is returned by Start when the same command is running in a
// live process.
var ErrStillRunning = errors.New("still running")

// Start starts a run, or resumes the newest run with the same fingerprint if
// that one did not finish and its process is gone. It starts a heartbeat that
// Finish stops.
func Start(ctx context.Context, st Store, spec Spec, opt Options) (*Run, error) {
	if opt.MaxUnusable == nil {
		d := DefaultMaxUnusable
		opt.MaxUnusable = &d
	}
	if opt.HeartbeatEvery <= 0 {
		opt.HeartbeatEvery = 15 * time.Second
	}
	pid, host := os.Getpid(), hostname()
	r := &Run{st: st, opt: opt, stop: make(chan struct{}), done: make(chan struct{})}
	if spec.Fingerprint != "" {
		prev, ok, err := st.RunByFingerprint(ctx, spec.Fingerprint)
		if err != nil {
			return nil, err
		}
		if ok && prev.Status != store.RunDone {
			state := State(prev, time.Now())
			if state == store.RunRunning {
				return nil, fmt.Errorf("run %d is the same command and is %w (process %d on %s): wait for it to end, or stop it first",
					prev.ID, ErrStillRunning, prev.PID, prev.Host)
			}
			if err := st.ResumeRun(ctx, prev.ID, pid, host); err != nil {
				return nil, err
			}
			r.ID, r.Resumed, r.Previous = prev.ID, true, state
		}
	}
	if r.ID == 0 {
		id, err := st.StartRun(ctx, store.Run{Name: spec.Name, Benchmark: spec.Benchmark, Config: spec.Config, Version: spec.Version,
			Fingerprint: spec.Fingerprint, PID: pid, Host: host})
		if err != nil {
			return nil, err
		}
		r.ID = id
	}
	go r.heartbeat()
	return r, nil
}

func (r *Run) heartbeat() {
	defer close(r.done)
	t := time.NewTicker(r.opt.HeartbeatEvery)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
			r.st.Heartbeat(context.Background(), r.ID) // best effort: a missed beat only makes the run look stale sooner
		}
	}
}

// Phases returns the phases run so far.
func (r *Run) Phases() []*Phase {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*Phase(nil), r.phases...)
}

// Finish ends the run. err is the command's own error (nil when it went
// through); the phases decide the rest. It returns the error the command
// should exit with: err itself, an *ExitError, or nil for a run that is done.
func (r *Run) Finish(ctx context.Context, err error) error {
	r.mu.Lock()
	if r.ended {
		r.mu.Unlock()
		return err
	}
	r.ended = true
	r.mu.Unlock()
	close(r.stop)
	<-r.done
	status, reason, exit := r.outcome(err)
	if ferr := r.st.EndRun(context.WithoutCancel(ctx), r.ID, status, reason); ferr != nil {
		if exit == nil {
			return fmt.Errorf("run %d went through, but recording its end failed: %w", r.ID, ferr)
		}
		return errors.Join(exit, ferr)
	}
	return exit
}

// outcome decides the run's status, the reason stored with it and the exit error.
func (r *Run) outcome(err error) (status, reason string, exit error) {
	var ee *ExitError
	switch {
	case errors.As(err, &ee) && ee.Code == ExitInterrupted:
		return store.RunInterrupted, ee.Err.Error(), err
	case errors.Is(err, context.Canceled):
		return store.RunInterrupted, "interrupted", &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("run %d interrupted: run the same command again to resume", r.ID)}
	case errors.As(err, &ee) && ee.Code == ExitUnusable:
		reason := ee.Reason
		if reason == "" {
			reason = firstLine(ee.Err.Error())
		}
		return store.RunFailed, reason, err
	case err != nil:
		return store.RunFailed, firstLine(err.Error()), err
	}
	var done, total, failed, skipped int
	interrupted, budget := false, false
	for _, p := range r.Phases() {
		s := p.summary
		done, total = done+s.Done, total+s.Total
		failed += s.Failed
		skipped += s.Skipped
		interrupted = interrupted || s.Interrupted
		budget = budget || s.BudgetStopped
	}
	switch {
	case interrupted:
		msg := fmt.Sprintf("interrupted after %d of %d jobs", done, total)
		return store.RunInterrupted, msg, &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("run %d %s: run the same command again to resume", r.ID, msg)}
	case failed > 0:
		msg := fmt.Sprintf("%d of %d jobs failed", failed, total)
		return store.RunIncomplete, msg, &ExitError{Code: ExitFailedJobs, Err: fmt.Errorf("run %d: %s (listed above): fix the cause and run the same command again; answered jobs are cached", r.ID, msg)}
	case budget:
		msg := fmt.Sprintf("budget reached: %d jobs not sent", skipped)
		if skipped == 1 {
			msg = "budget reached: 1 job not sent"
		}
		return store.RunIncomplete, msg, &ExitError{Code: ExitBudget, Err: fmt.Errorf("run %d: %s; raise --budget and run the same command again", r.ID, msg)}
	}
	return store.RunDone, "", nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "unknown"
	}
	return h
}
