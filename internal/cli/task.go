package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/lifecycle"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store"
)

// taskCmds are the commands of every registered Task, made from what it
// declares: `fallacylab <name> run` for a Task that runs, `… report` for
// one that reports its stored runs. A name that already has a command of
// its own (a benchmark not yet moved onto the Task spine) is left to it.
//
// A Task that nests (bench.Nests) has its run command under another's,
// with its report as the run command's "report".
func taskCmds(g *Global, root *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	var nested []bench.Nests
	for _, t := range bench.Tasks() {
		def := t.Definition()
		if c, _, err := root.Find([]string{def.Name}); err == nil && c != root {
			continue
		}
		if n, ok := t.(bench.Nests); ok {
			nested = append(nested, n)
			continue
		}
		cmd := &cobra.Command{Use: def.Name, Short: def.Title + ": " + def.Summary, Args: cobra.NoArgs}
		if r, ok := t.(bench.Runs); ok {
			cmd.AddCommand(newTaskRunCmd(g, r))
		}
		if r, ok := t.(bench.Reports); ok {
			cmd.AddCommand(newTaskReportCmd(g, r))
		}
		if c, ok := t.(bench.Commands); ok {
			cmd.AddCommand(c.Commands(host{g, def})...)
		}
		out = append(out, cmd)
	}
	for _, n := range nested {
		parent, _ := n.Nest()
		for _, c := range out {
			if c.Name() == parent {
				run := newTaskRunCmd(g, n)
				if r, ok := n.(bench.Reports); ok {
					run.AddCommand(newTaskReportCmd(g, r))
				}
				c.AddCommand(run)
			}
		}
	}
	return out
}

// taskEnv is what a Task is given by this session.
func (s *session) taskEnv(dataDirFlag string) bench.Env {
	var data fs.FS
	if dir := dataDir(dataDirFlag); dir != "" && dirExists(dir) {
		data = os.DirFS(dir)
	}
	return bench.Env{Records: s.st, Data: data, DataFlag: dataDirFlag, DryRun: s.g.DryRun, Stdout: s.g.Stdout, Stderr: s.g.Stderr,
		Store: s.st.Path(), StoreFlag: s.g.storeFlag(), Version: Version(), Stored: storedAnswers{s}}
}

// storedAnswers are the answers the session's store holds
// (bench.StoredAnswers), found as its engine would find them.
type storedAnswers struct{ s *session }

// Stored implements bench.StoredAnswers.
func (a storedAnswers) Stored(ctx context.Context, j engine.Job) (*llm.Response, bool, error) {
	c, ok, err := a.s.st.GetCall(ctx, a.s.engine(0).Place(j).Key())
	if err != nil || !ok {
		return nil, false, err
	}
	return c.Response, c.Response != nil, nil
}

// OutputTokens implements bench.StoredAnswers.
func (a storedAnswers) OutputTokens(ctx context.Context, spec llm.Spec, namespace string) (float64, int, error) {
	return a.s.st.OutputTokens(ctx, spec.Provider, spec.Model, namespace)
}

// newTaskRunCmd is a Task's `run`: its options as flags, its run through
// the one runner.
func newTaskRunCmd(g *Global, t bench.Runs) *cobra.Command {
	def := t.Definition()
	var dir, format, out string
	cmd := &cobra.Command{Use: "run", Short: "Run " + def.Title + " (" + def.Summary + ")", Args: cobra.NoArgs, Annotations: callsModels()}
	if v, ok := t.(bench.RunVerb); ok {
		cmd.Use, cmd.Aliases = v.RunVerb(), []string{"run"}
	}
	if n, ok := t.(bench.Nests); ok {
		_, cmd.Use = n.Nest()
	}
	if a, ok := t.(bench.TakesArgs); ok {
		use, n := a.RunArgs()
		cmd.Use, cmd.Args = cmd.Use+" "+use, cobra.ExactArgs(n)
	}
	withHelp(cmd, t, "run")
	build := t.BindRun(cmd.Flags())
	shows, showsReport := t.(bench.ShowsReport)
	if showsReport {
		bench.AddReportFlags(cmd.Flags(), &format, &out, "output file or directory (default stdout)")
	}
	if _, own := t.(bench.OwnInput); !own {
		cmd.Flags().StringVar(&dir, "data-dir", "", "data directory (default $FALLACYLAB_DATA or the user's data folder)")
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		ctx := cmd.Context()
		rf, err := report.ParseFormat(format)
		if showsReport && err != nil {
			return err
		}
		if sw, ok := t.(bench.Sweeps); ok && g.sweep == nil {
			flag, values, err := sw.SweepFlag(cmd.Flags())
			if err != nil {
				return err
			}
			if len(values) > 1 {
				return runFlagSweep(cmd, g, cmd.Parent().Name(), flag, values, args, rf, out)
			}
		}
		s, err := openSession(g)
		if err != nil {
			return err
		}
		defer s.Close()
		env := s.taskEnv(dir)
		env.Args = args
		spec, err := build(ctx, env)
		if err != nil {
			return err
		}
		spec.Benchmark = def.Name
		if spec.Args == nil {
			spec.Args = g.commandLine()
		}
		if spec.Name == "" {
			spec.Name = def.Name
		}
		done := spec.Done
		spec.Done = func(ctx context.Context, runID int64, exit error) error {
			if done != nil {
				exit = done(ctx, runID, exit)
			}
			if showsReport {
				brief := g.StdoutTTY && out == "" && !cmd.Flags().Changed("format")
				if err := showReport(ctx, g, s, env, shows, runID, brief, rf, out); err != nil {
					return err
				}
				return exit
			}
			if rt, ok := t.(bench.Reports); ok && exit == nil {
				if g.StdoutTTY {
					runBrief(ctx, g, s, env, rt, runID)
				}
				_, rep := bench.Commandline(t)
				fmt.Fprintf(g.Stdout, "run %d done. The whole report: %s (--format md, html, csv, json or tex; --out FILE)\n", runID, env.Command(fmt.Sprintf("%s --run %d", rep, runID)))
			}
			return exit
		}
		_, err = s.runner().Run(ctx, spec)
		return err
	}
	return cmd
}

