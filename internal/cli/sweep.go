package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/compare"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/lifecycle"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/sweep"
)

// sweepHooks are what a plan file's run tells the sweep running it.
type sweepHooks struct {
	args      []string          // the run's command line, stored with it
	plan      map[string]any    // the plan file, stored with the run
	runID     int64             // the run started, resumed or found done
	estimates []engine.Estimate // a dry run's estimates
}

// newRunPlanCmd is `fallacylab run FILE.yaml`: the runs a plan file
// describes, as one resumable sweep.
func newRunPlanCmd(g *Global) *cobra.Command {
	var format, out string
	cmd := &cobra.Command{
		Use:         "run FILE.yaml",
		Annotations: callsModels(),
		Short:       "Run what a plan file describes — benchmarks, models, options, sweeps — as one resumable sweep",
		Long: `Runs every run the file describes, one after the other, each as its own command would
(fallacylab <benchmark> run …), then prints one table of them all. The same command again
resumes the sweep: a run whose command already finished is not run again, an unfinished one
resumes, and no stored answer is paid for twice. --dry-run prices every run and the whole.
The file is stored with each of its runs; fallacylab runs show RUN --as-plan writes the file
that reproduces a stored run. Keys never go in the file: they come from the environment.

  store: runs.db                 # --db (default: as every command)
  flags: {concurrency: 8}        # global flags for every run
  runs:
    - benchmark: classify        # the benchmark's command
      options: {limit: 40}       # its flags, by name
      sweep:                     # one run per value (per combination)
        model: [openai:gpt-4.1-mini, openai:gpt-4.1]
    - benchmark: foils
      command: audit             # the verb, when it is not run

The schema: docs/plan-file.md.`,
		Example: `  fallacylab --dry-run run plan.yaml
  fallacylab run plan.yaml --format html --out sweep.html`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rf, err := report.ParseFormat(format)
			if err != nil {
				return err
			}
			data, err := os.ReadFile(args[0])
			if err != nil {
				return err
			}
			plan, err := sweep.Parse(args[0], data)
			if err != nil {
				return err
			}
			if err := checkPlan(g, args[0], plan); err != nil {
				return err
			}
			abs, _ := filepath.Abs(args[0])
			return runSweep(cmd, g, args[0], map[string]any{"file": abs, "text": string(data)}, plan, rf, out)
		},
	}
	bench.AddReportFlags(cmd.Flags(), &format, &out, "the table of the sweep's runs: output file (default stdout)")
	return cmd
}

// checkPlan refuses, before anything runs, an entry whose benchmark,
// command or option this build does not have, naming its line and field.
func checkPlan(g *Global, file string, p sweep.Plan) error {
	root := newRoot(&Global{Stdout: g.Stdout, Stderr: g.Stderr})
	for _, o := range p.Flags {
		f := root.PersistentFlags().Lookup(o.Name)
		if f == nil {
			return &sweep.Error{File: file, Line: o.Line, Field: "flags." + o.Name, Msg: "no such global flag (fallacylab --help lists them)"}
		}
		if msg := badValue(f, o.Value); msg != "" {
			return &sweep.Error{File: file, Line: o.Line, Field: "flags." + o.Name, Msg: msg}
		}
	}
	for i, e := range p.Runs {
		field := fmt.Sprintf("runs[%d]", i)
		c, _, err := root.Find([]string{e.Benchmark, e.Command})
		if err != nil || c == root || c.Name() != e.Command && !c.HasAlias(e.Command) {
			return &sweep.Error{File: file, Line: e.Line, Field: field, Msg: fmt.Sprintf("fallacylab has no command %q", e.Benchmark+" "+e.Command)}
		}
		if !sendsCalls(c) {
			return &sweep.Error{File: file, Line: e.Line, Field: field, Msg: fmt.Sprintf("fallacylab %s %s makes no run: a plan runs benchmarks", e.Benchmark, e.Command)}
		}
		flag := func(name string) *pflag.Flag { return cmp.Or(c.Flags().Lookup(name), c.InheritedFlags().Lookup(name)) }
		for _, o := range e.Options {
			f := flag(o.Name)
			if f == nil {
				return &sweep.Error{File: file, Line: o.Line, Field: field + ".options." + o.Name, Msg: fmt.Sprintf("fallacylab %s %s has no flag --%s", e.Benchmark, e.Command, o.Name)}
			}
			if msg := badValue(f, o.Value); msg != "" {
				return &sweep.Error{File: file, Line: o.Line, Field: field + ".options." + o.Name, Msg: msg}
			}
		}
		for _, s := range e.Sweep {
			f := flag(s.Name)
			if f == nil {
				return &sweep.Error{File: file, Line: s.Line, Field: field + ".sweep." + s.Name, Msg: fmt.Sprintf("fallacylab %s %s has no flag --%s", e.Benchmark, e.Command, s.Name)}
			}
			for _, v := range s.Values {
				if msg := badValue(f, v); msg != "" {
					return &sweep.Error{File: file, Line: s.Line, Field: field + ".sweep." + s.Name, Msg: msg}
				}
			}
		}
	}
	return nil
}

