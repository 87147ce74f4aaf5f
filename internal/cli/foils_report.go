package cli

import (
	"fmt"

	"github.com/fallacylab/fallacylab/bench/foils"
	"github.com/fallacylab/fallacylab/internal/records"
	"github.com/fallacylab/fallacylab/report"
	"github.com/spf13/cobra"
)

func newFoilsReportCmd(g *Global) *cobra.Command {
	var run int64
	var allowIncomplete bool
	var format, out string
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Report a stored Scheme Foils audit (default: the latest) in any format, without auditing again",
		Example: `  fallacylab foils report --format html --out audit.html
  fallacylab foils report --run 4 --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			f, err := report.ParseFormat(format)
			if err != nil {
				return err
			}
			s, err := openBrowse(g)
			if err != nil {
				return err
			}
			defer s.Close()
			r, err := pick(ctx, s.st, foils.Definition, foils.Definition.Title, run, allowIncomplete, nil, "fallacylab foils audit")
			if err != nil {
				return err
			}
			audits, err := records.LoadFoils(ctx, s.st, r.ID)
			if err != nil {
				return err
			}
			rep, _, err := foils.ReportOf(audits)
			if err != nil {
				return fmt.Errorf("run %d: %w", r.ID, err)
			}
			addPartial(r, rep)
			if err := provenance(ctx, s, r.ID, rep); err != nil {
				return err
			}
			if err := addStudies(ctx, s.st, r.ID, rep); err != nil {
				return err
			}
			return writeReport(g, rep, f, out)
		},
	}
	cmd.Flags().Int64Var(&run, "run", 0, "run id (default: the latest Scheme Foils audit)")
	cmd.Flags().BoolVar(&allowIncomplete, "allow-incomplete", false, "report a run that did not finish")
	cmd.Flags().StringVar(&format, "format", "md", "md, csv, json, tex or html")
	cmd.Flags().StringVar(&out, "out", "", "output file (default stdout)")
	return cmd
}
