package missciplus

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/runner"
	"github.com/fallacylab/fallacylab/store"
)

// Name is MissciPlus's one name: the store's, the command's, the URLs'.
const Name = "missciplus"

// Record kinds: a run's setup, and one ranking per argument and seed.
const (
	KindSetup   = Name + "/setup"
	KindRanking = Name + "/ranking"
)

// Definition is MissciPlus as the registry holds it.
var Definition = &bench.Benchmark{
	Name:    Name,
	Title:   "MissciPlus",
	Summary: "find the passages of the misrepresented study that state the accurate premise (subtask 1) and that the fallacies rest on (subtask 2)",
	Phases: []bench.Phase{{Name: "ranking"}, {Name: "embedding"},
		{Name: "reconstruction", Hint: "the answers give no \"Fallacious Premise: …; Applied Fallacy Class: …\" nor say there is no fallacy: check the template and the model", Usable: reconstructUsable},
		{Name: "premise judge", Hint: "the judge's answers say neither match nor no-match", Usable: judgeUsable},
		{Name: "pairwise", Hint: "the answers name neither Passage A nor Passage B: check the template and the model",
			Usable: func(r engine.Result) bool {
				return strings.Contains(r.Response.Text, "Passage A") || strings.Contains(r.Response.Text, "Passage B")
			}}},
}

// Task is MissciPlus as the registry holds it.
type Task struct{}

// Definition implements bench.Task.
func (Task) Definition() *bench.Benchmark { return Definition }

// What the Task implements, checked by the compiler (Caddy's interface
// guards).
var (
	_ bench.Runs     = Task{}
	_ bench.Reports  = Task{}
	_ bench.Commands = Task{}
	_ bench.Helps    = Task{}
	_ bench.Lists    = Task{}
	_ bench.OwnInput = Task{}
	_ bench.Views    = Task{}
)

var _ = bench.RegisterTask(Task{})

// Options are a run's options, as its flags set them.
type Options struct {
	Subtask int
	Split   string
	Ranker  string
	// Full is the open setting of subtask 1 (every passage of the study;
	// subtask 2 always ranks every passage).
	Full   bool
	Seeds  string
	Select bench.Selection
	// PRP (--ranker prp): the model, the pairwise template, the
	// iterations, the initial order (natural or random, --seed) and
	// whether passages carry their section titles.
	Model        string
	Template     string
	Iterations   int
	InitialOrder string
	Seed         uint64
	AddSection   bool
	Temperature  float64
	MaxTokens    int
	// Embedding ranker (--ranker embedding): the embeddings model, concat
	// or mean (of the K best sentences).
	Embedder string
	Variant  string
	K        int
	// P0 (subtask 2): the query is a passage stating p0 (drawn with
	// --seed), then " Therefore: " and the claim.
	P0 bool
	// Subtask 3: the prompts' layout (passage-wise or concat), a concat
	// prompt's passage order, whether it gives every selected passage,
	// and the premise judge (default: --model).
	Layout      string
	Order       string
	AllPassages bool
	Judge       string
}

// Setup is a run's setup, stored with it.
type Setup struct {
	Subtask int      `json:"subtask"`
	Split   string   `json:"split"`
	Ranker  string   `json:"ranker"`
	Full    bool     `json:"full"`
	Seeds   []uint64 `json:"seeds,omitempty"`
	IDs     []string `json:"ids"` // the arguments ranked, in file order
	// PRP's: the model, template, iterations, initial order (and its
	// seed) and section titles.
	Model        string `json:"model,omitempty"`
	Template     string `json:"template,omitempty"`
	Iterations   int    `json:"iterations,omitempty"`
	InitialOrder string `json:"initial_order,omitempty"`
	Seed         uint64 `json:"seed,omitempty"`
	AddSection   bool   `json:"add_section,omitempty"`
	// The embedding ranker's: model, variant and k.
	Embedder string `json:"embedder,omitempty"`
	Variant  string `json:"variant,omitempty"`
	K        int    `json:"k,omitempty"`
	// P0: subtask 2's query holds a passage stating p0 (drawn with Seed).
	P0 bool `json:"p0,omitempty"`
	// Subtask 3's: the premise judge, a concat prompt's order and whether
	// it gave every selected passage (Ranker holds the layout).
	Judge       string `json:"judge,omitempty"`
	Order       string `json:"order,omitempty"`
	AllPassages bool   `json:"all_passages,omitempty"`
}

