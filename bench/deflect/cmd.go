package deflect

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/runner"
)

// Task is DeflectBench as the registry holds it.
type Task struct{}

// Definition implements bench.Task.
func (Task) Definition() *bench.Benchmark { return Definition }

// What the Task implements, checked by the compiler (Caddy's interface
// guards).
var (
	_ bench.Runs         = Task{}
	_ bench.ReportsFiles = Task{}
	_ bench.HoldsRuns    = Task{}
	_ bench.OwnInput     = Task{}
	_ bench.Helps        = Task{}
	_ bench.Commands     = Task{}
	_ bench.Views        = Task{}
	_ bench.Previews     = Task{}
)

var _ = bench.RegisterTask(Task{})

// Commands implements bench.Commands: a new judge panel over a stored
// run, the import of upstream files and the synthetic run (the run and its
// report are the Task's BindRun and BindReport). Why they are commands of
// their own: judge is a second kind of run, over a stored run's
// generations, and a Task has one BindRun; import reads upstream's two
// file lists into a run that calls nothing (runs import takes one file of
// a format); synth writes files and makes no run.
func (Task) Commands(h bench.Host) []*cobra.Command {
	return []*cobra.Command{newJudgeCmd(h), newImportCmd(h), newSynthCmd(h)}
}

type runOptions struct {
	Models, Judges       string
	Samples              int
	Temperature          float64
	ProviderDefaultTemp  bool
	JudgeTemperature     float64
	JudgeProviderDefault bool
	Structured           bool
	MaxTokens            int
	Claims, Templates    string
	Name                 string
	Pilot                int
	Select               bench.Selection
}

// loadBenchmark is the embedded benchmark, with the user's claims or
// templates in place of its own.
func loadBenchmark(claims, templates string) (*Benchmark, error) {
	b, err := Default()
	if err != nil {
		return nil, err
	}
	if claims != "" {
		if b.Claims, err = parseFile(claims, "claims", ParseClaims); err != nil {
			return nil, err
		}
	}
	if templates != "" {
		if b.Templates, err = parseFile(templates, "templates", ParseTemplates); err != nil {
			return nil, err
		}
	}
	return b, b.Validate()
}

// parseFile opens path and parses it; what names the flag in errors.
func parseFile[T any](path, what string, parse func(io.Reader, string) (T, error)) (T, error) {
	f, err := os.Open(path)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("%s: %w", what, err)
	}
	defer f.Close()
	return parse(f, path)
}

// parseSpecs parses a flag's comma-separated provider:model list.
func parseSpecs(flag, value string) ([]llm.Spec, error) {
	specs, err := llm.ParseSpecs(value)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", flag, err)
	}
	return specs, nil
}

// Help implements bench.Helps.
func (Task) Help(verb string) bench.Help {
	switch verb {
	case "run":
		return bench.Help{Short: "Generate the grid models × claims × templates × samples, then judge every valid output",
			Example: `  fallacylab deflect run --models openai:gpt-4.1,anthropic:claude-sonnet-4-5 \
      --judges anthropic:claude-haiku-4-5,openai:gpt-4.1-mini --samples 5
  fallacylab deflect run --models ollama:llama3.1 --judges openai:gpt-4.1-mini --samples 1 --dry-run`}
	case "report":
		return bench.Help{Short: "Every table of the paper with block-bootstrap CIs, from a stored run or upstream JSONL files",
			Example: `  fallacylab deflect report --format md
  fallacylab deflect report --run 3 --format html --out report.html
  fallacylab deflect report --generations gens.jsonl --evals evals.jsonl --compat deflectbench-code --format json`,
			Makes: "fallacylab deflect run` or `deflect import"}
	}
	return bench.Help{}
}

// OwnInput implements bench.OwnInput: the claims and templates are
// embedded, or the user's files (--claims, --templates); no data folder.
func (Task) OwnInput() {}

