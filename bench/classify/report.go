package classify

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/detect"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
	"github.com/fallacylab/fallacylab/store"
)

// NoLabel is the prediction of an answer that named no label (or of a call
// that failed): wrong for every text, a column of the confusion matrix.
const NoLabel = "(no label)"

// ReportOptions are the report's options.
type ReportOptions struct {
	Resamples int
	Seed      uint64
	Level     float64
	// With are other runs whose scores join the run's in one table (other
	// models, templates, corpora).
	With []int64
}

// BindReport implements bench.Reports.
func (Task) BindReport(f *pflag.FlagSet) func(context.Context, bench.Env, store.Run) (*report.Report, error) {
	o := ReportOptions{Resamples: 1000, Seed: 20260101, Level: 0.95}
	f.IntVar(&o.Resamples, "resamples", o.Resamples, "bootstrap resamples of the texts for the intervals")
	f.Uint64Var(&o.Seed, "seed", o.Seed, "bootstrap seed")
	f.Int64SliceVar(&o.With, "with", nil, "other runs (ids, comma-separated) whose scores join this run's in the scores table")
	return func(ctx context.Context, env bench.Env, run store.Run) (*report.Report, error) {
		setup, preds, err := Load(ctx, env.Records, run.ID)
		if err != nil {
			return nil, err
		}
		rep, err := Report(setup, preds, o)
		if err != nil {
			return nil, err
		}
		for _, id := range o.With {
			s, p, err := Load(ctx, env.Records, id)
			if err != nil {
				return nil, fmt.Errorf("--with %d: %w", id, err)
			}
			sc, err := Score(s, p, o)
			if err != nil {
				return nil, fmt.Errorf("--with %d: %w", id, err)
			}
			t := rep.Tables()[0]
			t.Rows = append(t.Rows, scoreRow(s, sc))
		}
		rep.NotePointIntervals("text")
		return rep, nil
	}
}

// Load reads a run's setup and predictions.
func Load(ctx context.Context, rs bench.RecordReader, runID int64) (Setup, []Prediction, error) {
	var setup Setup
	found, err := bench.ReadOne(ctx, rs, runID, KindSetup, &setup)
	if err != nil {
		return setup, nil, fmt.Errorf("%s setup: %w", Name, err)
	}
	if !found {
		return setup, nil, fmt.Errorf("run %d holds no %s records", runID, Definition.Title)
	}
	preds, err := bench.ReadAll[Prediction](ctx, rs, runID, KindPrediction, "prediction")
	return setup, preds, err
}

// Scores are a run's headline numbers with their intervals.
type Scores struct {
	N                 int
	Accuracy, MacroF1 float64
	AccLo, AccHi      float64
	MacroLo, MacroHi  float64
	Unusable, Failed  int
	Classes           []stats.ClassScores
	Confusion         [][]int
	ConfusionCols     []string
	Micro, Weighted   stats.Averages
}

// Score computes a run's scores: accuracy and macro-F1 over the run's label
// set (scikit-learn's semantics, stats.Classify), the accuracy with its
// Wilson interval, macro-F1 with its percentile bootstrap interval over
// texts.
func Score(setup Setup, preds []Prediction, o ReportOptions) (Scores, error) {
	gold, pred := make([]string, len(preds)), make([]string, len(preds))
	var sc Scores
	for i, p := range preds {
		gold[i], pred[i] = p.Gold, p.Pred
		switch {
		case p.Failed != "":
			sc.Failed++
			pred[i] = NoLabel
		case p.Pred == "":
			sc.Unusable++
			pred[i] = NoLabel
		}
	}
	labels := []string(setup.Labels)
	r, err := stats.Classify(gold, pred, labels)
	if err != nil {
		return sc, err
	}
	sc.N, sc.Accuracy, sc.MacroF1, sc.Classes, sc.Micro, sc.Weighted = r.N, r.Accuracy, r.Macro.F1, r.Classes, r.Micro, r.Weighted
	sc.ConfusionCols = append(append([]string(nil), labels...), NoLabel)
	if sc.Confusion, err = stats.ConfusionMatrix(gold, pred, sc.ConfusionCols); err != nil {
		return sc, err
	}
	reps, err := stats.Bootstrap(len(preds), o.Resamples, o.Seed, func(idx []int) ([]float64, bool) {
		g, p := make([]string, len(idx)), make([]string, len(idx))
		for k, i := range idx {
			g[k], p[k] = gold[i], pred[i]
		}
		rr, err := stats.Classify(g, p, labels)
		return []float64{rr.Macro.F1}, err == nil
	})
	if err != nil {
		return sc, err
	}
	// The accuracy is a proportion of independent texts: Wilson's
	// interval, as every single proportion here has. The bootstrap's
	// percentile interval of a proportion collapses to a point at 0 and
	// at 1 (a 10-text look with none right read 0.0 [0.0, 0.0]).
	right := 0
	for i := range gold {
		if gold[i] == pred[i] {
			right++
		}
	}
	acc, err := stats.Prop(right, r.N, o.Level, stats.Wilson)
	if err != nil {
		return sc, err
	}
	sc.AccLo, sc.AccHi = acc.Lo, acc.Hi
	sc.MacroLo, sc.MacroHi = reps.Percentile(0, o.Level)
	return sc, nil
}

