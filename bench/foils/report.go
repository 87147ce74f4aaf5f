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
	if verb == "run" {
		return bench.Help{
			Short: "Audit a detector: native vs scheme-matched false positives, separation, τ′ margin, errors, Firth regression",
			Long: `With no flags: the offline default — the embedded Reddit corpus, a TF-IDF + logistic-regression
detector trained on its train split on the spot, audited on Reddit's native "none" test items and
the released Reddit matched and wrong-scheme sets. No key and no network needed.

Detectors: tfidf (train on the corpus), model:FILE (from foils train), file:PREDS.csv (columns id,label;
ids as T:<item id>, M:<type>#<id>, W:<type>#<id>), llm:PROVIDER:MODEL[:typed|binary], or an http(s)://
URL speaking {"items":[{"id","text"}]} → {"predictions":[{"id","label"}]}.

The audit's report is its result: it is written to --out in --format (default: Markdown on
standard output), or, at a terminal without either, its verdict and key figures.`,
			Example: `  fallacylab foils audit
  fallacylab foils audit --corpus cocolofa --data-dir ../shared/data --detector llm:anthropic:claude-haiku-4-5:typed
  fallacylab foils audit --detector file:preds.csv --format json --out audit.json`,
		}
	}
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
