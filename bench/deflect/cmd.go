package deflect

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/spf13/cobra"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/reportcache"
	"github.com/fallacylab/fallacylab/runner"
)

// Task is DeflectBench as the registry holds it.
type Task struct{}

// Definition implements bench.Task.
func (Task) Definition() *bench.Benchmark { return Definition }

// What the Task implements, checked by the compiler (Caddy's interface
// guards).
var (
	_ bench.Commands = Task{}
	_ bench.Views    = Task{}
	_ bench.Previews = Task{}
)

var _ = bench.RegisterTask(Task{})

// Commands implements bench.Commands: DeflectBench's run (generation then
// judging), a new judge panel over a stored run, the report, the import of
// upstream files and the synthetic run.
func (Task) Commands(h bench.Host) []*cobra.Command {
	return []*cobra.Command{newRunCmd(h), newJudgeCmd(h), newReportCmd(h), newImportCmd(h), newSynthCmd(h)}
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

func newRunCmd(h bench.Host) *cobra.Command {
	o := runOptions{Samples: 5, Temperature: 1, JudgeTemperature: 0}
	cmd := &cobra.Command{
		Use:         "run",
		Annotations: bench.CallsModels(),
		Short:       "Generate the grid models × claims × templates × samples, then judge every valid output",
		Example: `  fallacylab deflect run --models openai:gpt-4.1,anthropic:claude-sonnet-4-5 \
      --judges anthropic:claude-haiku-4-5,openai:gpt-4.1-mini --samples 5
  fallacylab deflect run --models ollama:llama3.1 --judges openai:gpt-4.1-mini --samples 1 --dry-run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return run(cmd.Context(), h, o) },
	}
	f := cmd.Flags()
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
	return cmd
}

func run(ctx context.Context, h bench.Host, o runOptions) error {
	models, err := parseSpecs("models", o.Models)
	if err != nil {
		return err
	}
	judges, err := parseSpecs("judges", o.Judges)
	if err != nil {
		return err
	}
	if len(models) == 0 || len(judges) == 0 {
		return fmt.Errorf("deflect run needs --models and --judges, e.g. --models openai:gpt-4.1 --judges anthropic:claude-haiku-4-5")
	}
	b, err := loadBenchmark(o.Claims, o.Templates)
	if err != nil {
		return err
	}
	if o.Pilot < 0 {
		return fmt.Errorf("--pilot %d: want a number of claims", o.Pilot)
	}
	if o.Pilot > 0 && (o.Select.Limit > 0 || o.Select.IDs != "") {
		return fmt.Errorf("--pilot picks claims spread over the levels; --limit and --sample-id pick them by order or id: use one")
	}
	b.Claims = Pilot(b.Claims, o.Pilot)
	if b.Claims, err = bench.Select(o.Select, "claims", b.Claims, func(c Claim) string { return c.ID }); err != nil {
		return err
	}
	gopt := GenOptions{Models: models, Samples: o.Samples, MaxTokens: o.MaxTokens}
	if !o.ProviderDefaultTemp {
		gopt.Temperature = llm.Temp(o.Temperature)
	}
	jopt := judgeOptions(judges, o.Structured, o.JudgeProviderDefault, o.JudgeTemperature)
	genPlan, err := b.GenerationPlan(gopt)
	if err != nil {
		return err
	}
	s, err := h.Open(ctx, true)
	if err != nil {
		return err
	}
	defer s.Close()
	recs := s.Env("").Records
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
		return SaveGens(ctx, recs, runID, sortedGens(gens))
	}
	judging := judgingPhase(recs, b, func() []Generation { return sortedGens(gens) }, jopt)
	judging.Dry = func(ctx context.Context) (engine.Plan, string, error) {
		judgePlan, projected, err := projectedJudgePlan(ctx, s, b, genPlan, jopt, o.MaxTokens)
		return judgePlan, fmt.Sprintf("judging (%d judges × each valid generation; %d generations not made yet are priced at their expected length):", len(judges), projected), err
	}
	stdout := h.Settings().Stdout
	_, err = s.Run(ctx, runner.Spec{Name: o.Name, Options: o,
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
			fmt.Fprintf(stdout, "total estimated cost (generation + judging): $%.4f%s\n", total, unknown)
		},
		Done: func(ctx context.Context, runID int64, exit error) error { return done(ctx, h, s, runID, exit) }})
	return err
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
		return fmt.Sprintf("run %d: judging %d responses with %d judges", runID, plan.Len/len(jopt.Judges), len(jopt.Judges))
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

// done follows a finished run: the report with the default options, from
// the stored records, is made ready for the first `deflect report` or
// viewer page (under a second at the end of a run of hours), and the user
// told how to see it.
func done(ctx context.Context, h bench.Host, s bench.Session, runID int64, exit error) error {
	if exit != nil {
		return exit
	}
	brief := h.Settings().StdoutTTY
	if reportcache.Enabled() || brief {
		if d, err := LoadScores(ctx, s.Env("").Records, runID); err == nil {
			if rep, err := Analyze(d, DefaultAnalysis()); err == nil {
				if reportcache.Enabled() {
					keepReport(ctx, s, runID, rep)
				}
				// A person at a terminal sees the headline figures first.
				if brief && report.Brief(h.Settings().Stdout, rep) {
					fmt.Fprintln(h.Settings().Stdout)
				}
			}
		}
	}
	fmt.Fprintf(h.Settings().Stdout, "run %d done. The whole report: fallacylab deflect report --run %d (--format md, html, csv, json or tex; --out FILE)\n", runID, runID)
	return nil
}

// keepReport leaves a finished run's report with the default options in
// the report cache, under the key `deflect report` and the viewer ask with.
// It is only a head start: if it cannot be kept, the report is made then.
func keepReport(ctx context.Context, s bench.Session, runID int64, rep *report.Report) {
	if r, err := s.Pick(ctx, runID, true, Definition.Title, nil, ""); err == nil {
		reportcache.Put(reportcache.RunKey(s.Where(), r, DefaultAnalysis().Identity()...), rep)
	}
}

func sortedGens(m map[string]Generation) []Generation {
	out := make([]Generation, 0, len(m))
	for _, g := range m {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GenID < out[j].GenID })
	return out
}

// pickRun is the DeflectBench run to read (runID 0: the newest).
func pickRun(ctx context.Context, s bench.Session, runID int64, allowIncomplete bool) (int64, error) {
	r, err := s.Pick(ctx, runID, allowIncomplete, Definition.Title, nil, "fallacylab deflect run` or `deflect import")
	return r.ID, err
}