// stored is one argument's ranking as a record.
type stored struct {
	Ranking
	Seed uint64 `json:"seed,omitempty"`
	// Iterations are a PRP ranking after each iteration (Ranked: after
	// the last).
	Iterations [][]string `json:"iterations,omitempty"`
}

// OwnInput implements bench.OwnInput: the data is embedded.
func (Task) OwnInput() {}

// Help implements bench.Helps.
func (Task) Help(verb string) bench.Help {
	if verb != "run" {
		return bench.Help{}
	}
	return bench.Help{
		Short: "Rank a study's passages (subtasks 1, 2) or reconstruct the fallacious argument from them (subtask 3)",
		Long: `Subtask 1 ranks each argument's selected passages (--fullstudy: every passage
of the study) so that a passage stating the accurate premise p0 comes first,
scored by P@1, MRR and HasPositive@3/5/10 over the arguments whose p0 a
passage states. Subtask 2 ranks every passage so that those the fallacies
rest on come first: P@k, R@k and mAP (--p0: a passage stating p0 joins the
query). Rankers: ordered (by passage number), random (CPython's shuffle,
--seeds, as upstream's five) and bm25 (BM25Okapi over spaCy's English
tokens, as upstream's) need no model; embedding (--embedder) and prp
(pairwise ranking prompting, --model) call one. Subtask 3 prompts --model
with the passages (--layout passage-wise or concat), parses the answers with
upstream's parser, aligns them to the gold fallacies with a premise judge
(--judge) and scores them as upstream's evaluator. Rankings, prompts and
scores equal upstream's code on the same inputs.`,
		Example: `  fallacylab missciplus run --subtask 1 --ranker random --seeds 1,2,3,4,5
  fallacylab missciplus run --subtask 1 --ranker ordered --fullstudy --split dev
  fallacylab missciplus run --subtask 2 --ranker ordered --limit 10
  fallacylab missciplus run --subtask 2 --ranker bm25 --p0 --seed 1
  fallacylab missciplus run --subtask 1 --ranker prp --model openai:gpt-4.1-mini --iterations 3
  fallacylab missciplus run --subtask 3 --model openai:gpt-4.1 --layout passage-wise --judge openai:gpt-4.1-mini`,
	}
}

