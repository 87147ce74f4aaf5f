package missci

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/fallacylab/fallacylab/bench"

	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// evaluateClassification scores classify-gold (with the gold premise) or
// classify-only answers.
func evaluateClassification(task string, data []Argument, units []ClassifyUnit, got map[string]string) (ClassifyResult, error) {
	if task == "classify-gold" {
		var yTrue, yPred []string
		for _, u := range units {
			yTrue, yPred = append(yTrue, u.Gold), append(yPred, got[u.ID])
		}
		return EvaluateWithPremise(yTrue, yPred)
	}
	return EvaluateWithoutPremise(data, got)
}

func newHumanEvalCmd(h bench.Host) *cobra.Command {
	var file, format, out, pAt1 string
	cmd := &cobra.Command{
		Use:   "human-eval",
		Short: "Table 13: METEOR against the human judgement q4 on the paper's human-evaluation CSV",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := report.ParseFormat(format); err != nil {
				return err
			}
			var he HumanEvalMeteor
			var err error
			if file == "" {
				he, err = EmbeddedHumanEval()
			} else {
				var fh *os.File
				if fh, err = os.Open(file); err != nil {
					return err
				}
				he, err = HumanEval(fh, file)
				fh.Close()
			}
			if err != nil {
				return err
			}
			var strata []Stratum
			p1 := map[string]float64{}
			if file == "" {
				if strata, err = EmbeddedTable14(); err != nil {
					return err
				}
				for _, kv := range strings.Split(pAt1, ",") {
					if kv = strings.TrimSpace(kv); kv == "" {
						continue
					}
					k, v, ok := strings.Cut(kv, "=")
					x, err := strconv.ParseFloat(v, 64)
					if !ok || err != nil || x < 0 || x > 1 {
						return fmt.Errorf("--p-at-1 %q: want MODEL/PROMPT=P, e.g. \"GPT 4/definition=0.317\"", kv)
					}
					p1[k] = x
				}
			}
			rep := HumanEvalReport(he, strata, p1)
			return h.WriteReport(rep, format, out)
		},
	}
	cmd.Flags().StringVar(&file, "csv", "", "human-evaluation CSV (default: the embedded human-analysis/human-eval.csv)")
	cmd.Flags().StringVar(&pAt1, "p-at-1", "", "P@1 per model/prompt for the Table 4 approximation, e.g. \"GPT 4/definition=0.317\"")
	bench.AddReportFlags(cmd.Flags(), &format, &out, "output file")
	return cmd
}

// Help implements bench.Helps.
func (Task) Help(verb string) bench.Help {
	switch verb {
	case "run":
		return bench.Help{Short: "Run a Missci task with a model and score it",
			Long: `Tasks: reconstruct (premise + class per reasoning line, SPEC A.7), classify-gold (classify each gold
premise, A.8), classify-only (classify without a premise, A.9), consistency (classify the model's own
top-1 premise from --from-template, A.10). Every call is cached: consistency re-reads the
reconstruction answers from the cache without paying for them again. Several templates
(--template a,b / 'gen_cls/p4-*' / all) are a sweep: one run each, resumed as a whole, priced
as a whole by --dry-run, one table at the end.`,
			Example: `  fallacylab missci run --model openai:gpt-4.1 --template gen_cls/p4-connect-D
  fallacylab missci run --model openai:gpt-4.1 --template 'gen_cls/p4-*'
  fallacylab missci run --task classify-gold --model openai:gpt-4.1 --template cls_with_premise/classify-D
  fallacylab missci run --task consistency --model openai:gpt-4.1 --from-template gen_cls/p4-connect-D`}
	case "report":
		return bench.Help{Short: "Report a stored run (default: the latest): a reconstruction at any cut-off, a classification or a consistency check"}
	}
	return bench.Help{}
}

// BindReport implements bench.Reports: a reconstruction run at a cut-off
// (its premises paired and scored by the embeddings and scores its run
// made), or a classification or consistency run.
func (Task) BindReport(f *pflag.FlagSet) func(ctx context.Context, env bench.Env, run store.Run) (*report.Report, error) {
	k := cutOff{s: "1", k: 1}
	f.Var(&k, "k", "cut-off: 1…6 or all (1 reports every cut-off)")
	return func(ctx context.Context, env bench.Env, run store.Run) (*report.Report, error) {
		return runReport(ctx, env.Records, run, k.k)
	}
}

// cutOff is --k, checked as it is parsed (a bad value is refused before
// any store is opened).
type cutOff struct {
	s string
	k int
}

func (c *cutOff) String() string { return c.s }
func (c *cutOff) Type() string   { return "string" }
func (c *cutOff) Set(v string) error {
	k, err := parseK(v)
	if err != nil {
		return err
	}
	c.s, c.k = v, k
	return nil
}

// runReport is the report of a stored run at cut-off k.
func runReport(ctx context.Context, recs bench.RecordReader, run store.Run, k int) (*report.Report, error) {
	if c, ok, err := LoadClassification(ctx, recs, run.ID); err != nil || ok {
		if err != nil {
			return nil, err
		}
		return c.Report()
	}
	m, err := LoadRecord(ctx, recs, run.ID)
	if err != nil {
		return nil, err
	}
	data, err := Load(m.Split)
	if err != nil {
		return nil, err
	}
	x, names, err := storedScorers(ctx, recs, run.ID)
	if err != nil {
		return nil, err
	}
	rep, err := ReconstructionReport(data, m.Preds, k, m.Split, fmt.Sprintf("run %d: %s", run.ID, m.Source), m.Unknown, x)
	if err != nil {
		return nil, err
	}
	if names[0] != "" {
		rep.Meta = append(rep.Meta, [2]string{"embedder", names[0] + " (the run's embedding phase)"})
	}
	if names[1] != "" {
		rep.Meta = append(rep.Meta, [2]string{"scorer", names[1] + " (the run's scoring phase)"})
	}
	return rep, nil
}

// Brief implements bench.ShowsReport: a run at a terminal shows its whole
// report, as Markdown (Missci's report is its result).
func (Task) Brief(ctx context.Context, env bench.Env, run store.Run, w io.Writer) error {
	rep, err := runReport(ctx, env.Records, run, 1)
	if err != nil {
		return err
	}
	return report.Render(w, rep, report.Markdown)
}