// newTaskReportCmd is a Task's `report` of a stored run, in every format.
func newTaskReportCmd(g *Global, t bench.Reports) *cobra.Command {
	def := t.Definition()
	var runID int64
	var allowIncomplete bool
	var format, out, dir string
	cmd := &cobra.Command{Use: "report", Short: "Report a stored " + def.Title + " run", Args: cobra.NoArgs}
	if _, ok := t.(bench.HoldsRuns); ok {
		cmd.Annotations = bench.HoldsRun()
	}
	withHelp(cmd, t, "report")
	f := cmd.Flags()
	f.Int64Var(&runID, "run", 0, "run id (default: the latest "+def.Title+" run)")
	f.BoolVar(&allowIncomplete, "allow-incomplete", false, "report a run that did not finish, from the records it has")
	build := t.BindReport(f)
	bench.AddReportFlags(f, &format, &out, "output file, or a directory (one file per table for csv); default stdout")
	if _, own := t.(bench.OwnInput); !own {
		f.StringVar(&dir, "data-dir", "", "data directory (default $FALLACYLAB_DATA or the user's data folder)")
	}
	files, readsFiles := t.(bench.ReportsFiles)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		rf, err := report.ParseFormat(format)
		if err != nil {
			return err
		}
		if readsFiles && files.FromFiles(cmd.Flags()) {
			// Files, not a stored run: no store is opened.
			rep, err := build(ctx, bench.Env{Stdout: g.Stdout, Stderr: g.Stderr, Version: Version()}, store.Run{})
			if err != nil {
				return err
			}
			return writeReport(g, rep, rf, out)
		}
		s, err := openBrowse(g)
		if err != nil {
			return err
		}
		defer s.Close()
		run, _ := bench.Commandline(t)
		makes := s.g.command(run)
		if h, ok := t.(bench.Helps); ok && h.Help("report").Makes != "" {
			makes = h.Help("report").Makes
		}
		r, err := pick(ctx, s.st, def, def.Title, runID, allowIncomplete, nil, makes)
		if nd, ok := errors.AsType[*lifecycle.NotDoneError](err); ok {
			nd.Command = s.g.command // its runs rm names the store
		}
		if err != nil {
			return err
		}
		rep, err := build(ctx, s.taskEnv(dir), r)
		if err != nil {
			return fmt.Errorf("run %d: %w", r.ID, err)
		}
		addPartial(r, rep)
		if err := provenance(ctx, s, r.ID, rep); err != nil {
			return err
		}
		if err := addStudies(ctx, s.st, def.Name, r.ID, rep); err != nil {
			return err
		}
		return writeReport(g, rep, rf, out)
	}
	return cmd
}

// withHelp sets what a Task writes of a command's help (bench.Helps).
func withHelp(cmd *cobra.Command, t bench.Task, verb string) {
	h, ok := t.(bench.Helps)
	if !ok {
		return
	}
	w := h.Help(verb)
	if w.Short != "" {
		cmd.Short = w.Short
	}
	cmd.Long, cmd.Example = w.Long, w.Example
}

// runBrief shows a person at a terminal the headline figures of a run that
// just finished (the report with its default options), before the command
// for the whole report. A report that cannot be made here says nothing:
// the run itself succeeded, and the command for the report follows.
func runBrief(ctx context.Context, g *Global, s *session, env bench.Env, t bench.Reports, runID int64) {
	fs := pflag.NewFlagSet("report", pflag.ContinueOnError)
	build := t.BindReport(fs)
	if fs.Parse(nil) != nil {
		return
	}
	r, ok, err := s.st.Run(ctx, runID)
	if err != nil || !ok {
		return
	}
	rep, err := build(ctx, env, r)
	if err == nil && report.Brief(g.Stdout, rep) {
		fmt.Fprintln(g.Stdout)
	}
}

// showReport shows the whole report of a run that just ended (a
// bench.ShowsReport's): made from its records as its report command
// makes it, in format to out, or its brief at a terminal. A run that
// ended before it stored its records shows nothing: its exit says why.
func showReport(ctx context.Context, g *Global, s *session, env bench.Env, t bench.ShowsReport, runID int64, brief bool, rf report.Format, out string) error {
	r, ok, err := s.st.Run(ctx, runID)
	if err != nil || !ok {
		return err
	}
	if brief {
		return t.Brief(ctx, env, r, g.Stdout)
	}
	fs := pflag.NewFlagSet("report", pflag.ContinueOnError)
	build := t.BindReport(fs)
	if err := fs.Parse(nil); err != nil {
		return err
	}
	rep, err := build(ctx, env, r)
	if err != nil {
		return nil // no records: the run's own exit error says what happened
	}
	if err := provenance(ctx, s, runID, rep); err != nil {
		return err
	}
	return writeReport(g, rep, rf, out)
}