// BindRun implements bench.Runs.
func (Task) BindRun(f *pflag.FlagSet) func(context.Context, bench.Env) (runner.Spec, error) {
	o := Options{Subtask: 1, Split: "test", Ranker: "ordered", Seeds: "1,2,3,4,5"}
	f.IntVar(&o.Subtask, "subtask", o.Subtask, "1: the passage stating p0; 2: the passages the fallacies rest on; 3: reconstruct the fallacious argument from passages (--model, --layout, --template)")
	f.StringVar(&o.Layout, "layout", PassageWise, "subtask 3: passage-wise (a prompt per passage beside p0's, and p0 alone) or concat (p0's and the fallacies' passages in one prompt)")
	f.StringVar(&o.Order, "order", "p0-ordered", "subtask 3, concat: the passages' order: ordered, p0-ordered, random or p0-random (--seed)")
	f.BoolVar(&o.AllPassages, "all-passages", false, "subtask 3, concat: give every selected passage, not only p0's and the fallacies'")
	f.StringVar(&o.Judge, "judge", "", "subtask 3: the premise judge that aligns reconstructed to gold fallacies (provider:model; default: --model)")
	f.StringVar(&o.Split, "split", o.Split, "dev (30 arguments) or test (84)")
	f.StringVar(&o.Ranker, "ranker", o.Ranker, "ordered, random, bm25, embedding (cosine to the claim, --embedder) or prp (pairwise ranking prompting, --model)")
	bench.Choices(f, "ranker", append(Rankers, "embedding", "prp")...)
	f.StringVar(&o.Embedder, "embedder", "", "embedding: the embeddings model (provider:model, an OpenAI-compatible /v1/embeddings; upstream used sentence-transformers models such as all-mpnet-base-v2)")
	f.StringVar(&o.Variant, "variant", "concat", "embedding: concat (a passage's sentences joined) or mean (the mean cosine of its --k best sentences)")
	f.IntVar(&o.K, "k", 0, "embedding: how many of a passage's best sentences the mean variant averages")
	f.StringVar(&o.Model, "model", "", "prp: the model that compares two passages (provider:model)")
	f.StringVar(&o.Template, "template", "", "prp: the pairwise template (qin2023, qin-claim (default), qin-claim-support, qin-claim-convincing); subtask 3: reconstruct-passage/… (default p7-passage-DLE) or reconstruct-concat/… (default p12-passage-detective-DLE)")
	f.IntVar(&o.Iterations, "iterations", 3, "prp: sliding-window iterations (the first N places settled; each is reported)")
	f.StringVar(&o.InitialOrder, "initial-order", "natural", "prp: natural (by passage number) or random (--seed)")
	f.Uint64Var(&o.Seed, "seed", 1, "the seed of prp's random initial order and of --p0's passage (CPython's, as upstream)")
	f.BoolVar(&o.P0, "p0", false, "subtask 2, bm25, embedding and prp: the query is a passage stating p0 (drawn with --seed), \" Therefore: \" and the claim")
	f.BoolVar(&o.AddSection, "add-section", false, "prp, embedding and subtask 3: passages carry their section titles (upstream's --add-section / --add-title)")
	f.BoolVar(&o.AddSection, "add-title", false, "the same as --add-section (upstream's name for it in run-subtask1.py sentence-embeddings)")
	f.Float64Var(&o.Temperature, "temperature", 0, "prp: sampling temperature")
	f.IntVar(&o.MaxTokens, "max-tokens", 16, "prp: the most tokens of an answer (it names a passage)")
	f.BoolVar(&o.Full, "fullstudy", false, "subtask 1's open setting: rank every passage of the study, not the selected ones")
	f.StringVar(&o.Seeds, "seeds", o.Seeds, "the random ranker's seeds (upstream: 1-5), comma-separated")
	o.Select.Flags(f, "arguments")
	return func(ctx context.Context, env bench.Env) (runner.Spec, error) { return o.spec(env) }
}

// seeds parses --seeds.
func (o Options) seeds() ([]uint64, error) {
	if o.Ranker != "random" {
		return nil, nil
	}
	var out []uint64
	for _, s := range bench.SplitList(o.Seeds) {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("--seeds %q: %q is not a non-negative integer", o.Seeds, s)
		}
		out = append(out, v)
	}
	return out, nil
}

// spec is the run of the options: every argument ranked (per seed),
// stored with the setup in one transaction.
func (o Options) spec(env bench.Env) (runner.Spec, error) {
	if o.Subtask < 1 || o.Subtask > 3 {
		return runner.Spec{}, fmt.Errorf("--subtask %d: want 1, 2 or 3", o.Subtask)
	}
	if o.Subtask == 3 {
		args, err := Load(o.Split)
		if err != nil {
			return runner.Spec{}, fmt.Errorf("--split: %w", err)
		}
		if o.Layout != PassageWise && o.Layout != Concat {
			return runner.Spec{}, fmt.Errorf("--layout %q: want %s or %s", o.Layout, PassageWise, Concat)
		}
		if o.Template == "" {
			o.Template = map[string]string{PassageWise: "reconstruct-passage/p7-passage-DLE", Concat: "reconstruct-concat/p12-passage-detective-DLE"}[o.Layout]
		}
		if o.MaxTokens == 16 {
			o.MaxTokens = 3000 // upstream's max_new_token_len
		}
		return o.reconstructSpec(env, args)
	}
	if o.Subtask == 2 && o.Full {
		return runner.Spec{}, fmt.Errorf("--fullstudy: subtask 2 always ranks every passage of the study")
	}
	args, err := Load(o.Split)
	if err != nil {
		return runner.Spec{}, fmt.Errorf("--split: %w", err)
	}
	full := o.Full || o.Subtask == 2
	if o.P0 {
		if o.Subtask != 2 || (o.Ranker != "bm25" && o.Ranker != "embedding" && o.Ranker != "prp") {
			return runner.Spec{}, fmt.Errorf("--p0: subtask 2's query with a passage stating p0, for --ranker bm25, embedding or prp")
		}
		args = WithP0(args, o.Seed)
	}
	switch o.Ranker {
	case "prp":
		return o.prpSpec(env, args, full)
	case "embedding":
		return o.embedSpec(env, args, full)
	}
	if o.Model != "" {
		return runner.Spec{}, fmt.Errorf("--model: the %s ranker calls no model (--ranker prp does)", o.Ranker)
	}
	if o.Embedder != "" {
		return runner.Spec{}, fmt.Errorf("--embedder: the %s ranker embeds nothing (--ranker embedding does)", o.Ranker)
	}
	return o.localSpec(env, args, full)
}

