package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/internal/outfile"
	"github.com/fallacylab/fallacylab/runner"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/fallacylab/fallacylab/store"

	"github.com/fallacylab/fallacylab/bench/deflect"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/internal/backend"
	"github.com/fallacylab/fallacylab/internal/reportcache"
	"github.com/fallacylab/fallacylab/judge"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/report"
	"github.com/spf13/cobra"
)

type deflectRunOptions struct {
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

func newDeflectCmd(g *Global) *cobra.Command {
	cmd := &cobra.Command{Use: "deflect", Short: "DeflectBench: do models generate whataboutism, ad hominem and red herrings when asked?"}
	cmd.AddCommand(newDeflectRunCmd(g), newDeflectJudgeCmd(g), newDeflectReportCmd(g), newDeflectImportCmd(g), newDeflectSynthCmd(g))
	return cmd
}

func loadBenchmark(claims, templates string) (*deflect.Benchmark, error) {
	b, err := deflect.Default()
	if err != nil {
		return nil, err
	}
	if claims != "" {
		if b.Claims, err = parseFile(claims, "claims", deflect.ParseClaims); err != nil {
			return nil, err
		}
	}
	if templates != "" {
		if b.Templates, err = parseFile(templates, "templates", deflect.ParseTemplates); err != nil {
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

func newDeflectRunCmd(g *Global) *cobra.Command {
	o := deflectRunOptions{Samples: 5, Temperature: 1, JudgeTemperature: 0}
	cmd := &cobra.Command{
		Use:         "run",
		Annotations: callsModels(),
		Short:       "Generate the grid models × claims × templates × samples, then judge every valid output",
		Example: `  fallacylab deflect run --models openai:gpt-4.1,anthropic:claude-sonnet-4-5 \
      --judges anthropic:claude-haiku-4-5,openai:gpt-4.1-mini --samples 5
  fallacylab deflect run --models ollama:llama3.1 --judges openai:gpt-4.1-mini --samples 1 --dry-run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return deflectRun(cmd.Context(), g, cmd, o)
		},
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

func deflectRun(ctx context.Context, g *Global, cmd *cobra.Command, o deflectRunOptions) error {
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
	b.Claims = deflect.Pilot(b.Claims, o.Pilot)
	if b.Claims, err = bench.Select(o.Select, "claims", b.Claims, func(c deflect.Claim) string { return c.ID }); err != nil {
		return err
	}
	gopt := deflect.GenOptions{Models: models, Samples: o.Samples, MaxTokens: o.MaxTokens}
	if !o.ProviderDefaultTemp {
		gopt.Temperature = llm.Temp(o.Temperature)
	}
	jopt := deflect.JudgeOptions{Judges: judges, Structured: o.Structured}
	if !o.JudgeProviderDefault {
		jopt.Temperature = llm.Temp(o.JudgeTemperature)
	}
	genPlan, err := b.GenerationPlan(gopt)
	if err != nil {
		return err
	}
	s, err := openSession(g)
	if err != nil {
		return err
	}
	defer s.Close()
	gens := map[string]deflect.Generation{}
	gen := phaseOf(deflect.Definition.Phase("generation"), genPlan)
	gen.Dry = func(context.Context) (engine.Plan, string, error) { return genPlan, "generation:", nil }
	gen.Announce = func(runID int64, p engine.Plan) string {
		return fmt.Sprintf("run %d: generating %d responses", runID, p.Len)
	}
	gen.OnResult = func(r engine.Result) {
		if gen, ok := deflect.GenerationFromResult(r); ok {
			gens[gen.GenID] = gen
		}
	}
	gen.Records = func(ctx context.Context, runID int64) error {
		// An interrupted run keeps what it answered: --allow-incomplete
		// reports it, and the resume writes them all again.
		return deflect.SaveGens(ctx, s.st, runID, sortedGens(gens))
	}
	judging := judgingPhase(s, b, func() []deflect.Generation { return sortedGens(gens) }, jopt)
	judging.Dry = func(ctx context.Context) (engine.Plan, string, error) {
		judgePlan, projected, err := projectedJudgePlan(ctx, s, b, genPlan, jopt, o.MaxTokens)
		return judgePlan, fmt.Sprintf("judging (%d judges × each valid generation; %d generations not made yet are priced at their expected length):", len(judges), projected), err
	}
	_, err = s.runner().Run(ctx, runner.Spec{Name: o.Name, Benchmark: deflect.Definition.Name, Args: os.Args[1:], Options: o,
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
			fmt.Fprintf(g.Stdout, "total estimated cost (generation + judging): $%.4f%s\n", total, unknown)
		},
		Done: func(ctx context.Context, runID int64, exit error) error { return deflectDone(ctx, s, runID, exit) }})
	return err
}

// judgingPhase judges the valid generations of a run (gens, once the
// phases before have run) with every judge and saves the evaluations with
// the run.
func judgingPhase(s *session, b *deflect.Benchmark, gens func() []deflect.Generation, jopt deflect.JudgeOptions) runner.Phase {
	var evals []deflect.Eval
	p := phaseOf(deflect.Definition.Phase("judging"), engine.Plan{})
	p.Planner = func(context.Context) (engine.Plan, error) { return b.JudgePlan(gens(), jopt) }
	p.Announce = func(runID int64, plan engine.Plan) string {
		return fmt.Sprintf("run %d: judging %d responses with %d judges", runID, plan.Len/len(jopt.Judges), len(jopt.Judges))
	}
	p.OnResult = func(r engine.Result) {
		if e, ok := deflect.EvalFromResult(r); ok {
			evals = append(evals, e)
		}
	}
	p.Records = func(ctx context.Context, runID int64) error {
		// Unusable answers are records too (with their parse error): the
		// report's judge audit shows them. An interrupted run keeps the
		// judgements it has.
		sort.Slice(evals, func(i, j int) bool { return evals[i].EvalID < evals[j].EvalID })
		return deflect.SaveEvals(ctx, s.st, runID, evals)
	}
	return p
}

// deflectDone follows a finished DeflectBench run: the report with the
// default options, from the stored records, is made ready for the first
// `deflect report` or viewer page (under a second at the end of a run of
// hours), and the user told how to see it.
func deflectDone(ctx context.Context, s *session, runID int64, exit error) error {
	if exit != nil {
		return exit
	}
	if reportcache.Enabled() {
		if d, err := deflect.LoadScores(ctx, s.st, runID); err == nil {
			if rep, err := deflect.Analyze(d, defaultAnalysis()); err == nil {
				keepReport(ctx, s, runID, rep)
			}
		}
	}
	fmt.Fprintf(s.g.Stdout, "run %d done: report with  fallacylab deflect report --run %d\n", runID, runID)
	return nil
}

// keepReport leaves a finished run's report with the default options in
// the report cache, under the key `deflect report` and the viewer ask with.
// It is only a head start: if it cannot be kept, the report is made then.
func keepReport(ctx context.Context, s *session, runID int64, rep *report.Report) {
	if r, ok, err := s.st.Run(ctx, runID); err == nil && ok {
		reportcache.Put(reportcache.RunKey(s.st.Path(), r, defaultAnalysis().Identity()...), rep)
	}
}

func sortedGens(m map[string]deflect.Generation) []deflect.Generation {
	out := make([]deflect.Generation, 0, len(m))
	for _, g := range m {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GenID < out[j].GenID })
	return out
}

// loadRun reads a DeflectBench run's records (runID 0: the newest run); a
// run that did not finish is refused unless allowIncomplete.
func loadRun(ctx context.Context, st backend.Store, runID int64, allowIncomplete bool) (deflect.Dataset, int64, error) {
	r, err := pickDeflect(ctx, st, runID, allowIncomplete)
	if err != nil {
		return deflect.Dataset{}, 0, err
	}
	d, err := deflect.LoadRecords(ctx, st, r.ID)
	return d, r.ID, err
}

// pickDeflect is the DeflectBench run to read (runID 0: the newest).
func pickDeflect(ctx context.Context, st backend.Store, runID int64, allowIncomplete bool) (store.Run, error) {
	return pick(ctx, st, deflect.Definition, deflect.Definition.Title, runID, allowIncomplete, nil, "fallacylab deflect run` or `deflect import")
}

type deflectReportOptions struct {
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
func defaultReportOptions() deflectReportOptions {
	return deflectReportOptions{Format: "md", Consensus: "any", Seed: 20260101, Resamples: 1000, MinClusters: deflect.DefaultMinClusters}
}

// defaultAnalysis is the analysis `deflect report` makes with its defaults.
func defaultAnalysis() deflect.Options {
	// The defaults always parse; the report-cache tests compare this
	// analysis with `deflect report`'s own.
	opts, _ := defaultReportOptions().analysis()
	return opts
}

// analysis is the deflect.Analyze options the report's flags ask for.
func (o deflectReportOptions) analysis() (deflect.Options, error) {
	if o.Compat != "" {
		if o.Compat != "deflectbench-code" {
			return deflect.Options{}, fmt.Errorf("--compat %q: the only mode is deflectbench-code", o.Compat)
		}
		o.Consensus = o.Compat
	}
	mode, err := judge.ParseMode(o.Consensus)
	if err != nil {
		return deflect.Options{}, err
	}
	if o.MinClusters == 0 {
		o.MinClusters = -1 // 0 means no minimum here, as negative does
	}
	opts := deflect.Options{Mode: mode, Seed: o.Seed, Resamples: o.Resamples, MinClusters: o.MinClusters}
	return opts, nil
}

func newDeflectReportCmd(g *Global) *cobra.Command {
	o := defaultReportOptions()
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Every table of the paper with block-bootstrap CIs, from a stored run or upstream JSONL files",
		Example: `  fallacylab deflect report --format md
  fallacylab deflect report --run 3 --format html --out report.html
  fallacylab deflect report --generations gens.jsonl --evals evals.jsonl --compat deflectbench-code --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return deflectReport(cmd.Context(), g, o) },
	}
	f := cmd.Flags()
	f.Int64Var(&o.Run, "run", 0, "run id (default: the latest DeflectBench run in the store)")
	f.BoolVar(&o.AllowIncomplete, "allow-incomplete", false, "report a run that did not finish (interrupted, failed, incomplete) from the records it has")
	f.StringVar(&o.Generations, "generations", "", "read upstream-format generations JSONL instead of the store (a comma-separated list or glob: one file per model)")
	f.StringVar(&o.Evals, "evals", "", "upstream-format evals JSONL (with --generations; may be a comma-separated list)")
	f.StringVar(&o.Format, "format", o.Format, "md, csv, json, tex or html")
	f.StringVar(&o.Out, "out", "", "output file, or a directory (one file per table for csv); default stdout")
	f.StringVar(&o.Consensus, "consensus", o.Consensus, "judge consensus: any, all, mean or deflectbench-code")
	f.StringVar(&o.Compat, "compat", "", "deflectbench-code: reproduce the released code's semantics exactly")
	f.Uint64Var(&o.Seed, "seed", o.Seed, "bootstrap seed")
	f.IntVar(&o.Resamples, "resamples", o.Resamples, "bootstrap resamples")
	f.IntVar(&o.MinClusters, "min-clusters", o.MinClusters, "show a cell's bootstrap interval only when its rows come from at least this many claims (0: always)")
	return cmd
}

// readDatasetFiles reads upstream-format generations and evals: each flag a
// comma-separated list of files and globs (upstream writes one generations
// file per model). Duplicates are dropped, keeping the first, and said.
// forAnalysis skips the judges' reasoning and raw answers, which only an
// import keeps.
func readDatasetFiles(g *Global, gensPaths, evalsPaths string, forAnalysis bool) (deflect.Dataset, error) {
	var d deflect.Dataset
	var err error
	var files int
	if d.Gens, files, err = readGenerationFiles(gensPaths); err != nil {
		return d, err
	}
	if d.Evals, err = readEvalFiles(evalsPaths, forAnalysis); err != nil {
		return d, err
	}
	return dedupeDataset(g, d, files), nil
}

// readGenerationFiles reads the generations files (files or globs,
// comma-separated), and says how many files there were.
func readGenerationFiles(paths string) ([]deflect.Generation, int, error) {
	files, err := expandPaths("generations", paths)
	if err != nil {
		return nil, 0, err
	}
	var out []deflect.Generation
	for _, p := range files {
		got, err := readFileWith(p, func(r io.Reader) ([]deflect.Generation, error) { return deflect.ReadGenerationsFrom(r, p) })
		if err != nil {
			return nil, 0, err
		}
		out = append(out, got...)
	}
	return out, len(files), nil
}

// readEvalFiles reads the evals files.
func readEvalFiles(paths string, forAnalysis bool) ([]deflect.Eval, error) {
	files, err := expandPaths("evals", paths)
	if err != nil {
		return nil, err
	}
	var out []deflect.Eval
	for _, p := range files {
		ev, err := readFileWith(p, func(r io.Reader) ([]deflect.Eval, error) { return deflect.ReadEvalsFrom(r, p, forAnalysis) })
		if err != nil {
			return nil, err
		}
		out = append(out, ev...)
	}
	return out, nil
}

// dedupeDataset drops repeated records as upstream does, saying so, and
// says how many generations the genFiles files held.
func dedupeDataset(g *Global, d deflect.Dataset, genFiles int) deflect.Dataset {
	d, dg, de := deflect.Dedupe(d)
	sayRead(g, dg, de, genFiles, len(d.Gens))
	return d
}

// sayRead says what reading the files dropped, and how many generations
// the genFiles files held.
func sayRead(g *Global, droppedGens, droppedEvals, genFiles, gens int) {
	if droppedGens > 0 || droppedEvals > 0 {
		fmt.Fprintf(g.Stderr, "dropped %d duplicate generations and %d duplicate evals (same gen_id; same gen_id and judge): the first of each is kept, as upstream does\n", droppedGens, droppedEvals)
	}
	if genFiles > 1 {
		fmt.Fprintf(g.Stderr, "read %d generations files (%d generations)\n", genFiles, gens)
	}
}

// readFileWith opens path and reads it with read.
func readFileWith[T any](path string, read func(io.Reader) ([]T, error)) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f)
}

// expandPaths splits a comma-separated list of files and globs; a glob that
// matches nothing is an error.
func expandPaths(what, list string) ([]string, error) {
	var out []string
	for _, p := range strings.Split(list, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if !strings.ContainsAny(p, "*?[") {
			out = append(out, p)
			continue
		}
		m, err := filepath.Glob(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %q: %w", what, p, err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("%s: %q matches no file", what, p)
		}
		out = append(out, m...)
	}
	return out, nil
}

func deflectReport(ctx context.Context, g *Global, o deflectReportOptions) error {
	format, err := report.ParseFormat(o.Format)
	if err != nil {
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
		d, err := readDatasetFiles(g, o.Generations, o.Evals, true)
		if err != nil {
			return err
		}
		source = o.Generations
		if rep, err = deflect.Analyze(d, opts); err != nil {
			return err
		}
	} else {
		s, err := openBrowse(g)
		if err != nil {
			return err
		}
		defer s.Close()
		r, err := pickDeflect(ctx, s.st, o.Run, o.AllowIncomplete)
		if err != nil {
			return err
		}
		// The analysis of these records with these options may be cached
		// (outside the store): the same report again, or in another
		// format, is read back.
		rep, err = reportcache.GetOrMake(reportcache.RunKey(s.st.Path(), r, opts.Identity()...), func() (*report.Report, error) {
			d, err := deflect.LoadScores(ctx, s.st, r.ID)
			if err != nil {
				return nil, err
			}
			return deflect.Analyze(d, opts)
		}, func(err error) { fmt.Fprintf(g.Stderr, "note: report cache: %v (the report is not kept)\n", err) })
		if err != nil {
			return err
		}
		source = fmt.Sprintf("run %d in %s", r.ID, s.st.Path())
		fromRun = func(rep *report.Report) error {
			addPartial(r, rep)
			if err := addUnusable(ctx, s.st, r.ID, rep); err != nil {
				return err
			}
			return addStudies(ctx, s.st, r.ID, rep)
		}
	}
	rep.Meta = append([][2]string{{"source", source}, {"fallacylab", Version()}}, rep.Meta...)
	if fromRun != nil {
		if err := fromRun(rep); err != nil {
			return err
		}
	}
	return writeReport(g, rep, format, o.Out)
}

// writeReport renders to stdout, a file (atomically) or, for csv and a
// directory, one file per table.
func writeReport(g *Global, rep *report.Report, f report.Format, out string) error {
	if out == "" || out == "-" {
		return report.Render(g.Stdout, rep, f)
	}
	if st, err := os.Stat(out); (err == nil && st.IsDir()) || strings.HasSuffix(out, string(filepath.Separator)) {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
		if f == report.CSV {
			for _, t := range rep.Tables() {
				if err := outfile.Write(g.Stdout, filepath.Join(out, t.ID+".csv"), func(w io.Writer) error { return report.RenderCSVTable(w, t) }); err != nil {
					return err
				}
			}
			fmt.Fprintf(g.Stderr, "wrote %d tables to %s\n", len(rep.Tables()), out)
			return nil
		}
		out = filepath.Join(out, "report."+string(f))
	}
	var buf bytes.Buffer
	if err := report.Render(&buf, rep, f); err != nil {
		return err
	}
	if err := outfile.Write(g.Stdout, out, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
		return err
	}
	fmt.Fprintf(g.Stderr, "wrote %s\n", out)
	return nil
}

func newDeflectImportCmd(g *Global) *cobra.Command {
	var gens, evals, name string
	cmd := &cobra.Command{
		Use:     "import",
		Short:   "Store published upstream-format generations and evals as a run, to re-analyse them",
		Example: `  fallacylab deflect import --generations generations_gpt_5_5.jsonl --evals evals_gpt_5_4_mini.jsonl,evals_claude_haiku_4_5_20251001.jsonl`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if gens == "" {
				return fmt.Errorf("--generations is required")
			}
			return importDeflect(cmd.Context(), g, gens, evals, name)
		},
	}
	cmd.Flags().StringVar(&gens, "generations", "", "generations JSONL (upstream format): files or globs, comma-separated (upstream writes one per model)")
	cmd.Flags().StringVar(&evals, "evals", "", "evals JSONL files or globs, comma-separated")
	cmd.Flags().StringVar(&name, "name", "deflect import", "run name")
	return cmd
}

