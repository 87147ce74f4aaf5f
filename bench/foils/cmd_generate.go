package foils

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/corpus"
	"github.com/fallacylab/fallacylab/outfile"
	"github.com/fallacylab/fallacylab/runner"
	"github.com/spf13/pflag"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
)

type foilsGenOptions struct {
	Corpus, Generator, Judge, DataDir, OutDir, Split string
	Seed                                             uint64
	Limit                                            int
	Temperature                                      float64
}

// GenerateTask is the generation of new Scheme Foils negatives as the
// registry holds it: a run of a generator and a cross-lineage judge whose
// kept items are written as the released files, its items stored as
// records (listed, reported); its commands are `fallacylab foils generate`
// and `fallacylab foils generate report`.
type GenerateTask struct{}

// Definition implements bench.Task.
func (GenerateTask) Definition() *bench.Benchmark { return GenerateDefinition }

var (
	_ bench.Runs    = GenerateTask{}
	_ bench.Nests   = GenerateTask{}
	_ bench.Reports = GenerateTask{}
	_ bench.Lists   = GenerateTask{}
	_ bench.Helps   = GenerateTask{}
)

var _ = bench.RegisterTask(GenerateTask{})

// Nest implements bench.Nests: `fallacylab foils generate`.
func (GenerateTask) Nest() (string, string) { return Definition.Name, "generate" }

// Help implements bench.Helps.
func (GenerateTask) Help(verb string) bench.Help {
	if verb == "report" {
		return bench.Help{Short: "Report a stored generation run: candidates, kept, dropped and flagged per condition",
			Makes: "fallacylab foils generate"}
	}
	return bench.Help{Short: "Build matched and wrong-scheme negatives for a corpus with a generator LLM and a cross-lineage judge",
		Long: `For each fallacious source item: one matched negative (same scheme, answers the critical question) and
one wrong-scheme negative (τ′ balanced over the other seven types under --seed). A judge of another
lineage checks each item; pairwise criteria are asked in both orders and pass only if both do.
Failing scheme fidelity or conclusion preservation (matched) or the scheme switch (wrong-scheme)
drops the item; other failures mark it needs_review. Flesch, length and overlap with the source are
recorded, never used to drop. Output: matched.csv and wrong.csv in the released format, for
fallacylab foils audit --matched … --wrong …; every candidate is stored with the run
(fallacylab foils generate report, and the viewer's list).`,
		Example: `  fallacylab foils generate --corpus argotario --generator gemini:gemini-2.5-flash --judge deepseek:deepseek-chat
  fallacylab foils generate report --format html --out generation.html`}
}

// BindRun implements bench.Runs: the generation, then the judging of
// every candidate; the kept ones written to --out-dir when the run ends.
func (GenerateTask) BindRun(f *pflag.FlagSet) func(ctx context.Context, env bench.Env) (runner.Spec, error) {
	o := foilsGenOptions{Corpus: "argotario", OutDir: "foils-generated", Seed: 1, Temperature: 0.7}
	f.StringVar(&o.Corpus, "corpus", o.Corpus, "source corpus")
	f.StringVar(&o.Generator, "generator", "", "generator model provider:model")
	f.StringVar(&o.Judge, "judge", "", "judge model provider:model (use another lineage than the generator)")
	f.StringVar(&o.OutDir, "out-dir", o.OutDir, "output directory")
	f.StringVar(&o.Split, "split", "", "use only this split of the corpus (default all)")
	f.Uint64Var(&o.Seed, "seed", o.Seed, "seed of the τ′ assignment")
	f.IntVar(&o.Limit, "limit", 0, "at most this many source items per type (0: all)")
	f.Float64Var(&o.Temperature, "temperature", o.Temperature, "generator temperature")
	return func(ctx context.Context, env bench.Env) (runner.Spec, error) {
		o.DataDir = env.DataFlag // part of the run's identity, as it always was
		return generateSpec(env, o)
	}
}

