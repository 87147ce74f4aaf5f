package missci

import (
	"fmt"
	"strings"

	"github.com/fallacylab/fallacylab/report"
)

// Scorers are the optional premise scorers of a reconstruction report:
// Embed pairs premises by embedding cosine (nil: the lexical fallback);
// Score computes BERTScore and NLI per (gold, predicted) pair (nil: not
// computed). Both are given by the caller, which owns their I/O.
type Scorers struct {
	Embed Embedder
	Score func(pairs []Pair) ([]map[string]float64, error)
}

// ReconstructionReport is the report of one reconstruction run: every
// cut-off (k = 1: all of 1…6 and all), per-class scores, Arg@t and premise
// quality.
func ReconstructionReport(data []Argument, preds Predictions, k int, split, source string, unknown []string, x Scorers) (*report.Report, error) {
	cov := Covered(data, preds)
	if err := cov.err(split); err != nil {
		return nil, err
	}
	data = cov.Args
	var names []string
	var rs []Reconstruction
	ks := []int{k}
	if k == 1 {
		ks = []int{1, 2, 3, 4, 5, 6, 0}
	}
	for _, kk := range ks {
		r, err := EvaluateReconstruction(data, preds, kk)
		if err != nil {
			return nil, err
		}
		names, rs = append(names, source), append(rs, r)
	}
	rep := &report.Report{Title: "Missci reconstruction", Benchmark: "missci", Headline: "reconstruction", Meta: [][2]string{{"split", split}, {"source", source},
		{"unknown class names mapped to Other", unknownNames(unknown)}}}
	if d := cov.Describe(); d != "" {
		rep.Meta = append(rep.Meta, [2]string{"arguments", d})
	}
	sec := rep.AddSection("Reconstruction", "HasPositive@k is the paper's P@1 at k = 1; Other is never a false positive in micro-F1 (SPEC A.7).")
	sec.Add(ReconstructionTable("reconstruction", "Reconstruction by cut-off k", names, rs))
	sec.Add(PerClassTable(rs[0]))
	sec.Add(ArgTTable(rs[0]))
	if err := premiseSection(rep, data, preds, k, x); err != nil {
		return nil, err
	}
	return rep, nil
}

