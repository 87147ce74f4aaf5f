// Package runner owns the one order every model-calling command runs in:
// preflight → dry run (priced, never networked) → start or resume → phases
// (each planned when it begins, so a phase may plan from the answers of the
// phases before it) → records written → finish → report. A command says
// what its run is (a Spec: its phases, plans, parsers, records and report);
// it never writes that order itself.
//
// The runner is given what it needs from the command line — the store, how
// to make an engine, where to print — as an Env (gh's Factory): it knows no
// flags, no config file and no benchmark.
package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/lifecycle"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/store"
)

// Env is what the runner is given by the command that uses it.
type Env struct {
	// Store keeps the run, its phase counts and (through the engine) its
	// calls.
	Store lifecycle.Store
	// Where names the store for people ("store runs.db (--db)").
	Where string
	// Engine makes the engine a phase's calls go through (runID 0: a dry
	// run's, which cannot reach the network).
	Engine func(runID int64) *engine.Engine
	// Preflight checks every model's provider (a key, a price for a
	// budget) before anything starts.
	Preflight func(specs []llm.Spec) error
	// DryRun prices the plans and calls nothing; Batch sends the calls
	// through the providers' batch APIs; Quiet says less.
	DryRun, Batch, Quiet bool
	// Stdout and Stderr are where the runner prints.
	Stdout, Stderr io.Writer
	// Snapshot is the run's configuration as stored (no secrets).
	Snapshot func(args []string, options any) json.RawMessage
	// Version is the build that makes the run.
	Version string
	// MaxUnusable is the share of a phase's answers that may be unusable
	// (lifecycle.Options).
	MaxUnusable *float64
	// Started is called once the run is started or resumed, before its
	// first phase (the run's budget); its error fails the run.
	Started func(ctx context.Context, run *lifecycle.Run) error
	// Progress shows a phase's progress; it returns what stops it.
	Progress func(e *engine.Engine) (stop func())
	// Summarize prints a phase's summary and its counts per model.
	Summarize func(sum engine.Summary, counts []store.PhaseCount)
	// Estimate prints a dry run's estimate of a plan.
	Estimate func(est engine.Estimate)
	// SkipDone: a run whose command already made a run that is done is
	// not run again (a sweep run a second time resumes only what did not
	// finish); Ran is told the run's id once it started, resumed or was
	// found done.
	SkipDone bool
	Ran      func(runID int64)
	// Remove deletes a run that ended on bad input it had read part of
	// (Spec.Discard), so that no half a result is left.
	Remove func(ctx context.Context, runID int64) error
}

// Spec is a run: what identifies it, the models it calls and its phases.
type Spec struct {
	// Name and Benchmark are stored with the run.
	Name      string
	Benchmark string
	// Args are the command line, Options the command's options, both
	// stored with the run.
	Args    []string
	Options any
	// Identity are the parts that identify the command for resuming,
	// beside the benchmark and name (default: Options). Leave out what does
	// not change the run's records, such as the report format.
	Identity []any
	// Specs are every model the run calls, checked before it starts.
	Specs []llm.Spec
	// Phases run in order; a phase that fails or is interrupted ends the
	// run.
	Phases []Phase
	// Setup runs inside the started run before its first phase: records
	// the run builds on (the generations a judge-only run judges).
	Setup func(ctx context.Context, runID int64) error
	// Discard says whether the error the run ended with means the run is
	// removed rather than kept failed: bad input an import had read part
	// of (nil: every run is kept).
	Discard func(err error) bool
	// Complete runs inside the run after its last phase succeeded: what
	// the run makes of all its answers (the files it writes); its error
	// fails the run.
	Complete func(ctx context.Context, runID int64) error
	// DryTotal follows a dry run's estimates (the total of a run of many
	// phases).
	DryTotal func(ests []engine.Estimate)
	// Done runs after the run finished, with how it ended (nil: a
	// success; else the exit error); what it returns is the command's
	// error — the report of a run that ended with failed jobs is still
	// shown, then the run's exit error returned. Not called when the run
	// could not be started.
	Done func(ctx context.Context, runID int64, exit error) error
}

