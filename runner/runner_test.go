package runner_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/cachedir"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/lifecycle"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/llm/llmtest"
	"github.com/fallacylab/fallacylab/llm/openai"
	"github.com/fallacylab/fallacylab/runner"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/sqlite"
)

// TestMain keeps the checks of the tests' stores out of the user's cache.
func TestMain(m *testing.M) { os.Exit(cachedir.Run(m)) }

// fixture is a runner over a SQLite store and a scripted OpenAI server.
type fixture struct {
	st     *sqlite.Store
	srv    *llmtest.Server
	out    bytes.Buffer
	errOut bytes.Buffer
}

func newFixture(t *testing.T, opts llmtest.Options) *fixture {
	t.Helper()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f := &fixture{st: st, srv: llmtest.New(opts)}
	t.Cleanup(f.srv.Close)
	return f
}

// runner returns a runner over the fixture; dry makes it a dry run.
func (f *fixture) runner(dry bool) *runner.Runner {
	mk := func(runID int64) *engine.Engine {
		o := engine.Options{Store: f.st, RunID: runID, MaxAttempts: 1, Limits: func(string) engine.Limits { return engine.Limits{Concurrency: 4} }}
		if dry {
			o.Providers = func(name string) (llm.Provider, error) { return engine.Offline{Provider: name}, nil }
		} else {
			o.Providers = func(string) (llm.Provider, error) {
				return openai.New(openai.Config{BaseURL: f.srv.OpenAIURL(), APIKey: "k"}), nil
			}
		}
		return engine.New(o)
	}
	return runner.New(runner.Env{Store: f.st, Where: "store test", Engine: mk, DryRun: dry, Stdout: &f.out, Stderr: &f.errOut,
		Version: "test", Estimate: func(e engine.Estimate) { fmt.Fprintf(&f.out, "estimate: %d jobs\n", e.Jobs) }})
}

func jobs(ns string, prompts ...string) engine.Plan {
	js := make([]engine.Job, len(prompts))
	for i, p := range prompts {
		js[i] = engine.Job{ID: fmt.Sprint(ns, i), Namespace: ns, Spec: llm.Spec{Provider: "openai", Model: "m"}, Request: llm.UserPrompt("", p)}
	}
	return engine.SlicePlan(ns, js)
}

// twoPhases is a generation phase and a judging phase that plans one call
// per generation it answered, from what the first phase collected.
func twoPhases(recorded *[]string) []runner.Phase {
	var mu sync.Mutex
	var gens []string
	gen := runner.Phase{Name: "generation", Plan: jobs("gen", "a", "b", "c"),
		OnResult: func(r engine.Result) {
			if r.Err == nil {
				mu.Lock()
				gens = append(gens, r.Response.Text)
				mu.Unlock()
			}
		},
		Records: func(context.Context, int64) error {
			*recorded = append(*recorded, fmt.Sprintf("generation:%d", len(gens)))
			return nil
		}}
	judging := runner.Phase{Name: "judging", Usable: func(r engine.Result) bool { return !strings.HasSuffix(r.Response.Text, " c") },
		Planner: func(context.Context) (engine.Plan, error) {
			if len(gens) == 0 {
				return engine.Plan{}, errors.New("no generations to judge")
			}
			return jobs("judge", gens...), nil
		},
		Dry: func(context.Context) (engine.Plan, string, error) {
			return jobs("judge", "x", "y", "z"), "judging (projected):", nil
		},
		Records: func(context.Context, int64) error {
			*recorded = append(*recorded, "judging")
			return nil
		}}
	return []runner.Phase{gen, judging}
}