// Report is the report of a run's predictions.
func Report(setup Setup, preds []Prediction, o ReportOptions) (*report.Report, error) {
	if len(preds) == 0 {
		return nil, fmt.Errorf("no predictions to score")
	}
	sc, err := Score(setup, preds, o)
	if err != nil {
		return nil, err
	}
	tpl := templateOf(setup)
	rep := &report.Report{Title: Definition.Title, Benchmark: Name, Headline: "scores", Meta: [][2]string{
		{"corpus", setup.Corpus}, {"split", setup.Split}, {"template", tpl}, {"model", setup.Model},
		{"texts", fmt.Sprintf("%d of %d", len(preds), setup.Texts)},
		{"intervals", fmt.Sprintf("%.0f%% Wilson for the accuracy; percentile bootstrap over texts (%d resamples, seed %d) for macro-F1", 100*o.Level, o.Resamples, o.Seed)},
	}}
	if tr := setup.Trained; tr != nil {
		rep.Meta = append(rep.Meta, [2]string{"detector", trainedMeta(*tr)})
	}
	if setup.Limit > 0 {
		rep.Meta = append(rep.Meta, [2]string{"note", fmt.Sprintf("--limit %d: a quick look at %d of %d texts, taken in turn from each label, not a result", setup.Limit, len(preds), setup.Texts)})
	}
	s := rep.AddSection("Scores", "Accuracy counts every text; an answer that names no label is wrong. Macro-F1 averages the labels' F1 (scikit-learn's zero_division=0).")
	s.Add(&report.Table{ID: "scores", Title: "Accuracy and F1",
		Columns: []report.Column{{Key: "model", Label: "model"}, {Key: "corpus", Label: "corpus"}, {Key: "template", Label: "template"}, {Key: "n", Label: "texts"},
			{Key: "accuracy", Label: "accuracy"}, {Key: "macro_f1", Label: "macro-F1"}, {Key: "micro_f1", Label: "micro-F1"}, {Key: "weighted_f1", Label: "weighted F1"},
			{Key: "no_label", Label: "no label"}, {Key: "failed", Label: "failed calls"}},
		Rows: [][]report.Cell{scoreRow(setup, sc)}})
	pc := &report.Table{ID: "per_class", Title: "Precision, recall and F1 of each label",
		Columns: []report.Column{{Key: "label", Label: "label"}, {Key: "precision", Label: "precision"}, {Key: "recall", Label: "recall"}, {Key: "f1", Label: "F1"}, {Key: "support", Label: "support"}}}
	for _, c := range sc.Classes {
		pc.Rows = append(pc.Rows, []report.Cell{report.T(c.Label), report.F(c.Precision, 3), report.F(c.Recall, 3), report.F(c.F1, 3), report.I(c.Support)})
	}
	rep.AddSection("Per class", "").Add(pc)
	cm := &report.Table{ID: "confusion", Title: "Confusion (rows: gold, columns: predicted)", Columns: []report.Column{{Key: "gold", Label: "gold"}}}
	for _, c := range sc.ConfusionCols {
		cm.Columns = append(cm.Columns, report.Column{Key: c, Label: c})
	}
	for i, l := range setup.Labels {
		row := []report.Cell{report.T(l)}
		for _, n := range sc.Confusion[i] {
			row = append(row, report.I(n))
		}
		cm.Rows = append(cm.Rows, row)
	}
	rep.AddSection("Confusion", "").Add(cm)
	rep.NotePointIntervals("text")
	return rep, nil
}

// templateOf names a run's prompt ("—" for the built-in detector, which
// reads none).
func templateOf(s Setup) string {
	if s.Template == "" {
		return "—"
	}
	return s.Template
}

// scoreRow is a run's row of the scores table.
func scoreRow(s Setup, sc Scores) []report.Cell {
	return []report.Cell{report.T(s.Model), report.T(s.Corpus), report.T(templateOf(s)), report.I(sc.N),
		report.PCI(sc.Accuracy, sc.AccLo, sc.AccHi, sc.N), report.NCI(sc.MacroF1, sc.MacroLo, sc.MacroHi, 3),
		report.F(sc.Micro.F1, 3), report.F(sc.Weighted.F1, 3), report.I(sc.Unusable), report.I(sc.Failed)}
}

// trainedMeta says how the built-in detector was fitted: the C chosen on
// dev and every C's dev accuracy.
func trainedMeta(tr Trained) string {
	return fmt.Sprintf("TF-IDF + logistic regression (scikit-learn's lbfgs objective and tolerance), C = %g chosen by dev accuracy (%s)", tr.C, detect.SelectionText(tr.Selection))
}
