package deflect

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/runner"
)

type judgeCmdOptions struct {
	Run                  int64
	AllowIncomplete      bool
	Judges               string
	JudgeTemperature     float64
	JudgeProviderDefault bool
	Structured           bool
	Name                 string
}

func newJudgeCmd(h bench.Host) *cobra.Command {
	var o judgeCmdOptions
	cmd := &cobra.Command{
		Use:         "judge",
		Annotations: bench.CallsModels(),
		Short:       "Judge a stored run's generations (yours or imported) with another judge panel, as a new run",
		Long: `Takes the generations of --run (default: the latest DeflectBench run, including runs made by
` + "`deflect import`" + `) and judges every valid one with --judges, into a new run that a report
can compare with the first. Nothing is generated again; judge calls already made are cached.`,
		Example: `  fallacylab deflect judge --run 3 --judges gemini:gemini-2.5-flash,openai:gpt-4.1`,
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return judgeRun(cmd.Context(), h, o) },
	}
	f := cmd.Flags()
	f.Int64Var(&o.Run, "run", 0, "run whose generations are judged (default: the latest DeflectBench run)")
	f.BoolVar(&o.AllowIncomplete, "allow-incomplete", false, "judge the generations of a run that did not finish")
	f.StringVar(&o.Judges, "judges", "", "judge models, comma-separated (two for agreement statistics)")
	f.Float64Var(&o.JudgeTemperature, "judge-temperature", 0, "judge temperature (the paper's 0)")
	f.BoolVar(&o.JudgeProviderDefault, "judge-provider-default-temperature", false, "send no judge temperature")
	f.BoolVar(&o.Structured, "structured", false, "ask judges for the 8-field JSON schema as structured output")
	f.StringVar(&o.Name, "name", "", "run name (default: \"deflect judge of run N\")")
	return cmd
}

func judgeRun(ctx context.Context, h bench.Host, o judgeCmdOptions) error {
	judges, err := parseSpecs("judges", o.Judges)
	if err != nil {
		return err
	}
	if len(judges) == 0 {
		return fmt.Errorf("deflect judge needs --judges, e.g. --judges anthropic:claude-haiku-4-5,openai:gpt-4.1-mini")
	}
	jopt := judgeOptions(judges, o.Structured, o.JudgeProviderDefault, o.JudgeTemperature)
	b, err := Default()
	if err != nil {
		return err
	}
	s, err := h.Open(ctx, true)
	if err != nil {
		return err
	}
	defer s.Close()
	recs := s.Env("").Records
	env := s.Env("")
	r, err := runner.Pick(ctx, env.Records, Definition.Name, Definition.Title, o.Run, o.AllowIncomplete, nil)
	if errors.Is(err, runner.ErrNoRun) {
		return fmt.Errorf("no %s run in %s: run `fallacylab deflect run` or `deflect import` first", Definition.Title, env.Store)
	}
	if nd, ok := errors.AsType[*runner.NotDoneError](err); ok {
		nd.Command = env.Command // its runs rm names the store
	}
	if err != nil {
		return err
	}
	from := r.ID
	d, err := LoadRecords(ctx, recs, from)
	if err != nil {
		return err
	}
	if len(d.Gens) == 0 {
		return fmt.Errorf("run %d has no DeflectBench generations to judge", from)
	}
	name := o.Name
	if name == "" {
		name = fmt.Sprintf("deflect judge of run %d", from)
	}
	judging := judgingPhase(recs, b, func() []Generation { return d.Gens }, jopt)
	judging.Dry = func(context.Context) (engine.Plan, string, error) {
		plan, err := b.JudgePlan(d.Gens, jopt)
		return plan, "", err
	}
	_, err = s.Run(ctx, runner.Spec{Name: name, Options: o, Identity: []any{from, jopt},
		Specs: judges, Phases: []runner.Phase{judging},
		Setup: func(ctx context.Context, runID int64) error { return SaveGens(ctx, recs, runID, d.Gens) },
		Done:  func(ctx context.Context, runID int64, exit error) error { return done(ctx, h, s.Env(""), runID, exit) }})
	return err
}

// done follows a finished judge run as the run command follows a run: its
// report with the default options kept in the report cache, its headline
// figures shown to a person at a terminal, and the command for the whole.
func done(ctx context.Context, h bench.Host, env bench.Env, runID int64, exit error) error {
	if exit != nil {
		return exit
	}
	keepReport(ctx, env, runID)
	if h.Settings().StdoutTTY {
		if r, ok, err := env.Records.Run(ctx, runID); err == nil && ok {
			if rep, err := reportOf(ctx, env, defaultReportOptions(), r); err == nil && report.Brief(h.Settings().Stdout, rep) {
				fmt.Fprintln(h.Settings().Stdout)
			}
		}
	}
	fmt.Fprintf(h.Settings().Stdout, "run %d done. The whole report: %s (--format md, html, csv, json or tex; --out FILE)\n", runID, env.Command(fmt.Sprintf("deflect report --run %d", runID)))
	return nil
}
