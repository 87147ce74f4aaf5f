package foils

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store"
)

// BindReport implements bench.Reports: a stored audit's report, made from
// its records the way the audit made it when it ran.
func (Task) BindReport(*pflag.FlagSet) func(context.Context, bench.Env, store.Run) (*report.Report, error) {
	return func(ctx context.Context, env bench.Env, r store.Run) (*report.Report, error) {
		audits, err := LoadAudits(ctx, env.Records, r.ID)
		if err != nil {
			return nil, err
		}
		rep, _, err := ReportOf(audits)
		return rep, err
	}
}

// Help implements bench.Helps.
func (Task) Help(verb string) bench.Help {
	if verb != "report" {
		return bench.Help{}
	}
	return bench.Help{
		Short: "Report a stored Scheme Foils audit (default: the latest) in any format, without auditing again",
		Example: `  fallacylab foils report --format html --out audit.html
  fallacylab foils report --run 4 --format json`,
		Makes: "fallacylab foils audit",
	}
}
