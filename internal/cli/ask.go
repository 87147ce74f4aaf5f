package cli

import (
	"fmt"
	"strings"

	"github.com/fallacylab/fallacylab/runner"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/spf13/cobra"
)

type askOptions struct {
	System      string
	Temperature float64
	MaxTokens   int
	Seed        int64
	Sample      int
}

// askRecord is what a run of ask records of its options: a temperature or
// seed that was not sent is absent, never 0.
type askRecord struct {
	System      string
	Temperature *float64 `json:",omitempty"`
	MaxTokens   int
	Seed        *int64 `json:",omitempty"`
	Sample      int
}

func newAskCmd(g *Global) *cobra.Command {
	var o askOptions
	cmd := &cobra.Command{
		Use:         "ask SPEC PROMPT",
		Annotations: callsModels(),
		Short:       "Send one prompt through the whole engine (cached, rate-limited, retried)",
		Example: `  fallacylab ask openai:gpt-4.1-mini "Say hi"
  fallacylab ask anthropic:claude-haiku-4-5 --system "Be terse." --temperature 0 "Name a fallacy"`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := llm.ParseSpec(args[0])
			if err != nil {
				return err
			}
			if strings.TrimSpace(args[1]) == "" {
				// As a prompt set's empty prompt is refused; a provider
				// answers one with a 400 (Anthropic) or an answer to
				// nothing, and either is paid or cached.
				return fmt.Errorf("the prompt is empty: ask sends one prompt, e.g. fallacylab ask %s \"Say hi\"", args[0])
			}
			req := llm.UserPrompt(o.System, args[1])
			if cmd.Flags().Changed("temperature") {
				req.Temperature = llm.Temp(o.Temperature)
			}
			if cmd.Flags().Changed("seed") {
				req.Seed = &o.Seed
			}
			req.MaxTokens = o.MaxTokens
			s, err := openSession(g)
			if err != nil {
				return err
			}
			defer s.Close()
			job := engine.Job{ID: "ask", Namespace: "ask", Spec: spec, Request: req, Sample: o.Sample}
			var answer *engine.Result
			q := *g
			q.Quiet = true
			s.g = &q
			_, err = s.runner().Run(cmd.Context(), runner.Spec{Name: "ask", Benchmark: "ask", Args: args, Options: askRecord{System: o.System, Temperature: req.Temperature, MaxTokens: o.MaxTokens, Seed: req.Seed, Sample: o.Sample},
				Specs: []llm.Spec{spec}, Phases: []runner.Phase{{Plan: engine.SlicePlan("ask", []engine.Job{job}), OnResult: func(r engine.Result) { answer = &r }}}})
			if answer != nil && answer.Response != nil {
				fmt.Fprintln(g.Stdout, strings.TrimRight(answer.Response.Text, "\n"))
				for _, n := range answer.Response.Notes {
					fmt.Fprintln(g.Stderr, "note:", n)
				}
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.System, "system", "", "system prompt")
	f.Float64Var(&o.Temperature, "temperature", 0, "sampling temperature (unset: provider default)")
	f.IntVar(&o.MaxTokens, "max-tokens", 0, "output token limit (0: provider default)")
	f.Int64Var(&o.Seed, "seed", 0, "sampling seed, where the provider supports one")
	f.IntVar(&o.Sample, "sample", 0, "sample index: a different index is a different cached call")
	return cmd
}
