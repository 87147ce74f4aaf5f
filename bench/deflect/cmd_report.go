package deflect

import (
	"context"
	"fmt"
	"io"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/judge"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store"
	"github.com/spf13/pflag"
)

type reportOptions struct {
	Generations, Evals string
	Consensus          string
	Compat             string
	Seed               uint64
	Resamples          int
	MinClusters        int
}

// defaultReportOptions are `deflect report`'s defaults.
func defaultReportOptions() reportOptions {
	return reportOptions{Consensus: "any", Seed: 20260101, Resamples: 1000, MinClusters: DefaultMinClusters}
}

// DefaultAnalysis is the analysis `deflect report` makes with its
// defaults: the one a finished run's report is kept under, and the
// viewer's.
func DefaultAnalysis() Options {
	// The defaults always parse; the report-cache tests compare this
	// analysis with `deflect report`'s own.
	opts, _ := defaultReportOptions().analysis()
	return opts
}

// analysis is the Analyze options the report's flags ask for.
func (o reportOptions) analysis() (Options, error) {
	if o.Compat != "" {
		if o.Compat != "deflectbench-code" {
			return Options{}, fmt.Errorf("--compat %q: the only mode is deflectbench-code", o.Compat)
		}
		o.Consensus = o.Compat
	}
	mode, err := judge.ParseMode(o.Consensus)
	if err != nil {
		return Options{}, err
	}
	if o.MinClusters == 0 {
		o.MinClusters = -1 // 0 means no minimum here, as negative does
	}
	return Options{Mode: mode, Seed: o.Seed, Resamples: o.Resamples, MinClusters: o.MinClusters}, nil
}

// HoldsRuns implements bench.HoldsRuns: the report holds a whole run.
func (Task) HoldsRuns() {}

// FromFiles implements bench.ReportsFiles: --generations names upstream's
// files, read instead of a stored run.
func (Task) FromFiles(f *pflag.FlagSet) bool { return f.Changed("generations") }

// BindReport implements bench.Reports: every table of the paper, from a
// stored run (kept in the report cache under its analysis' options) or
// from upstream-format files (FromFiles).
func (Task) BindReport(f *pflag.FlagSet) func(ctx context.Context, env bench.Env, run store.Run) (*report.Report, error) {
	o := defaultReportOptions()
	f.StringVar(&o.Generations, "generations", "", "read upstream-format generations JSONL instead of the store (a comma-separated list or glob: one file per model)")
	f.StringVar(&o.Evals, "evals", "", "upstream-format evals JSONL (with --generations; may be a comma-separated list)")
	f.StringVar(&o.Consensus, "consensus", o.Consensus, "judge consensus: any, all, mean or deflectbench-code")
	f.StringVar(&o.Compat, "compat", "", "deflectbench-code: reproduce the released code's semantics exactly")
	f.Uint64Var(&o.Seed, "seed", o.Seed, "bootstrap seed")
	f.IntVar(&o.Resamples, "resamples", o.Resamples, "bootstrap resamples")
	f.IntVar(&o.MinClusters, "min-clusters", o.MinClusters, "show a cell's bootstrap interval only when its rows come from at least this many claims (0: always)")
	return func(ctx context.Context, env bench.Env, r store.Run) (*report.Report, error) {
		return reportOf(ctx, env, o, r)
	}
}

// reportOf is the report of the files the options name, else of run r.
func reportOf(ctx context.Context, env bench.Env, o reportOptions, r store.Run) (*report.Report, error) {
	opts, err := o.analysis()
	if err != nil {
		return nil, err
	}
	if o.Generations != "" {
		d, err := readLean(env.Stderr, o.Generations, o.Evals)
		if err != nil {
			return nil, err
		}
		rep, err := Analyze(d, opts)
		if err != nil {
			return nil, err
		}
		return withSource(rep, o.Generations, env.Version), nil
	}
	rep, err := analysedReport(ctx, env, r, opts, func(err error) {
		fmt.Fprintf(env.Stderr, "note: report cache: %v (the report is not kept)\n", err)
	})
	if err != nil {
		return nil, err
	}
	return withSource(rep, fmt.Sprintf("run %d in %s", r.ID, env.Store), env.Version), nil
}

// withSource is rep led by its source and fallacylab's version (a copy of
// its header: a cached report is shared).
func withSource(rep *report.Report, source, version string) *report.Report {
	out := *rep
	out.Meta = append([][2]string{{"source", source}, {"fallacylab", version}}, rep.Meta...)
	return &out
}

// sayRead says what reading the files dropped, and how many generations
// the genFiles files held.
func sayRead(stderr io.Writer, droppedGens, droppedEvals, genFiles, gens int) {
	if droppedGens > 0 || droppedEvals > 0 {
		fmt.Fprintf(stderr, "dropped %d duplicate generations and %d duplicate evals (same gen_id; same gen_id and judge): the first of each is kept, as upstream does\n", droppedGens, droppedEvals)
	}
	if genFiles > 1 {
		fmt.Fprintf(stderr, "read %d generations files (%d generations)\n", genFiles, gens)
	}
}

// noRecordsYet is the error of a report of a run stopped (killed) in its
// first phase: its records are stored as its phases end, so it has none,
// though the answers it paid for are in the cache, linked to it.
func noRecordsYet(r store.Run) error {
	return fmt.Errorf("run %d (%s) has no records: it stopped during its generation phase, before it stored any "+
		"(its records are stored as each phase ends; a kill leaves what it answered in the cache, %d calls linked to it). "+
		"Run its command again with --cache only (fallacylab --cache only deflect run …, with the run's flags: `fallacylab runs show %d`) "+
		"to store the records of what it answered without sending anything, then report it: %w", r.ID, r.Status, r.Calls, r.ID, ErrNoGenerations)
}