// Phase is one plan of a run.
type Phase struct {
	// Name is the phase's name ("" : calls); Hint is the likely cause when
	// many of its answers are unusable; Usable says whether an answer can
	// be parsed into the benchmark's record (nil: every answer is usable).
	// A benchmark declares them with its phases (bench.Phase).
	Name   string
	Hint   string
	Usable func(engine.Result) bool
	// Plan is the phase's plan when it is known before the run starts.
	Plan engine.Plan
	// Planner makes the plan when the phase begins, from what the phases
	// before it collected (judges over generations); it wins over Plan.
	Planner func(ctx context.Context) (engine.Plan, error)
	// Dry is what a dry run prices for the phase, with a heading printed
	// before it (an empty plan: the heading only) — a phase planned from
	// answers a dry run does not have prices a projection. Nil: Plan.
	Dry func(ctx context.Context) (plan engine.Plan, heading string, err error)
	// Announce is printed on stderr before the phase runs.
	Announce func(runID int64, plan engine.Plan) string
	// OnResult sees every result of the phase.
	OnResult func(engine.Result)
	// Records stores the records made of the phase's answers with the
	// run: after the phase when it succeeded, when its answers were too
	// often unusable (they are records too) and when it was interrupted
	// (the run keeps what it answered). Its error — a failed write, or
	// answers the command refuses (--strict) — fails the run, so a run that
	// is done always has its records.
	Records func(ctx context.Context, runID int64) error
	// Do runs a phase whose calls the runner does not plan (a detector
	// that may or may not call a model): it runs engine phases of its own
	// through the Active run, or counts answers on lifecycle phases.
	Do func(ctx context.Context, a *Active) error
}

// Active is a run in progress, for phases that run their own plans: the
// narrow part of the run a Task sees (its id, a phase it counts, the run's
// engine), never the lifecycle that starts, beats and finishes it.
type Active struct {
	// ID is the run's id in the store.
	ID  int64
	run *lifecycle.Run
	rn  *Runner
}

// Counter is a phase a Task counts its own answers on — a detector that
// calls no model, or calls made in rounds (Active.Calls) — so that the
// unusable-answer limit weighs them and runs show counts them: the narrow
// part of the run's lifecycle a Task sees.
type Counter interface {
	// Count counts one answer of model: usable or not (raw: what it said,
	// the example kept of an unusable one).
	Count(model string, usable bool, raw string)
	// Observe counts an engine result as Count does.
	Observe(res engine.Result, usable bool)
	// End ends the phase with its calls' summary; its error is the
	// unusable-answer limit's.
	End(ctx context.Context, sum engine.Summary) error
}

// Phase opens a phase the Task counts itself.
func (a *Active) Phase(name, hint string) Counter { return a.run.Phase(name, hint) }

// Engine runs one engine phase inside the run.
func (a *Active) Engine(ctx context.Context, p Phase) (engine.Summary, error) {
	return a.rn.phase(ctx, a.run, p, p.Plan)
}

// Calls runs a plan through the run's engine without opening a phase: a
// phase that makes its calls in rounds, each planned from the answers
// before it (a pairwise ranking), counts every round's results on the one
// lifecycle phase it opened (Active.Phase) and ends it, so that phase's
// unusable-answer limit weighs all its answers, not each round's few.
func (a *Active) Calls(ctx context.Context, plan engine.Plan, cb func(engine.Result)) (engine.Summary, error) {
	eng := a.rn.Engine(a.ID)
	if a.rn.Progress != nil {
		defer a.rn.Progress(eng)()
	}
	return eng.Run(ctx, plan, cb)
}

// Runner runs Specs in one Env.
type Runner struct{ Env }

// New returns a runner over env.
func New(env Env) *Runner { return &Runner{env} }

// Result is what a run did.
type Result struct {
	// RunID is the run (0: a dry run, or none started).
	RunID int64
	// Summaries are the engine summaries of the phases that ran.
	Summaries []engine.Summary
}

// Last is the summary of the last phase that ran.
func (r Result) Last() engine.Summary {
	if len(r.Summaries) == 0 {
		return engine.Summary{}
	}
	return r.Summaries[len(r.Summaries)-1]
}

// Run runs spec in the one order.
func (rn *Runner) Run(ctx context.Context, spec Spec) (Result, error) {
	if rn.Preflight != nil {
		if err := rn.Preflight(spec.Specs); err != nil {
			return Result{}, err
		}
	}
	if rn.DryRun {
		return Result{}, rn.dryRun(ctx, spec)
	}
	if rn.SkipDone {
		prev, ok, err := rn.Previous(ctx, spec)
		if err != nil {
			return Result{}, err
		}
		if ok && prev.Status == store.RunDone {
			fmt.Fprintf(rn.Stderr, "run %d, made by the same command, is done: not run again\n", prev.ID)
			if rn.Ran != nil {
				rn.Ran(prev.ID)
			}
			return Result{RunID: prev.ID}, nil
		}
	}
	run, err := rn.start(ctx, spec)
	if err != nil {
		return Result{}, err
	}
	if rn.Ran != nil {
		rn.Ran(run.ID)
	}
	res := Result{RunID: run.ID}
	err = rn.phases(ctx, run, spec, &res)
	exit := run.Finish(ctx, err)
	if err != nil && spec.Discard != nil && spec.Discard(err) && rn.Remove != nil {
		// Bad input: nothing of the run is left.
		if derr := rn.Remove(context.WithoutCancel(ctx), run.ID); derr != nil {
			return Result{}, fmt.Errorf("%w (and the run %d it started could not be removed: %v)", err, run.ID, derr)
		}
		return Result{}, err
	}
	if spec.Done != nil {
		return res, spec.Done(ctx, run.ID, exit)
	}
	return res, exit
}

