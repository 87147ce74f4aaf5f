package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/runner"
	"github.com/fallacylab/fallacylab/study"
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

// CreateStudy implements bench.Session.
func (s taskSession) CreateStudy(ctx context.Context, req bench.StudyRequest) (bench.StudyMade, error) {
	sp := studySpec{runID: req.RunID, kind: req.Kind, fields: req.Fields, stratify: req.Stratify, corpus: req.Corpus, annotators: req.Annotators,
		o: study.Options{N: req.N, PerStratum: req.PerStratum, Overlap: req.Overlap, Decoys: req.Decoys, Seed: req.Seed, Name: req.Name}}
	st, err := createStudy(ctx, s.session, sp)
	if err != nil {
		return bench.StudyMade{}, err
	}
	return bench.StudyMade{ID: st.ID, RunID: st.RunID, Items: len(st.Items)}, nil
}

// WriteStudySheet implements bench.Session.
func (s taskSession) WriteStudySheet(ctx context.Context, id int64, w io.Writer) error {
	st, ok, err := s.st.Study(ctx, id)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("no study %d in %s", id, s.st.Path())
	}
	anns, err := s.st.Annotations(ctx, st.ID)
	if err != nil {
		return err
	}
	return writeSheet(st, anns, st.Annotators, w)
}