// unknownNames says which class names no class matched: "none", or how
// many distinct names in how many answers, and the first five names, each
// once.
func unknownNames(unknown []string) string {
	if len(unknown) == 0 {
		return "none"
	}
	var names []string
	seen := map[string]bool{}
	for _, n := range unknown {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	s := fmt.Sprintf("%d in %d answers: ", len(names), len(unknown))
	if len(names) == len(unknown) {
		s = fmt.Sprintf("%d: ", len(names))
	}
	if len(names) > 5 {
		return s + strings.Join(names[:5], ", ") + ", …"
	}
	return s + strings.Join(names, ", ")
}

// premiseSection adds METEOR (and, with a scorer, BERTScore and NLI) over
// the matched (gold, predicted) premise pairs.
func premiseSection(rep *report.Report, data []Argument, preds Predictions, k int, x Scorers) error {
	pairs, err := MatchPairsWith(data, preds, k, x.Embed)
	if err != nil {
		return err
	}
	ps, err := ScorePairs(pairs)
	if err != nil {
		return err
	}
	how := fmt.Sprintf("%d of %d lines had no class match and were paired by the lexical fallback (token-set Jaccard) instead of upstream's SBERT cosine, since no --embedder is configured.", ps.NLexical, ps.N)
	if x.Embed != nil {
		how = fmt.Sprintf("%d of %d lines had no class match and were paired by embedding cosine (--embedder).", ps.NEmbedding, ps.N)
	}
	intro := "METEOR as nltk 3.8 computes it (word_tokenize, Porter, WordNet 3.0), reference = gold premise. Pairs are matched by class first; " + how
	if x.Score == nil {
		intro += " BERTScore and NLI-A/NLI-S: not computed (no --scorer configured)."
	}
	sec := rep.AddSection("Premise quality", intro)
	cols := []string{"pairs", "METEOR all", "METEOR correct class", "METEOR incorrect class"}
	row := []report.Cell{report.I(ps.N), report.F(ps.All, 4), report.F(ps.Correct, 4), report.F(ps.Incorrect, 4)}
	if x.Score != nil {
		scores, err := x.Score(pairs)
		if err != nil {
			return err
		}
		for _, m := range []string{"bertscore", "nli_a", "nli_s"} {
			sum, n := 0.0, 0
			for _, s := range scores {
				if v, ok := s[m]; ok {
					sum += v
					n++
				}
			}
			cols = append(cols, m)
			if n == 0 {
				row = append(row, report.NA("not returned by the scorer"))
			} else {
				row = append(row, report.F(sum/float64(n), 4))
			}
		}
	}
	t := sec.Add(&report.Table{ID: "premise_quality", Title: "Generated premises against gold premises", Columns: report.Cols(cols...)})
	t.Rows = append(t.Rows, row)
	per, n, err := PerClassMeteor(pairs)
	if err != nil {
		return err
	}
	pc := sec.Add(&report.Table{ID: "premise_meteor_per_class", Title: "METEOR of correctly classified premises, per gold class", Columns: report.Cols("class", "pairs", "METEOR")})
	for _, c := range Classes {
		if n[c] > 0 {
			pc.Rows = append(pc.Rows, []report.Cell{report.T(c), report.I(n[c]), report.F(per[c], 4)})
		}
	}
	return nil
}

// sweepSections adds to rep the tables comparing templates' reconstructions
// (xs: each one's premise scorers).
func sweepSections(rep *report.Report, data []Argument, templates []string, byRun bool, preds []Predictions, xs []Scorers) error {
	var rs []Reconstruction
	for _, p := range preds {
		r, err := EvaluateReconstruction(data, p, 1)
		if err != nil {
			return err
		}
		rs = append(rs, r)
	}
	intro, by := "One row per template at k = 1 (the paper's Tables 9–10 layout); HasPositive@1 is P@1. Each template is a run of its own: `missci report --run ID` gives its full report.", "template"
	if byRun { // runs of one template (a sweep of models)
		intro, by = "One row per run at k = 1 (the paper's Tables 9–10 layout); HasPositive@1 is P@1. `missci report --run ID` gives a run's full report.", "run"
	}
	sec := rep.AddSection("Reconstruction", intro)
	sec.Add(ReconstructionTable("by_template", "Reconstruction by "+by+" (k = 1)", templates, rs))
	t := sec.Add(&report.Table{ID: "meteor_by_template", Title: "Premise METEOR by " + by + " (k = 1)", Columns: report.Cols(by, "pairs", "METEOR all", "METEOR correct class", "METEOR incorrect class")})
	for i, p := range preds {
		pairs, err := MatchPairsWith(data, p, 1, xs[i].Embed)
		if err != nil {
			return err
		}
		ps, err := ScorePairs(pairs)
		if err != nil {
			return err
		}
		t.Rows = append(t.Rows, []report.Cell{report.T(templates[i]), report.I(ps.N), report.F(ps.All, 4), report.F(ps.Correct, 4), report.F(ps.Incorrect, 4)})
	}
	return nil
}

// ClassifyRow is one template's classification result.
type ClassifyRow struct {
	Template string
	Result   ClassifyResult
}

// ClassificationReport is the report of classify-gold or classify-only runs:
// one row, or one per template when several were run.
func ClassificationReport(task, split, source string, rows []ClassifyRow) *report.Report {
	return classificationReport(task, split, source, "template", rows)
}

// classificationReport is ClassificationReport whose rows, when several,
// are by template or (by "run") runs of one template.
func classificationReport(task, split, source, by string, rows []ClassifyRow) *report.Report {
	if len(rows) == 1 && rows[0].Template == "" {
		rep := &report.Report{Title: "Missci " + task, Benchmark: "missci", Meta: [][2]string{{"split", split}, {"source", source}}}
		t := rep.AddSection("Classification", "classification_report semantics: the label set is the union of gold and predicted labels; with the gold premise, a prediction absent from gold counts as unk (SPEC A.8–A.9).").
			Add(&report.Table{ID: "classification", Title: "Accuracy and macro-F1", Columns: report.Cols("units", "accuracy", "macro-F1", "labels")})
		r := rows[0].Result
		t.Rows = append(t.Rows, []report.Cell{report.I(r.N), report.F(r.Accuracy, 4), report.F(r.MacroF1, 4), report.I(len(r.Labels))})
		return rep
	}
	rep := &report.Report{Title: "Missci " + task + " by " + by, Benchmark: "missci", Meta: [][2]string{{"split", split}, {"model", source}}}
	t := rep.AddSection("Classification", "One row per "+by+" (SPEC A.8–A.9 semantics).").
		Add(&report.Table{ID: "classification_by_template", Title: "Accuracy and macro-F1 by " + by, Columns: report.Cols(by, "units", "accuracy", "macro-F1", "labels")})
	for _, row := range rows {
		r := row.Result
		t.Rows = append(t.Rows, []report.Cell{report.T(row.Template), report.I(r.N), report.F(r.Accuracy, 4), report.F(r.MacroF1, 4), report.I(len(r.Labels))})
	}
	return rep
}

// ConsistencyReport is the report of a consistency run (SPEC A.10).
func ConsistencyReport(split, source string, c Consistency) *report.Report {
	rep := &report.Report{Title: "Missci consistency", Benchmark: "missci", Meta: [][2]string{{"split", split}, {"source", source}}}
	t := rep.AddSection("Consistency", "Matches@1: the share of reasoning lines whose generated premise is classified as the class generated with it (SPEC A.10). Premises that name their own class are excluded and counted.").
		Add(&report.Table{ID: "consistency", Title: "Matches@1", Columns: report.Cols("lines", "matches", "excluded", "Matches@1 (%)")})
	t.Rows = append(t.Rows, []report.Cell{report.I(c.N), report.I(c.Matches), report.I(len(c.Excluded)), report.F(c.MatchesAt1, 2)})
	return rep
}

// HumanEvalReport is Table 13 (METEOR against q4) and, with the strata of
// Table 14 (nil: not shown), the Table 4 approximation for the P@1 values
// given per "MODEL/PROMPT".
func HumanEvalReport(h HumanEvalMeteor, strata []Stratum, pAt1 map[string]float64) *report.Report {
	rep := &report.Report{Title: "Missci human evaluation (Table 13)", Benchmark: "missci"}
	t := rep.AddSection("Metric versus human judgement", "Mean of the metric on rows where annotators judged the premise plausible (q4 = True) and not (q4 = False), and Pearson r with q4.").
		Add(&report.Table{ID: "table13", Title: "Table 13", Columns: report.Cols("metric", "q4 = yes (n)", "q4 = no (n)", "mean yes", "mean no", "r", "p")})
	t.Rows = append(t.Rows, []report.Cell{report.T("METEOR"), report.I(h.NYes), report.I(h.NNo), report.F(h.YesMean, 4), report.F(h.NoMean, 4), report.F(h.R, 4), report.PV(h.P)})
	for _, m := range []string{"BERTScore", "NLI-A", "NLI-S"} {
		t.Rows = append(t.Rows, []report.Cell{report.T(m), report.NA("not computed"), report.NA(""), report.NA(""), report.NA(""), report.NA(""), report.NA("")})
	}
	if strata == nil {
		return rep
	}
	sec := rep.AddSection("Human judgements by stratum (Table 14) and the Table 4 approximation",
		"Shares of True per question among items whose predicted class is gold (correct) and the others; with --p-at-1 MODEL/PROMPT=P, the approximation s = P·h_correct + (1 − P)·h_incorrect (SPEC A.12; reproduces GPT-4 (D) at P = 0.317).")
	t14 := sec.Add(&report.Table{ID: "table14", Title: "Table 14 and approximations", Columns: report.Cols("model", "prompt", "question", "correct (n)", "h correct", "incorrect (n)", "h incorrect", "approximation")})
	for _, st := range strata {
		for q := range 4 {
			approx := report.NA("pass --p-at-1")
			if v, ok := pAt1[st.Model+"/"+st.Prompt]; ok {
				approx = report.F(st.Approximate(v, q), 3)
			}
			t14.Rows = append(t14.Rows, []report.Cell{report.T(st.Model), report.T(st.Prompt), report.T(fmt.Sprintf("q%d", q+1)),
				report.I(st.NCorrect), report.F(st.Correct[q], 3), report.I(st.NIncorrect), report.F(st.Incorrect[q], 3), approx})
		}
	}
	return rep
}

// RandomBaselineReport is Table 2's random rows: a random class per line
// (CPython-exact draws, one run per seed) with the claim or p0 as the
// premise, each seed and their mean, and the mean METEOR over seeds.
func RandomBaselineReport(data []Argument, split, premise string, seeds []uint64, labels []string) (*report.Report, error) {
	var names []string
	var rs []Reconstruction
	var mean Reconstruction
	var meteor float64
	lexical := 0
	n := float64(len(seeds))
	for i, seed := range seeds {
		preds, err := RandomBaseline(data, seed, premise)
		if err != nil {
			return nil, err
		}
		r, err := EvaluateReconstruction(data, preds, 1)
		if err != nil {
			return nil, err
		}
		names, rs = append(names, "seed "+labels[i]), append(rs, r)
		pairs, err := MatchPairs(data, preds, 1)
		if err != nil {
			return nil, err
		}
		ps, err := ScorePairs(pairs)
		if err != nil {
			return nil, err
		}
		meteor += ps.All / n
		lexical += ps.NLexical
		mean.K, mean.Lines = 1, r.Lines
		mean.HasPositive += r.HasPositive / n
		mean.ArgK += r.ArgK / n
		mean.MicroF1 += r.MicroF1 / n
		mean.MacroF1 += r.MacroF1 / n
		mean.SamplesF1 += r.SamplesF1 / n
	}
	names, rs = append(names, "mean"), append(rs, mean)
	rep := &report.Report{Title: "Missci random baseline (" + premise + ")", Benchmark: "missci",
		Meta: [][2]string{{"split", split}, {"premise", premise}, {"draws", "CPython random.seed(s); random.choice(LABELS)"}}}
	rep.AddSection("Reconstruction", "").Add(ReconstructionTable("random", "Random baseline, k = 1", names, rs))
	t := rep.AddSection("Premise quality", fmt.Sprintf("Mean METEOR over seeds of the %s used as the premise. %d line-seeds had no class match and were paired by the lexical fallback "+
		"(upstream uses SBERT cosine there, so its 0.181 / 0.188 differ slightly).", premise, lexical)).
		Add(&report.Table{ID: "random_meteor", Title: "METEOR", Columns: report.Cols("premise", "METEOR (mean over seeds)")})
	t.Rows = append(t.Rows, []report.Cell{report.T(premise), report.F(meteor, 4)})
	return rep, nil
}