// localSpec is a run of a ranker that calls no model (ordered, random,
// bm25): the rankings are made and stored in one phase.
func (o Options) localSpec(env bench.Env, args []Argument, full bool) (runner.Spec, error) {
	seeds, err := o.seeds()
	if err != nil {
		return runner.Spec{}, err
	}
	// The whole split is ranked, then the selection kept: a random
	// ranking of an argument is the one a run of the whole split draws.
	all, err := Rank(o.Ranker, args, full, seeds)
	if err != nil {
		return runner.Spec{}, err
	}
	chosen, err := bench.Select(o.Select, "arguments", args, func(a Argument) string { return a.ID })
	if err != nil {
		return runner.Spec{}, err
	}
	keep := map[string]bool{}
	setup := Setup{Subtask: o.Subtask, Split: o.Split, Ranker: o.Ranker, Full: full, Seeds: seeds, P0: o.P0}
	if o.P0 {
		setup.Seed = o.Seed
	}
	for _, a := range chosen {
		keep[a.ID] = true
		setup.IDs = append(setup.IDs, a.ID)
	}
	p := Definition.Phases[0]
	ph := runner.Phase{Name: p.Name,
		Dry: func(context.Context) (engine.Plan, string, error) {
			return engine.Plan{}, fmt.Sprintf("dry run: 0 jobs: the %s ranker calls no model (%d arguments of %s)", o.Ranker, len(chosen), o.Split), nil
		},
		Do: func(ctx context.Context, a *runner.Active) error {
			lp := a.Phase(p.Name, p.Hint)
			recs, err := rankingRecords(setup, all, keep, func() { lp.Count(o.Ranker, true, "") })
			if err != nil {
				return err
			}
			if err := lp.End(ctx, engine.Summary{}); err != nil {
				return err
			}
			// One transaction: a run never holds a setup without its rankings.
			return env.Records.PutRecordKinds(ctx, a.ID, []string{KindSetup, KindRanking}, recs)
		}}
	name := fmt.Sprintf("%s subtask %d %s %s", Name, o.Subtask, o.Split, o.Ranker)
	if o.Full && o.Subtask == 1 {
		name += " fullstudy"
	}
	return runner.Spec{Name: name, Options: o, Phases: []runner.Phase{ph}}, nil
}

// rankingRecords are the setup's record and the kept arguments' rankings
// of each seed (all: by seed, in the setup's order), each counted.
func rankingRecords(setup Setup, all [][]Ranking, keep map[string]bool, count func()) ([]store.Record, error) {
	body, err := json.Marshal(setup)
	if err != nil {
		return nil, err
	}
	recs := []store.Record{{Kind: KindSetup, Key: "setup", Body: body}}
	for i, rk := range all {
		var seed uint64
		if len(setup.Seeds) > 0 {
			seed = setup.Seeds[i]
		}
		for _, r := range rk {
			if !keep[r.ID] {
				continue
			}
			b, err := json.Marshal(stored{Ranking: r, Seed: seed})
			if err != nil {
				return nil, err
			}
			count()
			recs = append(recs, store.Record{Kind: KindRanking, Key: fmt.Sprintf("%s/s%d", r.ID, seed), Body: b})
		}
	}
	return recs, nil
}

