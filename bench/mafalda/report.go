package mafalda

import (
	"context"
	"fmt"
	"math"

	"github.com/spf13/pflag"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
	"github.com/fallacylab/fallacylab/store"
)

// ReportOptions are the report's options.
type ReportOptions struct {
	Resamples int
	Seed      uint64
	Level     float64
	// Metric is upstream's span precision: "current" (its released code)
	// or "published" (the code of its published table and paper).
	Metric string
}

// BindReport implements bench.Reports.
func (Task) BindReport(f *pflag.FlagSet) func(context.Context, bench.Env, store.Run) (*report.Report, error) {
	o := ReportOptions{Resamples: 1000, Seed: 20260101, Level: 0.95, Metric: Current.String()}
	f.IntVar(&o.Resamples, "resamples", o.Resamples, "bootstrap resamples of the texts for the intervals")
	f.Uint64Var(&o.Seed, "seed", o.Seed, "bootstrap seed")
	f.StringVar(&o.Metric, "metric", o.Metric, "span precision as upstream's released code computes it (current), or as the code of its published table and paper did (published: spans predicted \"nothing\" score too)")
	bench.Choices(f, "metric", Current.String(), Published.String())
	return func(ctx context.Context, env bench.Env, run store.Run) (*report.Report, error) {
		setup, recs, err := LoadRun(ctx, env.Records, run.ID)
		if err != nil {
			return nil, err
		}
		return Report(setup, recs, o)
	}
}

// LoadRun reads a run's setup and texts.
func LoadRun(ctx context.Context, rs bench.RecordReader, runID int64) (Setup, []Record, error) {
	var setup Setup
	found, err := bench.ReadOne(ctx, rs, runID, KindSetup, &setup)
	if err != nil {
		return setup, nil, fmt.Errorf("%s setup: %w", Name, err)
	}
	if !found {
		return setup, nil, fmt.Errorf("run %d holds no %s records", runID, Definition.Title)
	}
	recs, err := bench.ReadAll[Record](ctx, rs, runID, KindText, "text")
	return setup, recs, err
}

// loadScored reads a run and scores its texts with upstream's released
// metric (the viewer's pages and comparisons).
func loadScored(ctx context.Context, rs bench.RecordReader, runID int64) (Setup, []Record, Scored, error) {
	setup, recs, err := LoadRun(ctx, rs, runID)
	if err != nil {
		return setup, nil, Scored{}, err
	}
	sc, err := Score(setup, recs, Current)
	return setup, recs, sc, err
}

// variantOf reads --metric.
func variantOf(s string) (Variant, error) {
	switch s {
	case Current.String():
		return Current, nil
	case Published.String():
		return Published, nil
	}
	return 0, fmt.Errorf("--metric %q: use current or published", s)
}

// Scored are a run's per-text results and what its answers held.
type Scored struct {
	Results []Result
	// Sentences, Unknown and Failed count the sentences asked about, the
	// answers that named nothing upstream reads, and the calls that failed
	// (scored as answers naming nothing).
	Sentences, Unknown, Failed int
}

// Score scores each text of a run as upstream's evaluate does.
func Score(setup Setup, recs []Record, v Variant) (Scored, error) {
	var sc Scored
	for _, r := range recs {
		gold, err := GoldSpans(Text{Text: r.Text, Labels: r.Labels})
		if err != nil {
			return sc, fmt.Errorf("text %d: %w", r.Index, err)
		}
		answers := make([]Answer, len(r.Answers))
		for k, a := range r.Answers {
			labels := a.Labels
			sc.Sentences++
			switch {
			case a.Failed != "":
				sc.Failed++
				labels = []int{Unknown(setup.Level)}
			case unknownOnly(labels, setup.Level):
				sc.Unknown++
			}
			answers[k] = Answer{Sentence: a.Sentence, Labels: labels}
		}
		sc.Results = append(sc.Results, Evaluate(answers, gold, setup.Level, v))
	}
	return sc, nil
}