// phases runs the setup and the phases in order, until one fails or is
// interrupted.
func (rn *Runner) phases(ctx context.Context, run *lifecycle.Run, spec Spec, res *Result) error {
	if spec.Setup != nil {
		if err := spec.Setup(ctx, run.ID); err != nil {
			return err
		}
	}
	for _, p := range spec.Phases {
		if p.Do != nil {
			if err := p.Do(ctx, &Active{ID: run.ID, run: run, rn: rn}); err != nil {
				return err
			}
			continue
		}
		plan := p.Plan
		if p.Planner != nil {
			var err error
			if plan, err = p.Planner(ctx); err != nil {
				return err
			}
		}
		if p.Announce != nil {
			fmt.Fprintln(rn.Stderr, p.Announce(run.ID, plan))
		}
		sum, err := rn.phase(ctx, run, p, plan)
		res.Summaries = append(res.Summaries, sum)
		if p.Records != nil && (err == nil || IsUnusable(err) || sum.Interrupted) {
			// Unusable answers are records too (the report counts them), and
			// an interrupted run keeps what it answered (--allow-incomplete).
			if rerr := p.Records(context.WithoutCancel(ctx), run.ID); rerr != nil && (err == nil || IsUnusable(err)) {
				err = rerr
			}
		}
		if err != nil || sum.Interrupted {
			return err
		}
		if sum.BudgetStopped {
			// The budget is spent: the phases after this one would be
			// planned from answers that were never paid for. The run
			// ends as the budget left it (exit 3: raise --budget and run
			// the same command again).
			return nil
		}
	}
	if spec.Complete != nil {
		return spec.Complete(ctx, run.ID)
	}
	return nil
}

// dryRun prices every phase's plan; nothing is started or called.
func (rn *Runner) dryRun(ctx context.Context, spec Spec) error {
	var ests []engine.Estimate
	for _, p := range spec.Phases {
		plan, heading := p.Plan, ""
		if p.Dry != nil {
			var err error
			if plan, heading, err = p.Dry(ctx); err != nil {
				return err
			}
		}
		if heading != "" {
			fmt.Fprintln(rn.Stdout, heading)
		}
		if plan.Jobs == nil {
			continue
		}
		eng := rn.Engine(0)
		est, err := eng.DryRun(ctx, plan)
		if err != nil {
			return err
		}
		if rn.Batch {
			est = est.Batched(eng.BatchDiscount()) // the run would go through the batch APIs
		}
		if rn.Estimate != nil {
			rn.Estimate(est)
		}
		ests = append(ests, est)
	}
	if spec.DryTotal != nil {
		spec.DryTotal(ests)
	}
	return nil
}

// Fingerprint identifies the command a run is made by, for resuming: its
// benchmark, name and identity, and the digest of its plan when it has one
// phase planned up front — a run resumes only the run whose plan it is (an
// ask with another model or prompt is another run, though its options are
// equal). A run of many phases names its first plan in its Identity.
func Fingerprint(spec Spec) string {
	id := spec.Identity
	if id == nil {
		id = []any{spec.Options}
	}
	if len(spec.Phases) == 1 && spec.Phases[0].Plan.Jobs != nil {
		id = append(id, "plan", engine.Digest(spec.Phases[0].Plan))
	}
	return lifecycle.Fingerprint(spec.Benchmark, append([]any{spec.Name}, id...)...)
}

// Previous is the newest run made by the same command as spec (ok false:
// none).
func (rn *Runner) Previous(ctx context.Context, spec Spec) (store.Run, bool, error) {
	return rn.Store.RunByFingerprint(ctx, Fingerprint(spec))
}

