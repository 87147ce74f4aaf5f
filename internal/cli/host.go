package cli

import (
	"context"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/runner"
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
	return bench.Settings{DryRun: h.g.DryRun, MaxUnusable: h.g.MaxUnusable, Stdout: h.g.Stdout, Stderr: h.g.Stderr, StdoutTTY: h.g.StdoutTTY, Quiet: h.g.Quiet}
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

// DataDir implements bench.Host.
func (host) DataDir(flag string) string { return dataDir(flag) }

// taskSession is the bench.Session of a Task's command.
type taskSession struct {
	*session
	def *bench.Benchmark
}

// Env implements bench.Session.
func (s taskSession) Env(dataDir string) bench.Env { return s.taskEnv(dataDir) }

// Run implements bench.Session.
func (s taskSession) Run(ctx context.Context, spec runner.Spec) (runner.Result, error) {
	if spec.Benchmark == "" { // a Task may run under another name it registered
		spec.Benchmark = s.def.Name
	}
	if spec.Args == nil {
		spec.Args = s.g.commandLine()
	}
	return s.runner().Run(ctx, spec)
}