// BindRun implements bench.Runs: the generation phase, then the judging
// of every valid generation by each judge.
func (Task) BindRun(f *pflag.FlagSet) func(ctx context.Context, env bench.Env) (runner.Spec, error) {
	o := runOptions{Samples: 5, Temperature: 1, JudgeTemperature: 0}
	f.StringVar(&o.Models, "models", "", "models to evaluate, comma-separated provider:model")
	f.StringVar(&o.Judges, "judges", "", "judge models, comma-separated (two for agreement statistics)")
	f.IntVar(&o.Samples, "samples", o.Samples, "runs per (claim, template)")
	f.Float64Var(&o.Temperature, "temperature", o.Temperature, "generation temperature")
	f.BoolVar(&o.ProviderDefaultTemp, "provider-default-temperature", false, "send no generation temperature (upstream's Anthropic behaviour)")
	f.Float64Var(&o.JudgeTemperature, "judge-temperature", o.JudgeTemperature, "judge temperature (the paper's 0)")
	f.BoolVar(&o.JudgeProviderDefault, "judge-provider-default-temperature", false, "send no judge temperature (what upstream's Anthropic judge did)")
	f.BoolVar(&o.Structured, "structured", false, "ask judges for the 8-field JSON schema as structured output")
	f.IntVar(&o.MaxTokens, "max-tokens", 0, "generation token limit (0: provider default; Anthropic gets upstream's 2048)")
	f.StringVar(&o.Claims, "claims", "", "your own claims (JSONL or YAML) instead of the embedded 80")
	f.StringVar(&o.Templates, "templates", "", "your own templates (JSONL or YAML) instead of the embedded 15")
	f.StringVar(&o.Name, "name", "deflect", "run name")
	f.IntVar(&o.Pilot, "pilot", 0, "run only N claims, spread over the levels; the full run later reuses their calls from the cache")
	o.Select.Flags(f, "claims")
	return func(ctx context.Context, env bench.Env) (runner.Spec, error) { return runSpec(env, o) }
}

// runSpec is the run the flags ask for.
func runSpec(env bench.Env, o runOptions) (runner.Spec, error) {
	models, err := parseSpecs("models", o.Models)
	if err != nil {
		return runner.Spec{}, err
	}
	judges, err := parseSpecs("judges", o.Judges)
	if err != nil {
		return runner.Spec{}, err
	}
	if len(models) == 0 || len(judges) == 0 {
		return runner.Spec{}, fmt.Errorf("deflect run needs --models and --judges, e.g. --models openai:gpt-4.1 --judges anthropic:claude-haiku-4-5")
	}
	b, err := loadBenchmark(o.Claims, o.Templates)
	if err != nil {
		return runner.Spec{}, err
	}
	if o.Pilot < 0 {
		return runner.Spec{}, fmt.Errorf("--pilot %d: want a number of claims", o.Pilot)
	}
	if o.Pilot >= len(b.Claims) {
		// Every claim is no pilot: it was the full run, paid in full, as a
		// run of its own.
		return runner.Spec{}, fmt.Errorf("--pilot %d: the run has %d claims, and a pilot takes fewer (leave --pilot out for the full run)", o.Pilot, len(b.Claims))
	}
	if o.Pilot > 0 && (o.Select.Limit > 0 || o.Select.IDs != "") {
		return runner.Spec{}, fmt.Errorf("--pilot picks claims spread over the levels; --limit and --sample-id pick them by order or id: use one")
	}
	b.Claims = Pilot(b.Claims, o.Pilot)
	if b.Claims, err = bench.Select(o.Select, "claims", b.Claims, func(c Claim) string { return c.ID }); err != nil {
		return runner.Spec{}, err
	}
	gopt := GenOptions{Models: models, Samples: o.Samples, MaxTokens: o.MaxTokens}
	if !o.ProviderDefaultTemp {
		gopt.Temperature = llm.Temp(o.Temperature)
	}
	jopt := judgeOptions(judges, o.Structured, o.JudgeProviderDefault, o.JudgeTemperature)
	genPlan, err := b.GenerationPlan(gopt)
	if err != nil {
		return runner.Spec{}, err
	}
	gens := map[string]Generation{}
	gen := Definition.Phase("generation").Run(genPlan)
	gen.Dry = func(context.Context) (engine.Plan, string, error) { return genPlan, "generation:", nil }
	gen.Announce = func(runID int64, p engine.Plan) string {
		return fmt.Sprintf("run %d: generating %d responses", runID, p.Len)
	}
	gen.OnResult = func(r engine.Result) {
		if gen, ok := GenerationFromResult(r); ok {
			gens[gen.GenID] = gen
		}
	}
	gen.Records = func(ctx context.Context, runID int64) error {
		// An interrupted run keeps what it answered: --allow-incomplete
		// reports it, and the resume writes them all again.
		return SaveGens(ctx, env.Records, runID, sortedGens(gens))
	}
	judging := judgingPhase(env.Records, b, func() []Generation { return sortedGens(gens) }, jopt)
	judging.Dry = func(ctx context.Context) (engine.Plan, string, error) {
		judgePlan, projected, err := projectedJudgePlan(ctx, env.Stored, b, genPlan, jopt, o.MaxTokens)
		return judgePlan, fmt.Sprintf("judging (%s × each valid generation; %d generations not made yet are priced at their expected length):", judgesOf(len(judges)), projected), err
	}
	return runner.Spec{Name: o.Name, Options: o,
		Identity: []any{engine.Digest(genPlan), jopt}, Specs: append(append([]llm.Spec(nil), models...), judges...),
		Phases: []runner.Phase{gen, judging},
		DryTotal: func(ests []engine.Estimate) {
			total, known := 0.0, true
			for _, e := range ests {
				total, known = total+e.Cost, known && e.CostKnown
			}
			unknown := ""
			if !known {
				unknown = " + unknown"
			}
			fmt.Fprintf(env.Stdout, "total estimated cost (generation + judging): $%.4f%s\n", total, unknown)
		},
		Done: func(ctx context.Context, runID int64, exit error) error {
			if exit == nil {
				keepReport(ctx, env, runID)
			}
			return exit
		}}, nil
}

