package cli

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
)

func newCacheCmd(g *Global) *cobra.Command {
	cmd := &cobra.Command{Use: "cache", Short: "Inspect the call cache"}
	cmd.AddCommand(&cobra.Command{
		Use:   "stats",
		Short: "Calls, cache hits, tokens and spend per model",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := openSession(g)
			if err != nil {
				return err
			}
			defer s.Close()
			stats, err := s.st.Stats(cmd.Context())
			if err != nil {
				return err
			}
			if len(stats) == 0 {
				fmt.Fprintf(g.Stdout, "no calls stored in %s\n", s.st.Path())
				return nil
			}
			tw := tabwriter.NewWriter(g.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "model\tcalls\thits\terrors\tinput tokens\toutput tokens\tspend\t")
			var calls, hits, errs int
			var in, out int64
			var cost float64
			unpriced := 0
			for _, m := range stats {
				fmt.Fprintf(tw, "%s:%s\t%d\t%d\t%d\t%d\t%d\t%s\t\n", m.Provider, m.Model, m.Calls, m.Hits, m.Errors, m.InputTokens, m.OutputTokens, money(m.Cost, m.UnpricedCalls))
				calls, hits, errs, in, out, cost, unpriced = calls+m.Calls, hits+m.Hits, errs+m.Errors, in+m.InputTokens, out+m.OutputTokens, cost+m.Cost, unpriced+m.UnpricedCalls
			}
			fmt.Fprintf(tw, "total\t%d\t%d\t%d\t%d\t%d\t%s\t\n", calls, hits, errs, in, out, money(cost, unpriced))
			return tw.Flush()
		},
	})
	return cmd
}

func newRunsCmd(g *Global) *cobra.Command {
	return &cobra.Command{
		Use:   "runs",
		Short: "List runs in the store, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := openSession(g)
			if err != nil {
				return err
			}
			defer s.Close()
			runs, err := s.st.Runs(cmd.Context())
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(g.Stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "id\tname\tbenchmark\tstatus\tstarted\tduration\tcalls\tcached")
			for _, r := range runs {
				dur := "-"
				if !r.Ended.IsZero() {
					dur = r.Ended.Sub(r.Started).Round(time.Millisecond).String()
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%d\t%d\n", r.ID, r.Name, r.Benchmark, r.Status, r.Started.Local().Format("2006-01-02 15:04:05"), dur, r.Calls, r.Cached)
			}
			return tw.Flush()
		},
	}
}
