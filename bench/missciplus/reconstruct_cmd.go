package missciplus

import (
	"fmt"
	"math"
	"os"

	"github.com/spf13/cobra"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
)

// Commands implements bench.Commands: eval scores subtask 3's
// reconstructions made elsewhere (upstream's mapped prediction files): a
// command of its own because it reads files, not a run.
func (Task) Commands(h bench.Host) []*cobra.Command { return []*cobra.Command{newEvalCmd(h)} }

func newEvalCmd(h bench.Host) *cobra.Command {
	var file, split, format, out string
	o := EvalOptions{Version: PassageWise}
	ro := ReportOptions{Resamples: 1000, Seed: 20260101, Level: 0.95}
	cmd := &cobra.Command{
		Use:   "eval --predictions FILE.jsonl",
		Short: "Score subtask 3's reconstructed fallacies (upstream's mapped prediction file) as upstream's evaluator",
		Long: `Each line of FILE is one argument's reconstruction in upstream's format (what
run_subtask_3.py's parse and map steps write): its prompts' parsed fallacies
(prediction_id, normalized_fallacy_class, fallacious_premise,
per-prompt-position-rank), the passages each prompt was given (from), and the
alignment of predictions to gold interchangeable fallacies. Scored as upstream's
GenClassifyEvaluatorMissciPlus: claim-level F1 (micro, macro, sample-averaged,
per class) and fallacy-level alignment (recall, precision, Arg@1; with the
alignment, and by class alone) over every prediction and each argument's top
1, 3, 5, 10 — with bootstrap intervals over arguments. Without --all, only the
predictions from the passages the fallacies rest on (and p0's) count.`,
		Example: `  fallacylab missciplus eval --predictions st3-passage-wise__p7.mapped.jsonl --layout passage-wise --split dev`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := report.ParseFormat(format); err != nil {
				return err
			}
			if file == "" {
				return fmt.Errorf("--predictions FILE.jsonl is required")
			}
			gold, err := Load(split)
			if err != nil {
				return fmt.Errorf("--split: %w", err)
			}
			fh, err := os.Open(file)
			if err != nil {
				return fmt.Errorf("--predictions: %w", err)
			}
			preds, err := ParsePredictions(fh, file)
			fh.Close()
			if err != nil {
				return err
			}
			rep, err := ReconstructionReport(preds, gold, o, ro)
			if err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			rep.Meta = append([][2]string{{"predictions", file}, {"split", split}}, rep.Meta...)
			return h.WriteReport(rep, format, out)
		},
	}
	f := cmd.Flags()
	f.StringVar(&file, "predictions", "", "upstream's mapped prediction file (JSONL)")
	f.StringVar(&split, "split", "test", "dev or test: the arguments scored (every one needs a prediction)")
	f.StringVar(&o.Version, "layout", o.Version, "the prompts' layout: passage-wise, concat-all, concat-context or context-wise")
	f.BoolVar(&o.AllPassages, "all", false, "score the predictions from every passage, not only from those the fallacies rest on")
	f.BoolVar(&o.OnlyMappedContext, "only-mapped-context", false, "the context layouts: keep only the contexts mapped to passages")
	f.IntVar(&ro.Resamples, "resamples", ro.Resamples, "bootstrap resamples of the arguments")
	f.Uint64Var(&ro.Seed, "seed", ro.Seed, "bootstrap seed")
	bench.AddReportFlags(f, &format, &out, "write the report to this file (default: stdout)")
	return cmd
}

// argAt1Aligned and argAt1ClassOnly are where reconstructionFigures puts
// the two Arg@1s, shares of the arguments.
const argAt1Aligned, argAt1ClassOnly = 6, 9

// reconstructionFigures are a cut's headline figures, in the report's
// column order.
func reconstructionFigures(s TopScores) []float64 {
	return []float64{s.ClaimLevel.F1Micro, s.ClaimLevel.F1Macro, s.ClaimLevel.F1Samples,
		s.Aligned.Interchangeable.Precision, s.Aligned.Interchangeable.Recall, s.Aligned.Necessary.RecallMapped, s.Aligned.Necessary.Arg1,
		s.ByClassOnly.Interchangeable.Precision, s.ByClassOnly.Interchangeable.Recall, s.ByClassOnly.Necessary.Arg1}
}

