package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/runner"
	"github.com/fallacylab/fallacylab/store"
)

// host is the bench.Host of one Task's own commands.
type host struct {
	g   *Global
	def *bench.Benchmark
}

// Open implements bench.Host.
func (h host) Open(_ context.Context, write bool) (bench.Session, error) {
	s, err := open(h.g, !write)
	if err != nil {
		return nil, err
	}
	return taskSession{s, h.def}, nil
}

// Settings implements bench.Host.
func (h host) Settings() bench.Settings {
	return bench.Settings{DryRun: h.g.DryRun, MaxUnusable: h.g.MaxUnusable, Stdout: h.g.Stdout, Stderr: h.g.Stderr}
}

// WriteReport implements bench.Host.
func (h host) WriteReport(rep *report.Report, format, out string) error {
	f, err := report.ParseFormat(format)
	if err != nil {
		return err
	}
	return writeReport(h.g, rep, f, out)
}

// Version implements bench.Host.
func (host) Version() string { return Version() }

// taskSession is the bench.Session of a Task's command.
type taskSession struct {
	*session
	def *bench.Benchmark
}

// Env implements bench.Session.
func (s taskSession) Env(dataDir string) bench.Env { return s.taskEnv(dataDir) }

// Run implements bench.Session.
func (s taskSession) Run(ctx context.Context, spec runner.Spec) (runner.Result, error) {
	spec.Benchmark = s.def.Name
	if spec.Args == nil {
		spec.Args = os.Args[1:]
	}
	return s.runner().Run(ctx, spec)
}

// Previous implements bench.Session.
func (s taskSession) Previous(ctx context.Context, spec runner.Spec) (store.Run, bool, error) {
	spec.Benchmark = s.def.Name
	return s.runner().Previous(ctx, spec)
}

// Pick implements bench.Session.
func (s taskSession) Pick(ctx context.Context, id int64, allowIncomplete bool, what string, has func(store.Run) bool, first string) (store.Run, error) {
	return pick(ctx, s.st, s.def, what, id, allowIncomplete, has, first)
}

// Annotate implements bench.Session.
func (s taskSession) Annotate(ctx context.Context, runID int64, rep *report.Report) error {
	r, ok, err := s.st.Run(ctx, runID)
	if err != nil {
		return err
	}
	if ok {
		addPartial(r, rep)
	}
	return addUnusable(ctx, s.st, runID, rep)
}

// Embedder implements bench.Session.
func (s taskSession) Embedder(ctx context.Context, specStr string) (func([]string) ([][]float64, error), error) {
	if specStr == "" {
		return nil, nil
	}
	spec, err := llm.ParseSpec(specStr)
	if err != nil {
		return nil, fmt.Errorf("--embedder: %w", err)
	}
	if s.g.DryRun {
		fmt.Fprintf(s.g.Stderr, "note: dry run: --embedder %s is not called; premises are paired lexically\n", specStr)
		return nil, nil
	}
	p, err := s.cfg.Provider(spec.Provider, nil)
	if err != nil {
		return nil, err
	}
	e, ok := p.(interface {
		Embed(ctx context.Context, model string, texts []string) ([][]float64, error)
	})
	if !ok {
		return nil, fmt.Errorf("--embedder %s: provider %s has no /v1/embeddings endpoint; use an OpenAI-compatible one", specStr, spec.Provider)
	}
	return func(texts []string) ([][]float64, error) { return e.Embed(ctx, spec.Model, texts) }, nil
}
