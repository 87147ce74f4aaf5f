package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/fallacylab/fallacylab/llm"
	"github.com/spf13/cobra"
)

func newModelsCmd(g *Global) *cobra.Command {
	cmd := &cobra.Command{Use: "models", Short: "Check and list model endpoints"}
	cmd.AddCommand(&cobra.Command{
		Use:         "check SPEC...",
		Annotations: callsModels(),
		Short:       "Send one tiny uncached request to each model and report whether it answers",
		Example: `  fallacylab models check openai:gpt-4.1-mini anthropic:claude-haiku-4-5 ollama:llama3.1
  fallacylab models check vllm:meta-llama/Llama-3.1-8B-Instruct`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return modelsCheck(cmd.Context(), g, args) },
	})
	var endpointsJSON bool
	endpoints := &cobra.Command{
		Use:   "endpoints",
		Short: "List the provider names usable in model specs and where their keys come from",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := openConfigOnly(g)
			if err != nil {
				return err
			}
			if endpointsJSON {
				type ep struct {
					Name        string `json:"name"`
					Type        string `json:"type"`
					BaseURL     string `json:"base_url"` // "" : the SDK's default
					KeyEnv      string `json:"key_env,omitempty"`
					KeyOptional bool   `json:"key_optional,omitempty"`
					CacheAs     string `json:"cache_as,omitempty"`
				}
				out := []ep{}
				for _, n := range s.Names() {
					e := s.Endpoints[n]
					out = append(out, ep{n, e.Type, llm.RedactURL(s.BaseURL(n)), e.APIKeyEnv, e.KeyOptional, e.CacheAs})
				}
				return printJSON(g, out)
			}
			for _, n := range s.Names() {
				ep := s.Endpoints[n]
				base := llm.RedactURL(s.BaseURL(n))
				if base == "" {
					base = "(provider default)"
				}
				key := ep.APIKeyEnv
				if key == "" {
					key = "-"
				}
				fmt.Fprintf(g.Stdout, "%-12s %-10s %-40s key: %s\n", n, ep.Type, base, key)
			}
			return nil
		},
	}
	endpoints.Flags().BoolVar(&endpointsJSON, "json", false, "print the endpoints as JSON (docs/cli-json.md)")
	cmd.AddCommand(endpoints)
	return cmd
}

func modelsCheck(ctx context.Context, g *Global, args []string) error {
	cfg, err := openConfigOnly(g)
	if err != nil {
		return err
	}
	if g.DryRun {
		fmt.Fprintf(g.Stdout, "dry run: would send one short request to each of %d models; nothing is sent\n", len(args))
		return nil
	}
	bad := 0
	for _, a := range args {
		spec, err := llm.ParseSpec(a)
		if err == nil {
			var p llm.Provider
			if p, err = cfg.Provider(spec.Provider, nil); err == nil {
				req := llm.UserPrompt("", "Reply with the single word OK.")
				req.MaxTokens = 16
				cctx, cancel := context.WithTimeout(ctx, g.Timeout)
				var resp llm.Response
				resp, err = p.Generate(cctx, spec.Model, req)
				cancel()
				if err == nil {
					fmt.Fprintf(g.Stdout, "ok    %-40s %5dms  %q\n", spec, resp.Latency.Round(time.Millisecond).Milliseconds(), truncate(resp.Text, 40))
					continue
				}
			}
		}
		bad++
		fmt.Fprintf(g.Stdout, "FAIL  %-40s %s\n", a, llm.Redact(err.Error(), secrets(cfg)...))
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d models failed the check", bad, len(args))
	}
	return nil
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