// importDeflect stores upstream-format files as a run, in one transaction:
// the generations are parsed first, then written while the evals are parsed
// (on the other core), then the evals written. The files' digest (the
// run's identity) is taken while they are parsed. Bad input in either file
// leaves no run and no record.
func importDeflect(ctx context.Context, g *Global, gensPaths, evalsPaths, name string) error {
	digest := make(chan string, 1)
	go func() { digest <- importDigest(gensPaths, evalsPaths) }()
	gens, genFiles, err := readGenerationFiles(gensPaths)
	if err != nil {
		return err
	}
	type parsed struct {
		evals []deflect.Eval
		err   error
	}
	evalsRead := make(chan parsed, 1)
	go func() {
		ev, err := readEvalFiles(evalsPaths, false)
		evalsRead <- parsed{ev, err}
	}()
	evals := sync.OnceValue(func() parsed { return <-evalsRead })
	s, err := openSession(g)
	if err != nil {
		return err
	}
	defer s.Close()
	d := dedupeGens(gens)
	run, err := s.runner().Start(ctx, runner.Spec{Name: name, Benchmark: deflect.Definition.Name, Args: os.Args[1:], Options: map[string]string{"generations": gensPaths, "evals": evalsPaths},
		Identity: []any{<-digest}})
	if err != nil {
		return err
	}
	// The report with its default options is analysed on the other core
	// while the records are written, and left in the report cache: the
	// first `deflect report` (or viewer page) of the run reads it back
	// instead of analysing 72,000 records again.
	warm := make(chan *report.Report, 1)
	dataset := make(chan deflect.Dataset, 1)
	if reportcache.Enabled() {
		go func() {
			d, ok := <-dataset
			if !ok {
				warm <- nil
				return
			}
			rep, err := deflect.Analyze(d, defaultAnalysis())
			if err != nil {
				rep = nil // the report will say why
			}
			warm <- rep
		}()
	} else {
		warm <- nil
	}
	droppedEvals := 0
	err = deflect.SaveRecordsThen(ctx, s.st, run.ID, d.Gens, func() ([]deflect.Eval, error) {
		p := evals()
		if p.err != nil {
			return nil, p.err
		}
		var de deflect.Dataset
		de, _, droppedEvals = deflect.Dedupe(deflect.Dataset{Evals: p.evals})
		d.Evals = de.Evals
		dataset <- d
		return d.Evals, nil
	})
	close(dataset)
	if p := evals(); p.err != nil {
		// Bad input: nothing was written; the run it started goes too.
		<-warm
		if _, derr := s.st.DeleteRun(context.WithoutCancel(ctx), run.ID, false); derr != nil {
			return fmt.Errorf("%w (and the run %d it started could not be removed: %v)", p.err, run.ID, derr)
		}
		return p.err
	}
	sayRead(g, len(gens)-len(d.Gens), droppedEvals, genFiles, len(d.Gens))
	if err := run.Finish(ctx, err); err != nil {
		return err
	}
	if rep := <-warm; rep != nil {
		keepReport(ctx, s, run.ID, rep)
	}
	fmt.Fprintf(g.Stdout, "imported %d generations and %d evals as run %d: fallacylab deflect report --run %d\n", len(d.Gens), len(d.Evals), run.ID, run.ID)
	return nil
}