// judgeOptions are the judges' options their flags ask for: no
// temperature sent when the provider's default is asked for.
func judgeOptions(judges []llm.Spec, structured, providerDefault bool, temperature float64) JudgeOptions {
	jopt := JudgeOptions{Judges: judges, Structured: structured}
	if !providerDefault {
		jopt.Temperature = llm.Temp(temperature)
	}
	return jopt
}

// judgingPhase judges the valid generations of a run (gens, once the
// phases before have run) with every judge and saves the evaluations with
// the run.
func judgingPhase(recs bench.Records, b *Benchmark, gens func() []Generation, jopt JudgeOptions) runner.Phase {
	var evals []Eval
	p := Definition.Phase("judging").Run(engine.Plan{})
	p.Planner = func(context.Context) (engine.Plan, error) { return b.JudgePlan(gens(), jopt) }
	p.Announce = func(runID int64, plan engine.Plan) string {
		return fmt.Sprintf("run %d: judging %d responses with %s", runID, plan.Len/len(jopt.Judges), judgesOf(len(jopt.Judges)))
	}
	p.OnResult = func(r engine.Result) {
		if e, ok := EvalFromResult(r); ok {
			evals = append(evals, e)
		}
	}
	p.Records = func(ctx context.Context, runID int64) error {
		// Unusable answers are records too (with their parse error): the
		// report's judge audit shows them. An interrupted run keeps the
		// judgements it has.
		sort.Slice(evals, func(i, j int) bool { return evals[i].EvalID < evals[j].EvalID })
		return SaveEvals(ctx, recs, runID, evals)
	}
	return p
}

func sortedGens(m map[string]Generation) []Generation {
	out := make([]Generation, 0, len(m))
	for _, g := range m {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GenID < out[j].GenID })
	return out
}

// judgesOf is "1 judge" or "2 judges".
func judgesOf(n int) string {
	if n == 1 {
		return "1 judge"
	}
	return fmt.Sprintf("%d judges", n)
}
