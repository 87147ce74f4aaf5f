package prompts

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/outfile"
	"github.com/fallacylab/fallacylab/runner"
	"github.com/fallacylab/fallacylab/store"
)

// KindResult is the record of one call: a prompt's answer on one model.
const KindResult = "prompts/result"

// Options are a run's options, as its flags set them.
type Options struct {
	Models  string
	Samples int
	Out     string
	Select  bench.Selection
}

// Result is one call's record, and one line of the results file.
type Result struct {
	Job          string `json:"job"`
	Model        string `json:"model"`
	ID           string `json:"id"`
	Sample       int    `json:"sample"`
	Text         string `json:"text,omitempty"`
	FinishReason string `json:"finish_reason,omitempty"`
	InputTokens  int64  `json:"input_tokens,omitempty"`
	OutputTokens int64  `json:"output_tokens,omitempty"`
	Cached       bool   `json:"cached"`
	Error        string `json:"error,omitempty"`
}

// Task is the benchmark as the registry holds it.
type Task struct{}

// Definition implements bench.Task.
func (Task) Definition() *bench.Benchmark { return Definition }

// What the Task implements, checked by the compiler (Caddy's interface
// guards).
var (
	_ bench.Runs      = Task{}
	_ bench.TakesArgs = Task{}
	_ bench.Helps     = Task{}
	_ bench.Lists     = Task{}
	_ bench.OwnInput  = Task{}
)

var _ = bench.RegisterTask(Task{})

// RunArgs implements bench.TakesArgs: the prompts file.
func (Task) RunArgs() (string, int) { return "FILE.jsonl", 1 }

// OwnInput implements bench.OwnInput: a run reads its file, no data folder.
func (Task) OwnInput() {}

// Help implements bench.Helps.
func (Task) Help(verb string) bench.Help {
	if verb != "run" {
		return bench.Help{}
	}
	return bench.Help{
		Short: "Run every prompt of FILE on every model (cached, resumable, batchable)",
		Long: `Each line of FILE is {"id": "...", "prompt": "...", "system": "...", "temperature": 0.7,
"max_tokens": 256, "seed": 1, "stop": ["..."]}; only prompt is required.
Every answer is kept with the run (the viewer lists them); the results file
is written whole once every call has its answer, or not at all.`,
		Example: `  fallacylab prompts run my.jsonl --models openai:gpt-4.1-mini,ollama:llama3.1 --samples 3 --out results.jsonl`,
	}
}

// BindRun implements bench.Runs.
func (Task) BindRun(f *pflag.FlagSet) func(context.Context, bench.Env) (runner.Spec, error) {
	o := Options{Samples: 1}
	f.StringVar(&o.Models, "models", "", "comma-separated model specs (provider:model)")
	f.IntVar(&o.Samples, "samples", 1, "samples per prompt and model")
	o.Select.Flags(f, "prompts")
	f.StringVar(&o.Out, "out", "", "write results as JSONL to this file (written whole, or not at all; default: stdout)")
	return func(ctx context.Context, env bench.Env) (runner.Spec, error) { return o.spec(env) }
}

// spec is the run of the options: every prompt on every model, each
// answer a record and a line of the results file.
func (o Options) spec(env bench.Env) (runner.Spec, error) {
	specs, err := llm.ParseSpecs(o.Models)
	if err != nil {
		return runner.Spec{}, fmt.Errorf("--models: %w", err)
	}
	if len(specs) == 0 {
		return runner.Spec{}, fmt.Errorf("--models is required, e.g. --models openai:gpt-4.1-mini")
	}
	if err := outfile.Check("out", o.Out); err != nil {
		return runner.Spec{}, err
	}
	file := env.Args[0]
	fh, err := os.Open(file)
	if err != nil {
		return runner.Spec{}, fmt.Errorf("prompts file: %w", err)
	}
	items, err := Parse(fh, file)
	fh.Close()
	if err != nil {
		return runner.Spec{}, err
	}
	if items, err = bench.Select(o.Select, "prompts", items, func(it Item) string { return it.ID }); err != nil {
		return runner.Spec{}, err
	}
	var results []Result
	var keys []string
	plan := Plan(items, specs, o.Samples)
	p := Definition.Phases[0]
	ph := runner.Phase{Name: p.Name, Hint: p.Hint, Usable: p.Usable, Plan: plan}
	ph.OnResult = func(r engine.Result) {
		l := Result{Job: r.Job.ID, Model: r.Job.Spec.String(), Sample: r.Job.Sample, Cached: r.Cached}
		l.ID, _ = r.Job.Meta.(string)
		if r.Err != nil {
			l.Error = r.Err.Error()
		} else {
			l.Text, l.FinishReason = r.Response.Text, r.Response.FinishReason
			l.InputTokens, l.OutputTokens = r.Response.Usage.InputTokens, r.Response.Usage.OutputTokens
		}
		results, keys = append(results, l), append(keys, r.Key)
	}
	ph.Records = func(ctx context.Context, runID int64) error {
		recs := make([]store.Record, len(results))
		for i, l := range results {
			body, err := json.Marshal(l)
			if err != nil {
				return err
			}
			recs[i] = store.Record{Key: l.Job, CallKey: keys[i], Body: body}
		}
		sort.Slice(recs, func(i, k int) bool { return recs[i].Key < recs[k].Key })
		return env.Records.PutRecords(ctx, runID, KindResult, recs)
	}
	done := func(ctx context.Context, runID int64, exit error) error {
		if env.DryRun || len(results) == 0 {
			return exit
		}
		if len(results) < plan.Len {
			// Whole or not at all: an interrupted run leaves no file.
			what := o.Out
			if what == "" {
				what = "results"
			}
			fmt.Fprintf(env.Stderr, "%s not written: %d of %d jobs have a result (run the same command again to finish)\n", what, len(results), plan.Len)
			return exit
		}
		out := o.Out
		if out == "" {
			out = "-" // no --out: the results are the command's output
		}
		sort.Slice(results, func(i, k int) bool { return results[i].Job < results[k].Job })
		if err := outfile.Write(env.Stdout, out, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			for _, l := range results {
				if err := enc.Encode(l); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return err
		}
		return exit
	}
	// The plan's digest is the identity (runner.Fingerprint): the same
	// prompts on the same models resume the same run.
	return runner.Spec{Name: "prompts " + filepath.Base(file), Args: env.Args, Options: o,
		Specs: specs, Identity: []any{}, Phases: []runner.Phase{ph}, Done: done}, nil
}

// Listing implements bench.Lists: the viewer lists a run's answers.
func (Task) Listing() bench.Listing {
	return bench.Listing{Kind: KindResult, Title: "answers", Columns: []string{"job", "model", "id", "sample", "answer"},
		Row: func(r store.Record) ([]string, error) {
			var l Result
			if err := json.Unmarshal(r.Body, &l); err != nil {
				return nil, err
			}
			text := l.Text
			if l.Error != "" {
				text = "(failed: " + l.Error + ")"
			}
			return []string{l.Job, l.Model, l.ID, strconv.Itoa(l.Sample), text}, nil
		}}
}
