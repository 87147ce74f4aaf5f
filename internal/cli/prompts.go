package cli

import (
	"encoding/json"
	"fmt"
	"github.com/fallacylab/fallacylab/runner"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/fallacylab/fallacylab/bench/prompts"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/spf13/cobra"
)

type promptsOptions struct {
	Models  string
	Samples int
	Out     string
	Select  selection
}

// resultLine is one line of the results file.
type resultLine struct {
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

func newPromptsCmd(g *Global) *cobra.Command {
	var o promptsOptions
	root := &cobra.Command{Use: "prompts", Short: "Run your own JSONL prompt set on any models"}
	run := &cobra.Command{
		Use:         "run FILE.jsonl",
		Annotations: callsModels(),
		Short:       "Run every prompt of FILE on every model (cached, resumable, batchable)",
		Long: `Each line of FILE is {"id": "...", "prompt": "...", "system": "...", "temperature": 0.7,
"max_tokens": 256, "seed": 1, "stop": ["..."]}; only prompt is required.`,
		Example: `  fallacylab prompts run my.jsonl --models openai:gpt-4.1-mini,ollama:llama3.1 --samples 3 --out results.jsonl`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			specs, err := parseSpecs("models", o.Models)
			if err != nil {
				return err
			}
			if len(specs) == 0 {
				return fmt.Errorf("--models is required, e.g. --models openai:gpt-4.1-mini")
			}
			f, err := os.Open(args[0])
			if err != nil {
				return fmt.Errorf("prompts file: %w", err)
			}
			items, err := prompts.Parse(f, args[0])
			f.Close()
			if err != nil {
				return err
			}
			if items, err = selectItems(o.Select, "prompts", items, func(it prompts.Item) string { return it.ID }); err != nil {
				return err
			}
			s, err := openSession(g)
			if err != nil {
				return err
			}
			defer s.Close()
			var lines []resultLine
			plan := prompts.Plan(items, specs, o.Samples)
			ph := phaseOf(prompts.Definition.Phase("calls"), plan)
			ph.OnResult = func(r engine.Result) {
				l := resultLine{Job: r.Job.ID, Model: r.Job.Spec.String(), Sample: r.Job.Sample, Cached: r.Cached}
				l.ID, _ = r.Job.Meta.(string)
				if r.Err != nil {
					l.Error = r.Err.Error()
				} else {
					l.Text, l.FinishReason = r.Response.Text, r.Response.FinishReason
					l.InputTokens, l.OutputTokens = r.Response.Usage.InputTokens, r.Response.Usage.OutputTokens
				}
				lines = append(lines, l)
			}
			_, runErr := s.runner().Run(cmd.Context(), runner.Spec{Name: "prompts " + filepath.Base(args[0]), Benchmark: prompts.Definition.Name, Args: args, Options: o,
				Specs: specs, Identity: []any{}, Phases: []runner.Phase{ph}}) // the plan's digest is the identity (fingerprint)
			if !g.DryRun && len(lines) > 0 && len(lines) < plan.Len {
				// Whole or not at all: an interrupted run leaves no file.
				what := o.Out
				if what == "" {
					what = "results"
				}
				fmt.Fprintf(g.Stderr, "%s not written: %d of %d jobs have a result (run the same command again to finish)\n", what, len(lines), plan.Len)
			} else if !g.DryRun && len(lines) > 0 {
				out := o.Out
				if out == "" {
					out = "-" // no --out: the results are the command's output
				}
				sort.Slice(lines, func(i, k int) bool { return lines[i].Job < lines[k].Job })
				if err := writeOut(g.Stdout, out, func(w io.Writer) error {
					enc := json.NewEncoder(w)
					for _, l := range lines {
						if err := enc.Encode(l); err != nil {
							return err
						}
					}
					return nil
				}); err != nil {
					return err
				}
			}
			return runErr
		},
	}
	run.Flags().StringVar(&o.Models, "models", "", "comma-separated model specs (provider:model)")
	run.Flags().IntVar(&o.Samples, "samples", 1, "samples per prompt and model")
	o.Select.add(run.Flags(), "prompts")
	run.Flags().StringVar(&o.Out, "out", "", "write results as JSONL to this file (written whole, or not at all; default: stdout)")
	root.AddCommand(run)
	return root
}
