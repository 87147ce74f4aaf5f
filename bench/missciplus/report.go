package missciplus

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
	"github.com/fallacylab/fallacylab/store"
)

// ReportOptions set a report's intervals.
type ReportOptions struct {
	Resamples int
	Seed      uint64
	Level     float64
}

// BindReport implements bench.Reports.
func (Task) BindReport(f *pflag.FlagSet) func(context.Context, bench.Env, store.Run) (*report.Report, error) {
	o := ReportOptions{Resamples: 1000, Seed: 20260101, Level: 0.95}
	f.IntVar(&o.Resamples, "resamples", o.Resamples, "bootstrap resamples of the arguments for the intervals")
	f.Uint64Var(&o.Seed, "seed", o.Seed, "bootstrap seed")
	return func(ctx context.Context, env bench.Env, run store.Run) (*report.Report, error) {
		if env.Resamples > 0 {
			o.Resamples = env.Resamples
		}
		setup, rankings, err := LoadRun(ctx, env.Records, run.ID)
		if err != nil {
			return nil, err
		}
		if setup.Subtask == 3 {
			return reconstructionRunReport(ctx, env.Records, run.ID, setup, o)
		}
		return Report(setup, rankings, o)
	}
}

// Report is a ranking run's report: each metric upstream's evaluator
// gives, averaged over the arguments, with Wilson's interval where it is a
// share of arguments and percentile-bootstrap intervals over arguments
// otherwise — a row per seed and, for several seeds, their mean (the
// figure upstream prints), its interval resampling the arguments' means
// over the seeds.
func Report(setup Setup, rankings [][]Ranking, o ReportOptions) (*report.Report, error) {
	args, scored, err := setup.Arguments()
	if err != nil {
		return nil, err
	}
	title := map[int]string{1: "Subtask 1: the passage that states the accurate premise", 2: "Subtask 2: the passages the fallacies rest on"}[setup.Subtask]
	rep := &report.Report{Title: "MissciPlus " + title, Benchmark: Name}
	rep.Meta = [][2]string{{"split", fmt.Sprintf("%s (%d of its %d arguments ranked)", setup.Split, len(scored), len(args))},
		{"setting", settingOf(setup)}, {"ranker", setup.Ranker},
		{"intervals", fmt.Sprintf("level %.2f: Wilson's for a share of arguments (a metric every argument scores 0 or 1, as P@1 of one ranking); percentile bootstrap over arguments otherwise, %d resamples, seed %d", o.Level, o.Resamples, o.Seed)},
		{"metrics", "as UKPLab/naacl2025-missciplus (missci/eval/ranking_metrics.py and its evaluators), checked against that code"}}
	if len(setup.Seeds) > 0 {
		rep.Meta = append(rep.Meta, [2]string{"seeds", seedList(setup.Seeds)})
	}
	if setup.P0 {
		rep.Meta = append(rep.Meta, [2]string{"query", fmt.Sprintf("a passage stating p0 (drawn with seed %d), \" Therefore: \" and the claim (--p0)", setup.Seed)})
	}
	if setup.Ranker == "bm25" {
		corpus := "the selected passages"
		if setup.Full {
			corpus = "every passage"
		}
		rep.Meta = append(rep.Meta, [2]string{"scoring", fmt.Sprintf("BM25Okapi (rank_bm25 0.2.2: k1 1.5, b 0.75, ε 0.25) of the claim over %s of the split's studies, tokenised by spaCy's en_core_web_sm tokenizer and lowercased (upstream's bm25.py)", corpus)})
	}
	if setup.Embedder != "" {
		how := "concat: the cosine of a passage's joined sentences to the claim"
		if setup.Variant == "mean" {
			how = fmt.Sprintf("mean: the mean cosine of a passage's %d best sentences to the claim", setup.K)
		}
		rep.Meta = append(rep.Meta, [2]string{"embedder", setup.Embedder},
			[2]string{"scoring", fmt.Sprintf("%s; %s (upstream's EmbeddingRanker)", how, sectionTitles(setup.AddSection))})
	}
	if setup.Iterations > 0 {
		order := "natural (by passage number)"
		if setup.InitialOrder == "random" {
			order = fmt.Sprintf("random (CPython's shuffle, seed %d)", setup.Seed)
		}
		rep.Meta = append(rep.Meta, [2]string{"model", setup.Model}, [2]string{"template", "prp/" + setup.Template},
			[2]string{"pairwise ranking", fmt.Sprintf("sliding window, %d iterations, initial order %s, %s (upstream's prp_sliding.py)", setup.Iterations, order, sectionTitles(setup.AddSection))})
	}
	names := Subtask1Metrics
	if setup.Subtask == 2 {
		names = Subtask2Metrics
	}
	intro := "Averaged over the arguments whose accurate premise a passage states (upstream scores no other)."
	if setup.Subtask == 2 {
		intro = "Averaged over every argument. R@k counts the fallacies resting on p0 alone as found; mAP ranks every passage of the study."
	}
	sec := rep.AddSection("Scores", intro)
	t := sec.Add(&report.Table{ID: "scores", Title: "Scores by ranking", Columns: report.Cols(append([]string{"ranking", "arguments"}, names...)...)})
	var per []Scores
	for i, rk := range rankings {
		sc, err := Score(setup.Subtask, scored, rk, setup.Full)
		if err != nil {
			return nil, err
		}
		per = append(per, sc)
		label := setup.Ranker
		switch {
		case setup.Iterations > 0:
			label = fmt.Sprintf("prp, after %d of %d iterations", i+1, setup.Iterations)
		case len(setup.Seeds) > 0:
			label = fmt.Sprintf("%s, seed %d", setup.Ranker, setup.Seeds[i])
		}
		row, err := scoreRow(label, sc, o)
		if err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, row)
	}
	if len(per) > 1 && setup.Iterations == 0 {
		mean := Scores{Names: names, IDs: per[0].IDs, N: per[0].N}
		for i := range per[0].Rows {
			row := make([]float64, len(names))
			for _, sc := range per {
				for j, v := range sc.Rows[i] {
					row[j] += v
				}
			}
			for j := range row {
				row[j] /= float64(len(per))
			}
			mean.Rows = append(mean.Rows, row)
		}
		row, err := scoreRow(fmt.Sprintf("%s, mean of %d seeds", setup.Ranker, len(per)), mean, o)
		if err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, row)
	}
	rep.Headline = "scores"
	rep.NotePointIntervals("argument")
	return rep, nil
}

