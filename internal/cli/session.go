package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/internal/config"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/store"
)

// session is what a command that calls models needs: config, store, engine options.
type session struct {
	g       *Global
	cfg     *config.Config
	st      *store.Store
	client  *http.Client // nil: the SDK default
	log     *slog.Logger // nil without --log
	logFile *os.File
}

// openSession loads the config and opens the store.
func openSession(g *Global) (*session, error) {
	cfg, err := config.Load(config.Locate(g.ConfigPath))
	if err != nil {
		return nil, err
	}
	st, err := store.Open(g.DBPath)
	if err != nil {
		return nil, err
	}
	s := &session{g: g, cfg: cfg, st: st}
	if g.LogPath != "" {
		f, err := os.OpenFile(g.LogPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			st.Close()
			return nil, fmt.Errorf("--log: %w", err)
		}
		s.logFile, s.log = f, slog.New(slog.NewJSONHandler(f, nil))
	}
	return s, nil
}

func (s *session) Close() error {
	if s.logFile != nil {
		s.logFile.Close()
	}
	return s.st.Close()
}

// resolver builds providers from the config.
func (s *session) resolver() engine.Resolver {
	return func(name string) (llm.Provider, error) { return s.cfg.Provider(name, s.client) }
}

// checkSpecs resolves every provider up front so a missing key or unknown
// provider fails the command before any work starts.
func (s *session) checkSpecs(specs []llm.Spec) error {
	seen := map[string]bool{}
	for _, sp := range specs {
		if seen[sp.Provider] {
			continue
		}
		seen[sp.Provider] = true
		if _, err := s.cfg.Provider(sp.Provider, nil); err != nil {
			var mk *config.MissingKeyError
			if s.g.DryRun && errors.As(err, &mk) {
				// A dry run calls nothing: estimate now, set the key before the real run.
				fmt.Fprintf(s.g.Stderr, "note: %s is not set; the dry run goes on, a real run needs it\n", mk.Env)
				continue
			}
			return err
		}
	}
	return nil
}

func (s *session) limits(provider string) engine.Limits {
	l := s.cfg.Limits[provider]
	out := engine.Limits{Concurrency: l.Concurrency, RPM: l.RPM, TPM: l.TPM}
	if s.g.Concurrency > 0 {
		out.Concurrency = s.g.Concurrency
	}
	if s.g.RPM > 0 {
		out.RPM = s.g.RPM
	}
	if s.g.TPM > 0 {
		out.TPM = s.g.TPM
	}
	return out
}

func (s *session) engine(runID int64) *engine.Engine {
	return engine.New(engine.Options{
		Store: s.st, Providers: s.resolver(), Limits: s.limits, Prices: s.cfg.PriceTable(),
		Budget: s.g.Budget, RunID: runID, CallTimeout: s.g.Timeout, MaxAttempts: s.g.MaxAttempts,
		BatchSize: s.g.BatchSize, OnBatch: s.batchNews, Log: s.log,
	})
}

// batchNews prints one line per batch event; batches run for minutes to
// hours, and the user should see that they move.
func (s *session) batchNews(ev engine.BatchEvent) {
	if s.g.Quiet {
		return
	}
	clear := ""
	if s.g.TTY {
		clear = "\r\033[K" // over the progress bar, which redraws itself
	}
	what := ev.Status
	switch ev.Status {
	case "ingested":
		what = fmt.Sprintf("ingested %d of %d results", ev.Results, ev.Requests)
	case "submitted":
	default:
		if ev.Waited > 0 {
			what += fmt.Sprintf(" (after %s)", ev.Waited.Round(time.Second))
		}
	}
	fmt.Fprintf(s.g.Stderr, "%s%s batch %s (%s, %d requests): %s\n", clear, time.Now().Format("15:04:05"), ev.ID, ev.Provider, ev.Requests, what)
}

// snapshot is the run's configuration as stored: flags and config, no secrets
// (the config holds only the names of key variables).
func (s *session) snapshot(args []string, extra any) json.RawMessage {
	doc := map[string]any{
		"args": args,
		"flags": map[string]any{"concurrency": s.g.Concurrency, "rpm": s.g.RPM, "tpm": s.g.TPM, "batch": s.g.Batch, "batch_size": s.g.BatchSize,
			"budget": s.g.Budget, "timeout": s.g.Timeout.String(), "max_attempts": s.g.MaxAttempts},
		"config":  s.cfg,
		"options": extra,
	}
	b, _ := json.Marshal(doc)
	return b
}