// means are the 18 means over results, as upstream's CSV orders them (span
// P/R/F1 at levels 0, 1, 2, then label P/R/F1 at levels 0, 1, 2; a NaN
// counts 0, as upstream's F1 does).
func means(rs []Result, idx []int) []float64 {
	out := make([]float64, 18)
	for _, i := range idx {
		r := rs[i]
		for lv := range 3 {
			for k, v := range []float64{r.Span[lv].P, r.Span[lv].R, r.Span[lv].F1, r.Label[lv].P, r.Label[lv].R, r.Label[lv].F1} {
				if math.IsNaN(v) {
					v = 0
				}
				col := lv*3 + k%3
				if k >= 3 {
					col += 9
				}
				out[col] += v
			}
		}
	}
	for c := range out {
		out[c] /= float64(len(idx))
	}
	return out
}

// Report is the report of a run's texts: upstream's six scores at each
// level the run has, with percentile bootstrap intervals over texts.
func Report(setup Setup, recs []Record, o ReportOptions) (*report.Report, error) {
	if len(recs) == 0 {
		return nil, fmt.Errorf("the run has no text with every sentence answered yet")
	}
	v, err := variantOf(o.Metric)
	if err != nil {
		return nil, err
	}
	sc, err := Score(setup, recs, v)
	if err != nil {
		return nil, err
	}
	all := make([]int, len(sc.Results))
	for i := range all {
		all[i] = i
	}
	point := means(sc.Results, all)
	reps, err := stats.Bootstrap(len(sc.Results), o.Resamples, o.Seed, func(idx []int) ([]float64, bool) { return means(sc.Results, idx), true })
	if err != nil {
		return nil, err
	}
	rep := &report.Report{Title: Definition.Title, Benchmark: Name, Headline: "scores", Meta: [][2]string{
		{"model", setup.Model}, {"prompt level", fmt.Sprint(setup.Level)},
		{"texts", fmt.Sprintf("%d of %d (%d sentences)", len(recs), setup.Texts, sc.Sentences)},
		{"span precision", metricNote(v)},
		{"intervals", fmt.Sprintf("%.0f%% percentile bootstrap over texts, %d resamples, seed %d", 100*o.Level, o.Resamples, o.Seed)},
	}}
	if setup.Limit > 0 {
		rep.Meta = append(rep.Meta, [2]string{"note", fmt.Sprintf("--limit %d: a quick look at the first %d of %d texts, not a result", setup.Limit, len(recs), setup.Texts)})
	}
	t := &report.Table{ID: "scores", Title: "Span and label scores (means over texts)",
		Columns: []report.Column{{Key: "level", Label: "level"}, {Key: "span_p", Label: "span P"}, {Key: "span_r", Label: "span R"}, {Key: "span_f1", Label: "span F1"},
			{Key: "label_p", Label: "label P"}, {Key: "label_r", Label: "label R"}, {Key: "label_f1", Label: "label F1"}}}
	names := [3]string{"0: fallacy or not", "1: emotion, logic, credibility", "2: 23 fallacies"}
	for lv := 2; lv >= 0; lv-- {
		if !sc.Results[0].Has[lv] {
			continue
		}
		row := []report.Cell{report.T(names[lv])}
		for _, c := range []int{lv * 3, lv*3 + 1, lv*3 + 2, 9 + lv*3, 9 + lv*3 + 1, 9 + lv*3 + 2} {
			lo, hi := reps.Percentile(c, o.Level)
			row = append(row, report.NCI(point[c], lo, hi, 3))
		}
		t.Rows = append(t.Rows, row)
	}
	rep.AddSection("Scores", "Span scores: a predicted span scores the share of it a gold span with its label covers (precision); a gold span the share of it a prediction with one of its labels covers (recall); gold spans may carry several acceptable labels. Label scores compare the labels predicted anywhere in the text with the gold's. Each is upstream's mean over texts.").Add(t)
	ans := &report.Table{ID: "answers", Title: "Sentences asked, and answers read as unknown", Columns: []report.Column{{Key: "sentences", Label: "sentences"}, {Key: "unknown", Label: "named nothing"}, {Key: "failed", Label: "failed calls"}},
		Rows: [][]report.Cell{{report.I(sc.Sentences), report.I(sc.Unknown), report.I(sc.Failed)}}}
	rep.AddSection("Answers", "An answer that names no fallacy and does not say none is read as unknown, as upstream reads it; a failed call counts the same.").Add(ans)
	rep.NotePointIntervals("text")
	return rep, nil
}

func metricNote(v Variant) string {
	if v == Published {
		return "published: as upstream's code made its published table (spans predicted \"nothing\" score too)"
	}
	return "current: as upstream's released code (spans predicted \"nothing\" score 0); --metric published for the paper's"
}