// start starts the run of the lifecycle, or resumes the same command's
// unfinished run, and says which.
func (rn *Runner) start(ctx context.Context, spec Spec) (*lifecycle.Run, error) {
	if rn.DryRun {
		return nil, errors.New("internal error: a dry run must not start a run")
	}
	var cfg json.RawMessage
	if rn.Snapshot != nil {
		cfg = rn.Snapshot(spec.Args, spec.Options)
	}
	run, err := lifecycle.Start(ctx, rn.Store, lifecycle.Spec{Name: spec.Name, Benchmark: spec.Benchmark, Config: cfg,
		Version: rn.Version, Fingerprint: Fingerprint(spec)},
		lifecycle.Options{MaxUnusable: rn.MaxUnusable})
	if err != nil {
		return nil, err
	}
	if !rn.Quiet || run.Resumed {
		fmt.Fprintf(rn.Stderr, "run %d in %s\n", run.ID, rn.Where)
	}
	if rn.Started != nil {
		if err := rn.Started(ctx, run); err != nil {
			run.Finish(ctx, err)
			return nil, err
		}
	}
	if run.Resumed {
		fmt.Fprintf(rn.Stderr, "resuming run %d (%s): answers already made come from the cache\n", run.ID, run.Previous)
	}
	return run, nil
}

// phase runs one plan inside a run, live or batch, with progress and a
// summary, and counts its answers per model.
func (rn *Runner) phase(ctx context.Context, run *lifecycle.Run, p Phase, plan engine.Plan) (engine.Summary, error) {
	name := p.Name
	if name == "" {
		name = "calls"
	}
	ph := run.Phase(name, p.Hint)
	eng := rn.Engine(run.ID)
	stop := func() {}
	if rn.Progress != nil {
		stop = rn.Progress(eng)
	}
	stopLive := liveProgress(ctx, ph, plan)
	cb := func(r engine.Result) {
		usable := true
		if p.Usable != nil && r.Err == nil && r.Response != nil {
			usable = p.Usable(r)
		}
		ph.Observe(r, usable)
		if p.OnResult != nil {
			p.OnResult(r)
		}
	}
	var sum engine.Summary
	var err error
	if rn.Batch {
		sum, err = eng.RunBatch(ctx, plan, cb)
	} else {
		sum, err = eng.Run(ctx, plan, cb)
	}
	stopLive()
	stop()
	if rn.Summarize != nil {
		rn.Summarize(sum, ph.Counts())
	}
	if eerr := ph.End(ctx, sum); err == nil {
		err = eerr
	}
	return sum, err
}

// LiveEvery is how often a phase in progress stores its counts so far, for
// the viewer's page of a running run (another process).
var LiveEvery = 2 * time.Second

// liveProgress stores ph's counts every LiveEvery until the returned stop
// is called, its jobs per model counted from the plan first (a plan is a
// sequence that can be walked again: the engine walks it after).
func liveProgress(ctx context.Context, ph *lifecycle.Phase, plan engine.Plan) (stop func()) {
	if plan.Jobs == nil {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		perModel := map[string]int{}
		for j := range plan.Jobs {
			perModel[j.Spec.String()]++
			select {
			case <-done:
				return
			default:
			}
		}
		ph.Planned(perModel)
		t := time.NewTicker(LiveEvery)
		defer t.Stop()
		for {
			// A failed write only leaves the viewer's progress behind: the
			// phase's own End stores the counts that matter.
			_ = ph.Flush(ctx)
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}

// IsUnusable reports whether err is the lifecycle's too-many-unusable exit.
func IsUnusable(err error) bool {
	var le *lifecycle.ExitError
	return errors.As(err, &le) && le.Code == lifecycle.ExitUnusable
}

// CheckUnusable is the unusable-answer limit on answers counted outside a
// run (a file of raw answers a Task scores): the error when more than max
// of them could not be used.
func CheckUnusable(phase, hint string, counts []store.PhaseCount, max float64) error {
	return lifecycle.CheckUnusable(phase, hint, counts, max)
}

// ErrNoRun is wrapped by Pick when the store has no run of the benchmark.
var ErrNoRun = lifecycle.ErrNoRun

// NotDoneError is Pick's error for a run that did not finish
// (lifecycle.NotDoneError).
type NotDoneError = lifecycle.NotDoneError

// Pick is the stored run a run builds on (or a report reads): id, or (id
// 0) the newest run of the benchmark that has is true for; what names
// such a run in errors. A run that did not finish is refused unless
// allowIncomplete.
func Pick(ctx context.Context, st lifecycle.Lister, benchmark, what string, id int64, allowIncomplete bool, has func(store.Run) bool) (store.Run, error) {
	return lifecycle.Pick(ctx, st, benchmark, what, id, allowIncomplete, has)
}