// ReconstructionReport is subtask 3's report: a row per cut (every
// prediction, each argument's top 1, 3, 5, 10) of upstream's scores with
// percentile-bootstrap intervals over arguments, and the classes' scores.
func ReconstructionReport(preds []ArgumentPrediction, gold []Argument, o EvalOptions, ro ReportOptions) (*report.Report, error) {
	sc, err := EvaluateReconstruction(preds, gold, o)
	if err != nil {
		return nil, err
	}
	// The predictions as scored (the gold passages' only, unless --all).
	scored := preds
	if !o.AllPassages {
		byID := map[string]Argument{}
		for _, a := range gold {
			byID[a.ID] = a
		}
		scored = nil
		for _, p := range preds {
			q, err := goldOnly(p, byID[p.Argument], o)
			if err != nil {
				return nil, err
			}
			scored = append(scored, q)
		}
	}
	rep := &report.Report{Title: "MissciPlus Subtask 3: the fallacious argument reconstructed from passages", Benchmark: Name}
	what := "only the predictions from the passages the fallacies rest on and p0's"
	if o.AllPassages {
		what = "every prediction"
	}
	rep.Meta = [][2]string{{"layout", o.Version}, {"scored", what},
		{"arguments", fmt.Sprint(sc.Stats.Arguments)},
		{"prompts", fmt.Sprintf("%d, %d parsed (%.1f %%)", sc.Stats.Prompts, sc.Stats.ParsedAbsolute, 100*sc.Stats.ParsedRelative)},
		{"predictions", fmt.Sprintf("%d (%.2f per prompt, %.2f per argument)", sc.Stats.TotalPredictions, sc.Stats.PerPrompt.Mean, sc.Stats.PerArgument.Mean)},
		{"intervals", fmt.Sprintf("percentile bootstrap over arguments, %d resamples, seed %d; Wilson's for Arg@1, a share of the arguments", ro.Resamples, ro.Seed)},
		{"metrics", "as UKPLab/naacl2025-missciplus (missci/eval/missciplus_metrics.py, evaluator_gen_classify_missciplus.py), checked against that code"}}
	sec := rep.AddSection("Reconstruction", "Claim level: each argument's predicted classes against its gold classes (F1 over the nine classes and None; scikit-learn, zero_division 0). Fallacy level: gold interchangeable fallacies a prediction was aligned to — by the premise judge's alignment, and by class alone — and Arg@1, the share of arguments with a reasoning line found. Other, None and unnamed classes are left out.")
	t := sec.Add(&report.Table{ID: "reconstruction", Title: "Reconstruction by cut",
		Columns: report.Cols("predictions", "F1 micro", "F1 macro", "F1 samples", "precision (aligned)", "recall (aligned)", "line recall (aligned)", "Arg@1 (aligned)", "precision (class only)", "recall (class only)", "Arg@1 (class only)")})
	for _, c := range []struct {
		name string
		k    int
		s    TopScores
	}{{"all", -1, sc.All}, {"top 1", 1, sc.Top1}, {"top 3", 3, sc.Top3}, {"top 5", 5, sc.Top5}, {"top 10", 10, sc.Top10}} {
		obs := reconstructionFigures(c.s)
		reps, err := stats.Bootstrap(len(gold), ro.Resamples, ro.Seed, func(idx []int) ([]float64, bool) {
			sub := make([]Argument, len(idx))
			for i, k := range idx {
				sub[i] = gold[k]
			}
			return reconstructionFigures(scoreTop(scored, sub, c.k)), true
		})
		if err != nil {
			return nil, err
		}
		row := []report.Cell{report.T(c.name)}
		for j, v := range obs {
			if math.IsNaN(v) {
				row = append(row, report.NA("no prediction"))
				continue
			}
			lo, hi := reps.Percentile(j, ro.Level)
			if j == argAt1Aligned || j == argAt1ClassOnly {
				// Arg@1 is a share of the arguments: Wilson's interval,
				// as every single proportion has (the bootstrap's is a
				// point at 0 and 1).
				w, err := stats.Prop(int(math.Round(v*float64(len(gold)))), len(gold), ro.Level, stats.Wilson)
				if err != nil {
					return nil, err
				}
				lo, hi = w.Lo, w.Hi
			}
			row = append(row, report.NCI(v, lo, hi, 3))
		}
		t.Rows = append(t.Rows, row)
	}
	ct := sec.Add(&report.Table{ID: "classes", Title: "Claim level by class (every prediction)", Columns: report.Cols("class", "precision", "recall", "F1")})
	for _, c := range Classes {
		cs := sc.All.ClaimLevel.PerClass[c]
		ct.Rows = append(ct.Rows, []report.Cell{report.T(c), report.F(cs.Precision, 3), report.F(cs.Recall, 3), report.F(cs.F1, 3)})
	}
	rep.Headline = "reconstruction"
	rep.NotePointIntervals("argument")
	return rep, nil
}
