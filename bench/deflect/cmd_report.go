package deflect

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/judge"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/reportcache"
	"github.com/fallacylab/fallacylab/store"
)

type reportOptions struct {
	Run                int64
	AllowIncomplete    bool
	Generations, Evals string
	Format, Out        string
	Consensus          string
	Compat             string
	Seed               uint64
	Resamples          int
	MinClusters        int
}

// defaultReportOptions are `deflect report`'s defaults.
func defaultReportOptions() reportOptions {
	return reportOptions{Format: "md", Consensus: "any", Seed: 20260101, Resamples: 1000, MinClusters: DefaultMinClusters}
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

func newReportCmd(h bench.Host) *cobra.Command {
	o := defaultReportOptions()
	cmd := &cobra.Command{
		Use:         "report",
		Annotations: bench.HoldsRun(),
		Short:       "Every table of the paper with block-bootstrap CIs, from a stored run or upstream JSONL files",
		Example: `  fallacylab deflect report --format md
  fallacylab deflect report --run 3 --format html --out report.html
  fallacylab deflect report --generations gens.jsonl --evals evals.jsonl --compat deflectbench-code --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return reportRun(cmd.Context(), h, o) },
	}
	f := cmd.Flags()
	f.Int64Var(&o.Run, "run", 0, "run id (default: the latest DeflectBench run in the store)")
	f.BoolVar(&o.AllowIncomplete, "allow-incomplete", false, "report a run that did not finish (interrupted, failed, incomplete) from the records it has")
	f.StringVar(&o.Generations, "generations", "", "read upstream-format generations JSONL instead of the store (a comma-separated list or glob: one file per model)")
	f.StringVar(&o.Evals, "evals", "", "upstream-format evals JSONL (with --generations; may be a comma-separated list)")
	bench.AddReportFlags(f, &o.Format, &o.Out, "output file, or a directory (one file per table for csv); default stdout")
	f.StringVar(&o.Consensus, "consensus", o.Consensus, "judge consensus: any, all, mean or deflectbench-code")
	f.StringVar(&o.Compat, "compat", "", "deflectbench-code: reproduce the released code's semantics exactly")
	f.Uint64Var(&o.Seed, "seed", o.Seed, "bootstrap seed")
	f.IntVar(&o.Resamples, "resamples", o.Resamples, "bootstrap resamples")
	f.IntVar(&o.MinClusters, "min-clusters", o.MinClusters, "show a cell's bootstrap interval only when its rows come from at least this many claims (0: always)")
	return cmd
}

func reportRun(ctx context.Context, h bench.Host, o reportOptions) error {
	if _, err := report.ParseFormat(o.Format); err != nil {
		return err
	}
	opts, err := o.analysis()
	if err != nil {
		return err
	}
	var rep *report.Report
	source := ""
	var fromRun func(*report.Report) error
	if o.Generations != "" {
		d, err := readLean(h.Settings().Stderr, o.Generations, o.Evals)
		if err != nil {
			return err
		}
		source = o.Generations
		if rep, err = Analyze(d, opts); err != nil {
			return err
		}
	} else {
		s, err := h.Open(ctx, false)
		if err != nil {
			return err
		}
		defer s.Close()
		r, err := s.Pick(ctx, o.Run, o.AllowIncomplete, Definition.Title, nil, "fallacylab deflect run` or `deflect import")
		if err != nil {
			return err
		}
		// The analysis of these records with these options may be cached
		// (outside the store): the same report again, or in another
		// format, is read back.
		rep, err = reportcache.GetOrMake(reportcache.RunKey(s.Where(), r, opts.Identity()...), func() (*report.Report, error) {
			d, err := LoadScores(ctx, s.Env("").Records, r.ID)
			if errors.Is(err, ErrNoGenerations) && r.Status != store.RunDone {
				return nil, noRecordsYet(r)
			}
			if err != nil {
				return nil, err
			}
			return Analyze(d, opts)
		}, func(err error) {
			fmt.Fprintf(h.Settings().Stderr, "note: report cache: %v (the report is not kept)\n", err)
		})
		if err != nil {
			return err
		}
		source = fmt.Sprintf("run %d in %s", r.ID, s.Where())
		fromRun = func(rep *report.Report) error {
			if err := s.Annotate(ctx, r.ID, rep); err != nil {
				return err
			}
			return s.Studies(ctx, r.ID, rep)
		}
	}
	rep.Meta = append([][2]string{{"source", source}, {"fallacylab", h.Version()}}, rep.Meta...)
	if fromRun != nil {
		if err := fromRun(rep); err != nil {
			return err
		}
	}
	return h.WriteReport(rep, o.Format, o.Out)
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
		"to store the records of what it answered without sending anything, then report it", r.ID, r.Status, r.Calls, r.ID)
}