// TestRunsPhasesInOrder: the second phase plans from the first one's
// answers, each phase's records are written after it, the run finishes
// done, and its phase counts are stored.
func TestRunsPhasesInOrder(t *testing.T) {
	f := newFixture(t, llmtest.Options{})
	var recorded []string
	var doneWith error = errors.New("not called")
	max := -1.0 // no limit on unusable answers: one judging answer is
	rn := f.runner(false)
	rn.MaxUnusable = &max
	res, err := rn.Run(context.Background(), runner.Spec{Name: "t", Benchmark: "test", Options: map[string]int{"n": 1}, Phases: twoPhases(&recorded),
		Done: func(_ context.Context, _ int64, exit error) error { doneWith = exit; return exit }})
	if err != nil {
		t.Fatal(err)
	}
	if doneWith != nil || res.RunID == 0 || len(res.Summaries) != 2 || res.Summaries[1].Done != 3 {
		t.Fatalf("done with %v, result %+v", doneWith, res)
	}
	if strings.Join(recorded, ",") != "generation:3,judging" {
		t.Fatalf("records written: %v", recorded)
	}
	r, ok, err := f.st.Run(context.Background(), res.RunID)
	if err != nil || !ok || r.Status != store.RunDone {
		t.Fatalf("run %+v (%v)", r, err)
	}
	counts, err := f.st.Phases(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	unusable := 0
	for _, c := range counts {
		if c.Phase == "judging" {
			unusable += c.Unusable
		}
	}
	if len(counts) != 2 || unusable != 1 {
		t.Fatalf("phase counts %+v", counts)
	}
	if n := len(f.srv.Ledger()); n != 6 {
		t.Fatalf("%d requests, want 6", n)
	}
}

// TestDryRunCallsNothing: a dry run prices every phase (the projection of
// one planned from answers it does not have), starts no run and sends
// nothing.
func TestDryRunCallsNothing(t *testing.T) {
	f := newFixture(t, llmtest.Options{})
	var recorded []string
	total := 0
	res, err := f.runner(true).Run(context.Background(), runner.Spec{Name: "t", Benchmark: "test", Phases: twoPhases(&recorded),
		DryTotal: func(ests []engine.Estimate) { total = len(ests) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.RunID != 0 || len(recorded) != 0 || total != 2 || len(f.srv.Ledger()) != 0 {
		t.Fatalf("run %d, records %v, %d estimates, %d requests", res.RunID, recorded, total, len(f.srv.Ledger()))
	}
	if got := f.out.String(); got != "estimate: 3 jobs\njudging (projected):\nestimate: 3 jobs\n" {
		t.Fatalf("dry run printed %q", got)
	}
	runs, err := f.st.Runs(context.Background())
	if err != nil || len(runs) != 0 {
		t.Fatalf("%d runs in the store (%v)", len(runs), err)
	}
}

// TestUnusableStopsTheRunWithItsRecords: too many unusable answers end the
// run with exit 4 after the phase's records are written, and no later
// phase runs.
func TestUnusableStopsTheRunWithItsRecords(t *testing.T) {
	f := newFixture(t, llmtest.Options{})
	var recorded []string
	phases := twoPhases(&recorded)
	phases[0].Usable = func(engine.Result) bool { return false }
	_, err := f.runner(false).Run(context.Background(), runner.Spec{Name: "t", Benchmark: "test", Phases: phases})
	var le *lifecycle.ExitError
	if !errors.As(err, &le) || le.Code != lifecycle.ExitUnusable {
		t.Fatalf("err %v, want the unusable exit", err)
	}
	if strings.Join(recorded, ",") != "generation:3" || len(f.srv.Ledger()) != 3 {
		t.Fatalf("records %v, %d requests", recorded, len(f.srv.Ledger()))
	}
}

// TestFailedRecordsFailTheRun: a phase whose records cannot be written
// fails the run, and Done sees the exit.
func TestFailedRecordsFailTheRun(t *testing.T) {
	f := newFixture(t, llmtest.Options{})
	var recorded []string
	phases := twoPhases(&recorded)
	phases[0].Records = func(context.Context, int64) error { return errors.New("disk full") }
	var doneWith error
	res, err := f.runner(false).Run(context.Background(), runner.Spec{Name: "t", Benchmark: "test", Phases: phases,
		Done: func(_ context.Context, _ int64, exit error) error { doneWith = exit; return exit }})
	if err == nil || !strings.Contains(err.Error(), "disk full") || doneWith == nil {
		t.Fatalf("err %v, done with %v", err, doneWith)
	}
	r, _, _ := f.st.Run(context.Background(), res.RunID)
	if r.Status != store.RunFailed || len(f.srv.Ledger()) != 3 {
		t.Fatalf("run status %q, %d requests", r.Status, len(f.srv.Ledger()))
	}
}

// TestResumesTheSameCommand: a run that did not finish is resumed by the
// same spec (its answers come from the cache, none is paid twice); another
// plan is another run.
func TestResumesTheSameCommand(t *testing.T) {
	f := newFixture(t, llmtest.Options{})
	ctx := context.Background()
	one := func(plan engine.Plan) runner.Spec {
		return runner.Spec{Name: "t", Benchmark: "test", Phases: []runner.Phase{{Plan: plan}}}
	}
	first, err := f.runner(false).Run(ctx, runner.Spec{Name: "t", Benchmark: "test",
		Phases: []runner.Phase{{Plan: jobs("q", "a", "b")}}, Setup: func(context.Context, int64) error { return errors.New("stopped") }})
	if err == nil {
		t.Fatal("a failed setup was a success")
	}
	again, err := f.runner(false).Run(ctx, one(jobs("q", "a", "b")))
	if err != nil {
		t.Fatal(err)
	}
	other, err := f.runner(false).Run(ctx, one(jobs("q", "a", "c")))
	if err != nil {
		t.Fatal(err)
	}
	if again.RunID != first.RunID || other.RunID == first.RunID {
		t.Fatalf("runs %d, %d, %d: the same command resumes, another plan does not", first.RunID, again.RunID, other.RunID)
	}
	if !strings.Contains(f.errOut.String(), fmt.Sprintf("resuming run %d", first.RunID)) {
		t.Fatalf("stderr %q", f.errOut.String())
	}
	if n := len(f.srv.Ledger()); n != 3 { // a and b once, then c: the other run's a is from the cache
		t.Fatalf("%d requests, want 3", n)
	}
	prev, ok, err := f.runner(false).Previous(ctx, one(jobs("q", "a", "b")))
	if err != nil || !ok || prev.ID != first.RunID || prev.Status != store.RunDone {
		t.Fatalf("previous %+v %v %v", prev, ok, err)
	}
}

// TestPhaseInProgressIsStored: while a phase runs, its counts so far and
// the jobs it plans are in the store (the viewer, another process, shows
// them as the running run's progress); at its end, the final counts.
func TestPhaseInProgressIsStored(t *testing.T) {
	release := make(chan struct{})
	var calls atomic.Int32
	f := newFixture(t, llmtest.Options{Respond: func(c llmtest.Call) llmtest.Reply {
		if calls.Add(1) > 2 {
			<-release // all but the first two wait until the test has looked
		}
		return llmtest.Reply{Text: "ok"}
	}})
	defer func(d time.Duration) { runner.LiveEvery = d }(runner.LiveEvery)
	runner.LiveEvery = 10 * time.Millisecond
	prompts := make([]string, 8)
	for i := range prompts {
		prompts[i] = fmt.Sprint("p", i)
	}
	spec := runner.Spec{Name: "live", Benchmark: "test", Phases: []runner.Phase{{Name: "generation", Plan: jobs("live", prompts...)}}}
	done := make(chan error, 1)
	go func() { _, err := f.runner(false).Run(context.Background(), spec); done <- err }()
	var seen store.PhaseCount
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		runs, _ := f.st.Runs(context.Background())
		if len(runs) == 0 {
			continue
		}
		counts, err := f.st.Phases(context.Background(), runs[0].ID)
		if err == nil && len(counts) == 1 && counts[0].Answered == 2 {
			seen = counts[0]
			break
		}
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if seen.Phase != "generation" || seen.Model != "openai:m" || seen.Jobs != 8 || seen.Answered != 2 {
		t.Fatalf("while the phase ran the store held %+v, want generation of openai:m at 2 of 8", seen)
	}
	runs, _ := f.st.Runs(context.Background())
	counts, _ := f.st.Phases(context.Background(), runs[0].ID)
	if len(counts) != 1 || counts[0].Jobs != 8 || counts[0].Answered != 8 {
		t.Fatalf("final counts %+v", counts)
	}
}