// badValue says why value is not one flag f takes ("" if it is): a
// number's flag given a word is refused before anything runs, as the
// command would refuse it (checked on a scratch command tree: setting the
// value there changes no run's flags).
func badValue(f *pflag.Flag, value string) string {
	if err := f.Value.Set(value); err == nil {
		return ""
	}
	want := map[string]string{"int": "a whole number", "int64": "a whole number", "uint": "a whole number, 0 or more", "uint64": "a whole number, 0 or more",
		"float64": "a number", "bool": "true or false", "duration": "a duration (30s, 2m, 1h)"}[f.Value.Type()]
	if want == "" {
		return fmt.Sprintf("%q is not a value --%s takes", value, f.Name)
	}
	return fmt.Sprintf("--%s takes %s, not %q", f.Name, want, value)
}

// sweepRow is one run of a sweep as its table shows it.
type sweepRow struct {
	entry     int
	benchmark string
	swept     []sweep.Option
	command   []string
	runID     int64
	err       error
}

// runFlagSweep is a run command whose flag names several values
// (bench.Sweeps): the sweep of one run per value, as a plan file with
// that one entry would run it — the command's other flags (but --format
// and --out, which take the sweep's table) given to every run.
func runFlagSweep(cmd *cobra.Command, g *Global, benchmark, flag string, values, args []string, rf report.Format, out string) error {
	e := sweep.Entry{Benchmark: benchmark, Command: cmd.Name(), Args: args, Sweep: []sweep.Swept{{Name: flag, Values: values}}}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if cmd.Root().PersistentFlags().Lookup(f.Name) == nil && f.Name != flag && f.Name != "format" && f.Name != "out" {
			e.Options = append(e.Options, sweep.Option{Name: f.Name, Value: flagValue(f)})
		}
	})
	return runSweep(cmd, g, benchmark+" "+cmd.Name()+" --"+flag, map[string]any{"command": g.commandLine(), "swept": flag, "values": values}, sweep.Plan{Runs: []sweep.Entry{e}}, rf, out)
}

// runSweep runs (or prices) every run of the plan, then shows them; file
// names the plan (its file, or the swept flag of a run command) and
// stored is what each run stores of it.
func runSweep(cmd *cobra.Command, g *Global, file string, stored map[string]any, plan sweep.Plan, rf report.Format, out string) error {
	ctx := cmd.Context()
	runs := plan.Expand()
	// The global flags given to this command reach every run; they win
	// over the file's.
	var outer []string
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if cmd.Root().PersistentFlags().Lookup(f.Name) != nil {
			outer = append(outer, "--"+f.Name+"="+flagValue(f))
		}
	})
	var rows []sweepRow
	var total float64
	known := true
	for i, r := range runs {
		line := append(append([]string(nil), r.Command...), outer...)
		fmt.Fprintf(g.Stderr, "── run %d of %d: fallacylab %s\n", i+1, len(runs), strings.Join(line, " "))
		doc := map[string]any{"run": i + 1, "of": len(runs)}
		for k, v := range stored {
			doc[k] = v
		}
		hooks := &sweepHooks{args: line, plan: doc}
		// A run's own output goes to stderr: stdout is the sweep's table
		// (or its dry run's prices), whatever format it is asked in.
		sub := newRoot(&Global{Stdout: g.Stderr, Stderr: g.Stderr, TTY: g.TTY, StdoutTTY: false, termWidth: g.termWidth, sweep: hooks})
		sub.SetArgs(line)
		err := sub.ExecuteContext(ctx)
		rows = append(rows, sweepRow{entry: r.Entry, benchmark: plan.Runs[r.Entry].Benchmark, swept: r.Swept, command: line, runID: hooks.runID, err: err})
		for _, est := range hooks.estimates {
			total += est.Cost
			known = known && est.CostKnown
		}
		if ctx.Err() != nil {
			return err // interrupted: the same command resumes
		}
	}
	if g.DryRun || dryRunIn(runs) {
		price := fmt.Sprintf("$%.4f", total)
		if !known {
			price += " + calls of unknown price (set prices: in the config)"
		}
		failed := 0
		for _, r := range rows {
			if r.err != nil {
				failed++
			}
		}
		switch { // a refused run is not priced: the whole is not known
		case failed == len(runs):
			fmt.Fprintf(g.Stdout, "dry run of %s: %s refused (below), nothing priced\n", file, map[bool]string{true: "its run", false: fmt.Sprintf("all %d runs", len(runs))}[len(runs) == 1])
			return firstErr(rows)
		case failed > 0:
			fmt.Fprintf(g.Stdout, "dry run of %s: %s, %d refused (below) and not priced; the others' estimated cost %s\n", file, plural(len(runs), "run", "runs"), failed, price)
			return firstErr(rows)
		}
		fmt.Fprintf(g.Stdout, "dry run of %s: %s, estimated cost %s in all\n", file, plural(len(runs), "run", "runs"), price)
		return firstErr(rows)
	}
	if plan.Store != "" && !g.dbFlagSet { // the table reads the store the runs went to
		g.DBPath, g.dbFlagSet = plan.Store, true
	}
	s, err := openBrowse(g)
	if err != nil {
		return err
	}
	defer s.Close()
	rep, err := sweepReport(cmd, s, file, rows)
	if err != nil {
		return err
	}
	if err := writeReport(g, rep, rf, out); err != nil {
		return err
	}
	return firstErr(rows)
}