// dedupeGens drops repeated generations as upstream does (Dedupe).
func dedupeGens(gens []deflect.Generation) deflect.Dataset {
	d, _, _ := deflect.Dedupe(deflect.Dataset{Gens: gens})
	return d
}

func newDeflectSynthCmd(g *Global) *cobra.Command {
	var models, out string
	var samples int
	var seed uint64
	cmd := &cobra.Command{
		Use:   "synth",
		Short: "Write a synthetic full-scale run (upstream format) with known rates, for tests and benchmarks",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, _, err := deflect.Synthesize(deflect.SynthOptions{Models: strings.Split(models, ","), Samples: samples, Seed: seed, SoftFlip: 0.05, ErrorRate: 0.0005})
			if err != nil {
				return err
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			write := func(name string, n int, item func(i int) any) error {
				return outfile.Write(g.Stdout, filepath.Join(out, name), func(w io.Writer) error {
					enc := json.NewEncoder(w)
					for i := range n {
						if err := enc.Encode(item(i)); err != nil {
							return err
						}
					}
					return nil
				})
			}
			if err := write("generations.jsonl", len(d.Gens), func(i int) any { return d.Gens[i] }); err != nil {
				return err
			}
			if err := write("evals.jsonl", len(d.Evals), func(i int) any { return d.Evals[i] }); err != nil {
				return err
			}
			fmt.Fprintf(g.Stdout, "wrote %d generations and %d evals to %s\n", len(d.Gens), len(d.Evals), out)
			return nil
		},
	}
	cmd.Flags().StringVar(&models, "models", "claude-opus-4-7,deepseek-v4-pro,gpt-5.5,grok-4.3", "model names")
	cmd.Flags().IntVar(&samples, "samples", 5, "runs per condition")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "seed")
	cmd.Flags().StringVar(&out, "out-dir", "synthetic", "output directory")
	cmd.Flags().StringVar(&out, "out", "synthetic", "the same as --out-dir")
	cmd.Flags().MarkHidden("out")
	return cmd
}

// importDigest identifies an import by the contents of its files.
func importDigest(gens, evals string) string {
	g, _ := expandPaths("generations", gens)
	e, _ := expandPaths("evals", evals)
	return fileDigest(append(g, e...)...)
}

// fileDigest is the SHA-256 of the named files' contents (a file that cannot
// be read counts as its name).
func fileDigest(paths ...string) string {
	h := sha256.New()
	for _, p := range paths {
		f, err := os.Open(strings.TrimSpace(p))
		if err != nil {
			h.Write([]byte(p))
			continue
		}
		io.Copy(h, f)
		f.Close()
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}
