package cli

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/fallacylab/fallacylab/store"
	"github.com/spf13/cobra"
)

func newCacheCmd(g *Global) *cobra.Command {
	cmd := &cobra.Command{Use: "cache", Short: "Inspect the call cache"}
	var asJSON bool
	stats := &cobra.Command{
		Use:   "stats",
		Short: "Calls, cache hits, tokens and spend per model",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := openBrowse(g)
			if err != nil {
				return err
			}
			defer s.Close()
			stats, err := s.st.Stats(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(g, struct {
					Store  string      `json:"store"`
					Models []modelJSON `json:"models"`
				}{s.st.Path(), modelsOf(stats)})
			}
			if len(stats) == 0 {
				fmt.Fprintf(g.Stdout, "no calls stored in %s\n", s.st.Path())
				return nil
			}
			return modelTable(g.Stdout, stats)
		},
	}
	stats.Flags().BoolVar(&asJSON, "json", false, "print the statistics as JSON (docs/cli-json.md)")
	cmd.AddCommand(stats)
	cmd.AddCommand(newCacheImportCmd(g), newCachePruneCmd(g), newCacheClearCmd(g))
	return cmd
}

// modelTable prints per-model calls, cache hits, errors, tokens and spend with
// a total row.
func modelTable(w io.Writer, stats []store.ModelStats) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "model\tcalls\thits\terrors\tinput tokens\toutput tokens\tspend\t")
	var total store.ModelStats
	for _, m := range stats {
		fmt.Fprintf(tw, "%s:%s\t%d\t%d\t%d\t%d\t%d\t%s\t\n", m.Provider, m.Model, m.Calls, m.Hits, m.Errors, m.InputTokens, m.OutputTokens, money(m.Cost, m.UnpricedCalls))
		total.Calls += m.Calls
		total.Hits += m.Hits
		total.Errors += m.Errors
		total.InputTokens += m.InputTokens
		total.OutputTokens += m.OutputTokens
		total.Cost += m.Cost
		total.UnpricedCalls += m.UnpricedCalls
	}
	fmt.Fprintf(tw, "total\t%d\t%d\t%d\t%d\t%d\t%s\t\n", total.Calls, total.Hits, total.Errors, total.InputTokens, total.OutputTokens, money(total.Cost, total.UnpricedCalls))
	return tw.Flush()
}