// dryRunIn reports whether the file's own flags ask for a dry run.
func dryRunIn(runs []sweep.Run) bool {
	for _, a := range runs[0].Command {
		if a == "--dry-run=true" {
			return true
		}
	}
	return false
}

// firstErr is the sweep's exit: nil when every run succeeded, else the
// first failure's error (its exit code), naming how many failed.
func firstErr(rows []sweepRow) error {
	var first error
	n := 0
	for _, r := range rows {
		if r.err != nil {
			if first == nil {
				first = r.err
			}
			n++
		}
	}
	if first == nil {
		return nil
	}
	var le *lifecycle.ExitError
	if errors.As(first, &le) {
		return &lifecycle.ExitError{Code: le.Code, Err: fmt.Errorf("%d of %d runs of the sweep did not succeed; the first: %w", n, len(rows), first)}
	}
	return fmt.Errorf("%d of %d runs of the sweep did not succeed; the first: %w", n, len(rows), first)
}

// sweepReport is the table of the sweep's runs: each run's status,
// calls, spend and headline figure with its interval.
func sweepReport(cmd *cobra.Command, s *session, file string, rows []sweepRow) (*report.Report, error) {
	ctx := cmd.Context()
	rep := &report.Report{Title: "Sweep " + filepath.Base(file), Meta: [][2]string{{"plan", file}, {"fallacylab", Version()}}}
	t := rep.AddSection("Runs", "Every run of the sweep, in its order. The headline figure is the benchmark's first metric over its items, with a 95 % percentile cluster bootstrap interval — Wilson's for a rate of items each its own cluster (fallacylab compare takes any two of these runs).").
		Add(&report.Table{ID: "sweep", Title: "Runs of the sweep", Columns: report.Cols("entry", "benchmark", "swept", "run", "status", "calls", "cached", "spend USD", "headline", "value")})
	for _, r := range rows {
		var swept []string
		for _, o := range r.swept {
			swept = append(swept, o.Name+"="+o.Value)
		}
		row := []report.Cell{report.I(r.entry + 1), report.T(r.benchmark), report.T(strings.Join(swept, ", "))}
		if r.runID == 0 {
			msg := "not started"
			if r.err != nil {
				msg = "not started: " + r.err.Error()
			}
			t.Rows = append(t.Rows, append(row, report.T("—"), report.T(msg), report.T(""), report.T(""), report.T(""), report.T(""), report.T("")))
			continue
		}
		run, ok, err := s.st.Run(ctx, r.runID)
		if err != nil || !ok {
			return nil, fmt.Errorf("run %d: %v", r.runID, err)
		}
		stats, err := s.st.RunModelStats(ctx, run.ID)
		if err != nil {
			return nil, err
		}
		var spend float64
		for _, m := range stats {
			spend += m.Cost
		}
		name, value := headline(ctx, s, run)
		row = append(row, report.I(int(run.ID)), report.T(lifecycle.Describe(run, run.Ended)), report.I(run.Calls), report.I(run.Cached), report.F(spend, 4), report.T(name), value)
		t.Rows = append(t.Rows, row)
	}
	err := sweepTables(ctx, s, rows, rep)
	rep.NotePointIntervals("item")
	return rep, err
}