// LoadRun reads a run's setup and its rankings, by seed (in the setup's
// order of seeds; one group for a ranker without seeds).
func LoadRun(ctx context.Context, rs bench.RecordReader, runID int64) (Setup, [][]Ranking, error) {
	var setup Setup
	found, err := bench.ReadOne(ctx, rs, runID, KindSetup, &setup)
	if err != nil {
		return setup, nil, fmt.Errorf("%s setup: %w", Name, err)
	}
	if !found {
		return setup, nil, fmt.Errorf("run %d holds no %s setup (it did not start its ranking)", runID, Name)
	}
	seeds := setup.Seeds
	if len(seeds) == 0 {
		seeds = []uint64{0}
	}
	at := map[uint64]int{}
	for i, s := range seeds {
		at[s] = i
	}
	out := make([][]Ranking, len(seeds))
	if setup.Iterations > 0 {
		out = make([][]Ranking, setup.Iterations) // a group per iteration
	}
	err = rs.Records(ctx, runID, KindRanking, func(r store.Record) error {
		var s stored
		if err := json.Unmarshal(r.Body, &s); err != nil {
			return fmt.Errorf("ranking %s: %w", r.Key, err)
		}
		if setup.Iterations > 0 {
			if len(s.Iterations) != setup.Iterations {
				return fmt.Errorf("ranking %s: %d iterations, not the run's %d", r.Key, len(s.Iterations), setup.Iterations)
			}
			for k, it := range s.Iterations {
				out[k] = append(out[k], Ranking{ID: s.ID, Ranked: it})
			}
			return nil
		}
		i, ok := at[s.Seed]
		if !ok {
			return fmt.Errorf("ranking %s: seed %d is not the run's (%v)", r.Key, s.Seed, seeds)
		}
		out[i] = append(out[i], s.Ranking)
		return nil
	})
	return setup, out, err
}

// settingOf says which passages a setup ranks.
func settingOf(s Setup) string {
	switch {
	case s.Subtask == 2:
		return "open: every passage of the study"
	case s.Full:
		return "open (--fullstudy): every passage of the study"
	}
	return "closed: the study's selected passages"
}

func seedList(seeds []uint64) string {
	var s []string
	for _, x := range seeds {
		s = append(s, strconv.FormatUint(x, 10))
	}
	return strings.Join(s, ", ")
}

// Listing implements bench.Lists: the viewer lists a run's rankings (and
// studies can put them to people).
func (Task) Listing() bench.Listing {
	return bench.Listing{Kind: KindRanking, Title: "rankings", Columns: []string{"argument", "seed", "passages", "p0 passage at", "top 3", "ranking"},
		Row: func(r store.Record) ([]string, error) {
			var s stored
			if err := json.Unmarshal(r.Body, &s); err != nil {
				return nil, err
			}
			seed := ""
			if s.Seed != 0 {
				seed = strconv.FormatUint(s.Seed, 10)
			}
			at := "no passage states p0"
			if a, ok := argumentByID(s.ID); ok && a.HasMappedP0() {
				at = "not ranked"
				for i, p := range s.Ranked {
					if slices.Contains(a.P0Passages(), p) {
						at = strconv.Itoa(i + 1)
						break
					}
				}
			}
			return []string{s.ID, seed, strconv.Itoa(len(s.Ranked)), at, strings.Join(s.Ranked[:min(3, len(s.Ranked))], ", "), strings.Join(s.Ranked, ", ")}, nil
		}}
}

var (
	byIDOnce sync.Once
	byID     map[string]Argument
)

// argumentByID is an argument of either split by its id (ids are unique
// across them).
func argumentByID(id string) (Argument, bool) {
	byIDOnce.Do(func() {
		byID = map[string]Argument{}
		for _, split := range []string{"dev", "test"} {
			args, _ := Load(split)
			for _, a := range args {
				byID[a.ID] = a
			}
		}
	})
	a, ok := byID[id]
	return a, ok
}

// Arguments are the setup's split and, of it, the arguments the run
// ranked or reconstructed (setup.IDs), in the split's order.
func (s Setup) Arguments() (all, chosen []Argument, err error) {
	all, err = Load(s.Split)
	if err != nil {
		return nil, nil, err
	}
	want := map[string]bool{}
	for _, id := range s.IDs {
		want[id] = true
	}
	for _, a := range all {
		if want[a.ID] {
			chosen = append(chosen, a)
		}
	}
	return all, chosen, nil
}

// LoadReconstructions reads a subtask 3 run's reconstructions.
func LoadReconstructions(ctx context.Context, rs bench.RecordReader, runID int64) ([]ArgumentPrediction, error) {
	return bench.ReadAll[ArgumentPrediction](ctx, rs, runID, KindReconstruction, "reconstruction")
}
