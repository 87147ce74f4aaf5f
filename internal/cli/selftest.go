package cli

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/fallacylab/fallacylab/runner"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/internal/config"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/llm/llmtest"
	"github.com/spf13/cobra"
)

type selftestOptions struct {
	Jobs  int
	Chaos bool
	Seed  uint64
}

func newSelftestCmd(g *Global) *cobra.Command {
	o := selftestOptions{Jobs: 300, Chaos: true, Seed: 1}
	cmd := &cobra.Command{
		Use:         "selftest",
		Annotations: callsModels(),
		Short:       "Run the engine end to end against a built-in fake provider (no key, no network)",
		Long: `selftest starts an in-process server that speaks the OpenAI, Anthropic and Gemini wire
protocols, sends a plan through the real SDK adapters, the engine and the store, with injected
rate limits, server errors, hangs and malformed bodies, and checks every answer. Run it twice:
the second run is answered by the cache.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts := llmtest.Options{Seed: o.Seed, RetryAfter: 50 * time.Millisecond,
				Latency: func(r *rand.Rand) time.Duration { return time.Duration(r.IntN(20)) * time.Millisecond }}
			if o.Chaos {
				opts.Rates = llmtest.Rates{RateLimit: 0.05, ServerError: 0.03, Hang: 0.01, Malformed: 0.01, Reset: 0.01}
			}
			srv := llmtest.New(opts)
			defer srv.Close()
			temporary := !g.dbFlagSet && os.Getenv("FALLACYLAB_DB") == ""
			if temporary {
				// A self-test is not research: it never writes into your store.
				tmp, err := os.MkdirTemp("", "fallacylab-selftest-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(tmp)
				g.DBPath, g.dbFrom = filepath.Join(tmp, "selftest.db"), "a temporary store; --db keeps one"
			}
			s, err := openSession(g)
			if err != nil {
				return err
			}
			defer s.Close()
			for name, typ := range map[string]string{"fake-openai": "openai", "fake-anthropic": "anthropic", "fake-gemini": "gemini"} {
				url := srv.URL
				if typ == "openai" {
					url = srv.OpenAIURL()
				}
				// The fake server's port changes every time: one name in the cache keys.
				s.cfg.Endpoints[name] = config.Endpoint{Type: typ, BaseURL: url, KeyOptional: true, CacheAs: name}
				s.cfg.Prices[name+":echo"] = llm.Price{Input: 1, Output: 2}
			}
			q := *g
			if q.Timeout == 2*time.Minute {
				q.Timeout = time.Second // hung calls are abandoned quickly
			}
			s.g = &q
			specs := []llm.Spec{{Provider: "fake-openai", Model: "echo"}, {Provider: "fake-anthropic", Model: "echo"}, {Provider: "fake-gemini", Model: "echo"}}
			jobs := make([]engine.Job, o.Jobs)
			for i := range jobs {
				jobs[i] = engine.Job{ID: fmt.Sprintf("selftest-%04d", i), Namespace: "selftest", Spec: specs[i%3],
					Request: llm.UserPrompt("You are a test.", fmt.Sprintf("selftest prompt %d", i))}
			}
			wrong := 0
			res, err := s.runner().Run(cmd.Context(), runner.Spec{Name: "selftest", Benchmark: "selftest", Options: o, Specs: specs,
				Phases: []runner.Phase{{Plan: engine.SlicePlan("selftest", jobs), OnResult: func(r engine.Result) {
					if r.Err == nil && r.Response.Text != "echo: "+r.Job.Request.Messages[0].Content {
						wrong++
					}
				}}}})
			sum := res.Last()
			if err != nil {
				return err
			}
			if g.DryRun {
				return nil
			}
			faults := 0
			for _, e := range srv.Ledger() {
				if e.Fault != llmtest.NoFault {
					faults++
				}
			}
			if wrong > 0 {
				return fmt.Errorf("selftest FAILED: %d answers do not match their prompts", wrong)
			}
			where := "store " + s.st.Path()
			if temporary {
				// Named only when it stays: the temporary one is deleted
				// as the command ends.
				where = "in a temporary store, now deleted (--db keeps one)"
			}
			fmt.Fprintf(g.Stdout, "selftest passed: %d jobs over the OpenAI, Anthropic and Gemini wire protocols (%d from cache), %d requests, %d injected faults recovered; %s\n",
				sum.Done, sum.Cached, len(srv.Ledger()), faults, where)
			return nil
		},
	}
	cmd.Flags().IntVar(&o.Jobs, "jobs", o.Jobs, "number of jobs")
	cmd.Flags().BoolVar(&o.Chaos, "chaos", o.Chaos, "inject faults (429, 5xx, hangs, malformed bodies, resets)")
	cmd.Flags().Uint64Var(&o.Seed, "seed", o.Seed, "seed of the fault injection")
	return cmd
}