// runSpec describes a plan to execute.
type runSpec struct {
	Name      string
	Benchmark string
	Args      []string
	Options   any
	Plan      engine.Plan
	Specs     []llm.Spec
}

// execute runs a plan the way every command does: dry run or real run, live
// or batch, with a stored run record, progress output and a summary that
// lists failures. It returns an exitError when jobs failed.
func (s *session) execute(ctx context.Context, rs runSpec, onResult func(engine.Result)) (engine.Summary, error) {
	if err := s.preflight(rs.Specs); err != nil {
		return engine.Summary{}, err
	}
	if s.g.DryRun {
		return engine.Summary{}, s.dryRun(ctx, rs.Plan)
	}
	runID, err := s.startRun(ctx, rs)
	if err != nil {
		return engine.Summary{}, err
	}
	sum, err := s.phase(ctx, runID, rs.Plan, onResult)
	return sum, s.finish(ctx, runID, sum, err)
}

// preflight resolves every provider and, with a budget, checks every price.
func (s *session) preflight(specs []llm.Spec) error {
	if err := s.checkSpecs(specs); err != nil {
		return err
	}
	if s.g.Budget > 0 {
		prices := s.cfg.PriceTable()
		for _, sp := range specs {
			if _, ok := prices.Lookup(sp); !ok {
				return fmt.Errorf("--budget needs prices: the price of %s is unknown; add it under prices: in the config", sp)
			}
		}
	}
	return nil
}

func (s *session) dryRun(ctx context.Context, p engine.Plan) error {
	_, err := s.estimate(ctx, p)
	return err
}

// estimate prints and returns a plan's dry-run estimate.
func (s *session) estimate(ctx context.Context, p engine.Plan) (engine.Estimate, error) {
	est, err := s.engine(0).DryRun(ctx, p)
	if err != nil {
		return est, err
	}
	printEstimate(s.g.Stdout, est)
	return est, nil
}

func (s *session) startRun(ctx context.Context, rs runSpec) (int64, error) {
	return s.st.StartRun(ctx, store.Run{Name: rs.Name, Benchmark: rs.Benchmark, Config: s.snapshot(rs.Args, rs.Options), Version: Version()})
}

// phase runs one plan inside a run, live or batch, with progress and summary.
func (s *session) phase(ctx context.Context, runID int64, p engine.Plan, onResult func(engine.Result)) (engine.Summary, error) {
	eng := s.engine(runID)
	stopProgress := startProgress(s.g, eng)
	var sum engine.Summary
	var err error
	if s.g.Batch {
		sum, err = eng.RunBatch(ctx, p, onResult)
	} else {
		sum, err = eng.Run(ctx, p, onResult)
	}
	stopProgress()
	printSummary(s.g, sum)
	return sum, err
}

// finish records the run's end and turns the outcome into the exit error.
func (s *session) finish(ctx context.Context, runID int64, sum engine.Summary, err error) error {
	status := store.RunDone
	switch {
	case err != nil:
		status = store.RunFailed
	case sum.Interrupted:
		status = store.RunInterrupted
	case sum.Failed > 0:
		status = store.RunFailed
	}
	if ferr := s.st.FinishRun(context.WithoutCancel(ctx), runID, status); ferr != nil && err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	switch {
	case sum.Interrupted:
		return &exitError{code: 130, err: fmt.Errorf("interrupted after %d of %d jobs: run the same command again to resume", sum.Done, sum.Total)}
	case sum.Failed > 0:
		return &exitError{code: 2, err: fmt.Errorf("%d of %d jobs failed (listed above): fix the cause and run the same command again; answered jobs are cached", sum.Failed, sum.Done)}
	case sum.BudgetStopped:
		return &exitError{code: 3, err: fmt.Errorf("budget of $%.2f reached: %d jobs not sent; raise --budget and run again", s.g.Budget, sum.Skipped)}
	}
	return nil
}