// generateSpec is the generation run the options ask for.
func generateSpec(env bench.Env, o foilsGenOptions) (runner.Spec, error) {
	gen, err := llm.ParseSpec(o.Generator)
	if err != nil {
		return runner.Spec{}, fmt.Errorf("--generator: %w", err)
	}
	judge, err := llm.ParseSpec(o.Judge)
	if err != nil {
		return runner.Spec{}, fmt.Errorf("--judge: %w", err)
	}
	if gen.Provider == judge.Provider {
		fmt.Fprintf(env.Stderr, "warning: generator and judge are both from %s; the method asks for a judge of another lineage\n", gen.Provider)
	}
	items, err := loadCorpus(o.Corpus, env.Data, corpus.LoadOptions{})
	if err != nil {
		return runner.Spec{}, err
	}
	if o.Split != "" {
		items = Split(items, o.Split)
	}
	as := AssignTargets(items, o.Seed)
	if o.Limit > 0 {
		per := map[string]int{}
		var kept []Assignment
		for _, a := range as {
			if per[a.Item.Gold] < o.Limit {
				per[a.Item.Gold]++
				kept = append(kept, a)
			}
		}
		as = kept
	}
	if len(as) == 0 {
		return runner.Spec{}, fmt.Errorf("corpus %s has no fallacious items in the eight types", o.Corpus)
	}
	genPlan := GenerationPlan(as, gen, llm.Temp(o.Temperature))
	id := o
	id.OutDir = ""
	byKey := map[string]Assignment{}
	for _, a := range as {
		byKey[fmt.Sprintf("%s#%d", a.Item.Gold, a.ID)] = a
	}
	var cands []Candidate
	generation := GenerateDefinition.Phase("generation").Run(genPlan)
	generation.OnResult = func(r engine.Result) {
		cond, typ, id, ok := GenKeyOf(r)
		if !ok {
			return
		}
		c := Candidate{Cond: cond, A: byKey[fmt.Sprintf("%s#%d", typ, id)], Key: r.Key}
		if r.Err != nil {
			c.Failed = r.Err.Error()
		} else {
			c.Text = r.Response.Text
		}
		cands = append(cands, c)
	}
	v := Verdicts{}
	judging := GenerateDefinition.Phase("judging").Run(engine.Plan{})
	judging.OnResult = v.Add
	judging.Planner = func(context.Context) (engine.Plan, error) {
		sort.Slice(cands, func(i, j int) bool {
			if cands[i].Cond != cands[j].Cond {
				return cands[i].Cond < cands[j].Cond
			}
			if cands[i].A.Item.Gold != cands[j].A.Item.Gold {
				return cands[i].A.Item.Gold < cands[j].A.Item.Gold
			}
			return cands[i].A.ID < cands[j].A.ID
		})
		return JudgePlan(cands, judge), nil
	}
	judging.Dry = func(context.Context) (engine.Plan, string, error) {
		return engine.Plan{}, fmt.Sprintf("judging: about %d more calls (7 per source item)", 7*len(as)), nil
	}
	judging.Records = func(ctx context.Context, runID int64) error {
		return saveGenerated(ctx, env.Records, runID, genSetup{Corpus: o.Corpus, Generator: gen.String(), Judge: judge.String()}, Filter(cands, v))
	}
	return runner.Spec{Name: "foils generate " + o.Corpus, Options: o, Identity: []any{id},
		Specs: []llm.Spec{gen, judge}, Phases: []runner.Phase{generation, judging},
		Complete: func(context.Context, int64) error { return writeFoils(env.Stdout, o, Filter(cands, v)) }}, nil
}

// writeFoils writes the negatives a generation run kept, one CSV per
// condition, and says what was dropped.
func writeFoils(stdout io.Writer, o foilsGenOptions, gs []Generated) error {
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return err
	}
	for _, x := range []struct{ cond, file string }{{Matched, "matched.csv"}, {WrongScheme, "wrong.csv"}} {
		rows := CSVRows(gs, x.cond)
		if err := outfile.Write(stdout, filepath.Join(o.OutDir, x.file), func(w io.Writer) error {
			cw := csv.NewWriter(w)
			cw.WriteAll(rows)
			return cw.Error()
		}); err != nil {
			return err
		}
	}
	counts := DropCounts(gs)
	for _, cond := range []string{Matched, WrongScheme} {
		fmt.Fprintf(stdout, "%s:", cond)
		for _, k := range sortedKeys(counts[cond]) {
			fmt.Fprintf(stdout, " %s=%d", k, counts[cond][k])
		}
		fmt.Fprintln(stdout)
	}
	fmt.Fprintf(stdout, "wrote %s and %s: fallacylab foils audit --corpus %s --matched %[1]s --wrong %[2]s\n",
		filepath.Join(o.OutDir, "matched.csv"), filepath.Join(o.OutDir, "wrong.csv"), o.Corpus)
	return nil
}
