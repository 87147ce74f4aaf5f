package foils

import (
	"fmt"

	"github.com/fallacylab/fallacylab/bench"

	"github.com/fallacylab/fallacylab/report"
	"github.com/spf13/cobra"
)

func newFoilsReportCmd(h bench.Host) *cobra.Command {
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
			if _, err := report.ParseFormat(format); err != nil {
				return err
			}
			s, err := h.Open(ctx, false)
			if err != nil {
				return err
			}
			defer s.Close()
			r, err := s.Pick(ctx, run, allowIncomplete, Definition.Title, nil, "fallacylab foils audit")
			if err != nil {
				return err
			}
			audits, err := LoadAudits(ctx, s.Env("").Records, r.ID)
			if err != nil {
				return err
			}
			rep, _, err := ReportOf(audits)
			if err != nil {
				return fmt.Errorf("run %d: %w", r.ID, err)
			}
			s.Partial(r, rep)
			if err := s.Provenance(ctx, r.ID, rep); err != nil {
				return err
			}
			if err := s.Studies(ctx, r.ID, rep); err != nil {
				return err
			}
			return h.WriteReport(rep, format, out)
		},
	}
	cmd.Flags().Int64Var(&run, "run", 0, "run id (default: the latest Scheme Foils audit)")
	cmd.Flags().BoolVar(&allowIncomplete, "allow-incomplete", false, "report a run that did not finish")
	bench.AddReportFlags(cmd.Flags(), &format, &out, "")
	return cmd
}