// sweepTables adds, for each entry of the sweep whose runs all finished,
// the tables its benchmark compares them in (bench.SweepTables).
func sweepTables(ctx context.Context, s *session, rows []sweepRow, rep *report.Report) error {
	byEntry := map[int][]store.Run{}
	var entries []int
	complete := map[int]bool{}
	for _, r := range rows {
		if _, seen := complete[r.entry]; !seen {
			complete[r.entry] = true
			entries = append(entries, r.entry)
		}
		run, ok, err := s.st.Run(ctx, r.runID)
		if err != nil {
			return err
		}
		if !ok || run.Status != store.RunDone {
			complete[r.entry] = false
			continue
		}
		byEntry[r.entry] = append(byEntry[r.entry], run)
	}
	for _, e := range entries {
		runs := byEntry[e]
		if !complete[e] || len(runs) < 2 {
			continue
		}
		t, ok := bench.TaskOf(runs[0].Benchmark)
		if st, can := t.(bench.SweepTables); ok && can {
			if err := st.SweepTables(ctx, s.taskEnv(""), runs, rep); err != nil {
				return fmt.Errorf("the sweep's %s tables: %w", runs[0].Benchmark, err)
			}
		}
	}
	return nil
}

// headline is a run's first headline metric and its estimate (the first
// arm's; "" : the benchmark does not compare item by item, or the run has
// no records).
func headline(ctx context.Context, s *session, run store.Run) (string, report.Cell) {
	none := report.T("")
	if run.Status != store.RunDone {
		return "", none
	}
	t, ok := bench.TaskOf(run.Benchmark)
	c, can := t.(bench.Compares)
	if !ok || !can {
		return "", none
	}
	arms, err := c.Arms(ctx, s.taskEnv(""), run)
	if err != nil || len(arms) == 0 || len(arms[0].Metrics) == 0 || len(arms[0].Metrics[0].Items) == 0 {
		return "", none
	}
	m := arms[0].Metrics[0]
	e, err := compare.EstimateOf(m, compare.Options{Resamples: 1000, Seed: 20260101})
	if err != nil {
		return "", none
	}
	name := m.Name
	if arms[0].Model != "" && len(arms) > 1 {
		name += " (" + arms[0].Model + ")"
	}
	if m.Binary {
		return name, report.PCI(e.Mean, e.Lo, e.Hi, e.N)
	}
	return name, report.NCI(e.Mean, e.Lo, e.Hi, 3)
}

// planOf is the plan file that reproduces a stored run (runs show
// --as-plan): its stored command line, split into the store, the global
// flags, and the benchmark's command, options and arguments.
func planOf(g *Global, r store.Run) ([]byte, error) {
	var cfg struct {
		Args []string `json:"args"`
	}
	if err := json.Unmarshal(r.Config, &cfg); err != nil || len(cfg.Args) == 0 {
		return nil, fmt.Errorf("run %d stores no command line to write a plan from", r.ID)
	}
	root := newRoot(&Global{Stdout: g.Stdout, Stderr: g.Stderr})
	c, rest, err := root.Find(cfg.Args)
	if err != nil || c == root || c.Parent() == root {
		return nil, fmt.Errorf("run %d was made by `fallacylab %s`, which is no benchmark's run", r.ID, strings.Join(cfg.Args, " "))
	}
	if err := c.ParseFlags(rest); err != nil {
		return nil, fmt.Errorf("run %d's command line: %w", r.ID, err)
	}
	e := sweep.Entry{Benchmark: c.Parent().Name(), Command: c.Name(), Args: c.Flags().Args()}
	store := ""
	flags := map[string]string{}
	// Only the flag set the line was parsed into knows which were given.
	c.Flags().Visit(func(f *pflag.Flag) {
		switch {
		case root.PersistentFlags().Lookup(f.Name) == nil:
			e.Options = append(e.Options, sweep.Option{Name: f.Name, Value: flagValue(f)})
		case f.Name == "db":
			store = f.Value.String()
		case f.Name != "dry-run":
			flags[f.Name] = flagValue(f)
		}
	})
	return sweep.Write(store, flags, []sweep.Entry{e}), nil
}

// flagValue is a flag's value as its command line writes it (a list
// joined by commas).
func flagValue(f *pflag.Flag) string {
	if sv, ok := f.Value.(pflag.SliceValue); ok {
		return strings.Join(sv.GetSlice(), ",")
	}
	return f.Value.String()
}
