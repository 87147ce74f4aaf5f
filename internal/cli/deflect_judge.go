package cli

import (
	"context"
	"fmt"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/runner"
	"os"

	"github.com/fallacylab/fallacylab/bench/deflect"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/spf13/cobra"
)

type deflectJudgeOptions struct {
	Run                  int64
	AllowIncomplete      bool
	Judges               string
	JudgeTemperature     float64
	JudgeProviderDefault bool
	Structured           bool
	Name                 string
}

func newDeflectJudgeCmd(g *Global) *cobra.Command {
	var o deflectJudgeOptions
	cmd := &cobra.Command{
		Use:         "judge",
		Annotations: callsModels(),
		Short:       "Judge a stored run's generations (yours or imported) with another judge panel, as a new run",
		Long: `Takes the generations of --run (default: the latest DeflectBench run, including runs made by
` + "`deflect import`" + `) and judges every valid one with --judges, into a new run that a report
can compare with the first. Nothing is generated again; judge calls already made are cached.`,
		Example: `  fallacylab deflect judge --run 3 --judges gemini:gemini-2.5-flash,openai:gpt-4.1`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			judges, err := parseSpecs("judges", o.Judges)
			if err != nil {
				return err
			}
			if len(judges) == 0 {
				return fmt.Errorf("deflect judge needs --judges, e.g. --judges anthropic:claude-haiku-4-5,openai:gpt-4.1-mini")
			}
			jopt := deflect.JudgeOptions{Judges: judges, Structured: o.Structured}
			if !o.JudgeProviderDefault {
				jopt.Temperature = llm.Temp(o.JudgeTemperature)
			}
			b, err := deflect.Default()
			if err != nil {
				return err
			}
			s, err := openSession(g)
			if err != nil {
				return err
			}
			defer s.Close()
			d, from, err := loadRun(ctx, s.st, o.Run, o.AllowIncomplete)
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
			judging := judgingPhase(s, b, func() []deflect.Generation { return d.Gens }, jopt)
			judging.Dry = func(context.Context) (engine.Plan, string, error) {
				plan, err := b.JudgePlan(d.Gens, jopt)
				return plan, "", err
			}
			_, err = s.runner().Run(ctx, runner.Spec{Name: name, Benchmark: deflect.Definition.Name, Args: os.Args[1:], Options: o, Identity: []any{from, jopt},
				Specs: judges, Phases: []runner.Phase{judging},
				Setup: func(ctx context.Context, runID int64) error { return deflect.SaveGens(ctx, s.st, runID, d.Gens) },
				Done:  func(ctx context.Context, runID int64, exit error) error { return deflectDone(ctx, s, runID, exit) }})
			return err
		},
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