// sectionTitles says whether passages carried their section titles
// (--add-section).
func sectionTitles(with bool) string {
	if with {
		return "passages with their section titles"
	}
	return "passages without section titles"
}

// scoreRow is one ranking's mean scores with their bootstrap intervals.
func scoreRow(label string, sc Scores, o ReportOptions) ([]report.Cell, error) {
	row := []report.Cell{report.T(label), report.I(sc.N)}
	if sc.N == 0 {
		for range sc.Names {
			row = append(row, report.NA("no argument scored"))
		}
		return row, nil
	}
	reps, err := stats.Bootstrap(sc.N, o.Resamples, o.Seed, func(idx []int) ([]float64, bool) {
		out := make([]float64, len(sc.Names))
		for _, i := range idx {
			for j, v := range sc.Rows[i] {
				out[j] += v
			}
		}
		for j := range out {
			out[j] /= float64(len(idx))
		}
		return out, true
	})
	if err != nil {
		return nil, err
	}
	for j := range sc.Names {
		lo, hi := reps.Percentile(j, o.Level)
		if k, ok := sc.share(j); ok {
			// A share of arguments (P@1, HasPositive@k of one ranking):
			// Wilson's interval, as every single proportion has. The
			// bootstrap's percentile interval of a proportion collapses
			// to a point at 0 and 1 (4 arguments all with a positive in
			// their top 3 read 1.000 [1.000, 1.000]).
			p, err := stats.Prop(k, sc.N, o.Level, stats.Wilson)
			if err != nil {
				return nil, err
			}
			lo, hi = p.Lo, p.Hi
		}
		row = append(row, report.NCI(sc.Mean(j), lo, hi, 3))
	}
	return row, nil
}

// share is how many arguments score 1 on metric j, where every argument
// scores 0 or 1 (the metric is a share of arguments); false otherwise (a
// mean rank, a P@k of several passages, a mean over seeds).
func (sc Scores) share(j int) (int, bool) {
	k := 0
	for _, r := range sc.Rows {
		switch r[j] {
		case 1:
			k++
		case 0:
		default:
			return 0, false
		}
	}
	return k, true
}
