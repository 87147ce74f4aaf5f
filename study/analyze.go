package study

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
)

// DefaultDecoyBar is the decoy accuracy below which an annotator is
// flagged, unless the report sets another.
const DefaultDecoyBar = 0.8

// AnalyzeOptions set the intervals and the decoy bar.
type AnalyzeOptions struct {
	Resamples int     // item bootstrap resamples (default 1,000)
	Seed      uint64  // bootstrap seed
	Level     float64 // interval level (default 0.95)
	// DecoyBar is the decoy accuracy below which an annotator is flagged
	// (default 0.8).
	DecoyBar float64
	// KeepFlagged counts the annotators below the decoy bar in every
	// figure. By default they are left out of the figures, which the
	// report then also gives with them (Counted).
	KeepFlagged bool
}

func (o *AnalyzeOptions) defaults() {
	if o.Resamples <= 0 {
		o.Resamples = 1000
	}
	if o.Level <= 0 {
		o.Level = 0.95
	}
	if o.DecoyBar <= 0 {
		o.DecoyBar = DefaultDecoyBar
	}
}

// answers indexes a study's saved (not skipped) answers: item → annotator
// → question → choice; the latest answer of an annotator wins.
type answers map[string]map[string]map[string]string

// Answers are a study's latest answers by item, annotator and question
// (skipped items left out), for a kind's own analysis (Index).
type Answers = answers

// Index is the latest answer of each annotator to each item.
func Index(anns []Annotation) Answers { return index(anns) }

// Majority is the choice more than half of an item's annotators gave to
// question q ("" : none — a tie, or nobody answered), or the one an
// adjudicator set, and how many annotators answered.
func (a answers) Majority(key, q string) (string, int) { return majority(a, key, q) }

func index(anns []Annotation) answers {
	sorted := slices.Clone(anns)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].At.Before(sorted[j].At) })
	out := answers{}
	for _, a := range sorted {
		if a.Skipped {
			continue
		}
		if out[a.Item] == nil {
			out[a.Item] = map[string]map[string]string{}
		}
		out[a.Item][a.Annotator] = a.Answers
	}
	return out
}

// Analyze turns a study's annotations into its report: progress, decoy
// accuracy per annotator, agreement per question with item-bootstrap
// intervals, agreement per pair of annotators, the human majority, and
// what the kind of study measures, as its benchmark declares it
// (KindSpec.Analyze: judge validity, a filter's precision, codes…). Decoys
// are excluded from every figure but their own.
func Analyze(s Study, anns []Annotation, o AnalyzeOptions) (*report.Report, error) {
	o.defaults()
	ans := index(anns)
	rep := &report.Report{Title: fmt.Sprintf("Study %d: %s", s.ID, s.Name), Benchmark: "study"}
	var names []string
	for _, a := range s.Annotators {
		names = append(names, a.Name)
	}
	decoys, sample := 0, 0
	for _, it := range s.Items {
		if it.Decoy {
			decoys++
		} else {
			sample++
		}
	}
	rep.Meta = [][2]string{{"kind", string(s.Kind)}, {"run", fmt.Sprint(s.RunID)}, {"annotators", strings.Join(names, ", ")},
		{"items", itemsMeta(s, sample, decoys)},
		{"seed", fmt.Sprint(s.Seed)},
		{"intervals", fmt.Sprintf("item bootstrap, %d resamples, seed %d, for agreement and judge validity; Wilson for single proportions", o.Resamples, o.Seed)}}
	if p := participants(s); p != "" {
		rep.Meta = append(rep.Meta, [2]string{"participants", p})
	}
	if n := adjudicatedItems(ans); n > 0 {
		rep.Meta = append(rep.Meta, [2]string{"adjudicated", fmt.Sprintf("%d items: their human answer is the adjudicator's, not the majority's", n)})
	}
	progress(rep, s, anns)
	decoyTable(rep, s, ans, o)
	timing(rep, s, anns)
	// A multi question is judged on each annotator's whole set of picks
	// (the same set to every item), not choice by choice: a careful
	// annotator ticks one fitting choice on most items.
	straightLining(rep, s, ans)
	kept, keptAnns, out := Counted(s, anns, o)
	if len(out) > 0 {
		rep.Meta = append(rep.Meta, [2]string{"left out", strings.Join(out, ", ") + ": below the decoy bar; the figures with them follow the others (--keep-flagged counts them)"})
	}
	if err := figures(rep, kept, keptAnns, o); err != nil {
		return nil, err
	}
	if len(out) > 0 {
		all := &report.Report{}
		if err := figures(all, s, anns, o); err != nil {
			return nil, err
		}
		withFlagged(rep, all, out)
	}
	return rep, nil
}

// itemsMeta says how the study's items were shared out.
func itemsMeta(s Study, sample, decoys int) string {
	if s.PerItem > 0 {
		return fmt.Sprintf("%d sampled, each seen by %d of the %d annotators, and %d decoys", sample, s.PerItem, len(s.Annotators), decoys)
	}
	return fmt.Sprintf("%d sampled (%d seen by every annotator) and %d decoys", sample, s.Overlap, decoys)
}

// figures adds what a study measures on the annotations it counts: the
// agreement, and what its kind measures (KindSpec.Analyze).
func figures(rep *report.Report, s Study, anns []Annotation, o AnalyzeOptions) error {
	es, eans := expandMulti(s, index(anns))
	if err := agreement(rep, es, eans, o); err != nil {
		return err
	}
	if err := ordinal(rep, s, index(anns), o); err != nil {
		return err
	}
	if spec, ok := SpecOf(s.Kind); ok && spec.Analyze != nil {
		return spec.Analyze(rep, s, anns, o)
	}
	return nil
}

func progress(rep *report.Report, s Study, anns []Annotation) {
	sec := rep.AddSection("Progress", "Each annotator's queue: the overlap set, their share of the rest and every decoy, in an order of their own.")
	t := sec.Add(&report.Table{ID: "progress", Title: "Progress by annotator", Columns: report.Cols("annotator", "queue", "answered", "skipped", "left")})
	last := map[[2]string]Annotation{}
	for _, a := range anns {
		k := [2]string{a.Annotator, a.Item}
		if p, ok := last[k]; !ok || !a.At.Before(p.At) {
			last[k] = a
		}
	}
	for _, a := range s.Annotators {
		done, skipped := 0, 0
		for _, k := range a.Order {
			if x, ok := last[[2]string{a.Name, k}]; ok {
				if x.Skipped {
					skipped++
				} else {
					done++
				}
			}
		}
		t.Rows = append(t.Rows, []report.Cell{report.T(a.Name), report.I(len(a.Order)), report.I(done), report.I(skipped), report.I(len(a.Order) - done - skipped)})
	}
}

func decoyTable(rep *report.Report, s Study, ans answers, o AnalyzeOptions) {
	sec := rep.AddSection("Decoys", fmt.Sprintf("Planted items with a known answer, in every queue and in no other figure. An annotator below %.0f %% decoy accuracy is flagged and, unless --keep-flagged, left out of every other figure (which the report then also gives with them).", 100*o.DecoyBar))
	decoys := 0
	for _, it := range s.Items {
		if it.Decoy {
			decoys++
		}
	}
	if few := FewDecoys(decoys, o.DecoyBar); few != "" {
		sec.Intro += " " + strings.ToUpper(few[:1]) + few[1:] + "."
	}
	t := sec.Add(&report.Table{ID: "decoys", Title: "Decoy accuracy by annotator", Columns: report.Cols("annotator", "decoys answered", "right", "accuracy", "flag")})
	for _, a := range s.Annotators {
		n, right := decoyScore(s, ans, a.Name)
		flag := ""
		p, _ := stats.Prop(right, n, o.Level, stats.Wilson)
		if n > 0 && p.Estimate < o.DecoyBar {
			flag = "below the bar: left out of the figures"
			if o.KeepFlagged {
				flag = "below the bar: check this annotator's answers"
			}
		}
		cell := report.NA("no decoy answered")
		if n > 0 {
			cell = report.PCI(p.Estimate, p.Lo, p.Hi, n)
		}
		t.Rows = append(t.Rows, []report.Cell{report.T(a.Name), report.I(n), report.I(right), cell, report.T(flag)})
	}
	t.Note = OnePolarity(s)
}

// ratingsOf lays a question's answers out for the agreement statistics:
// one row per sampled item (decoys excluded) with at least one answer, one
// column per annotator ("" = not answered).
func ratingsOf(s Study, ans answers, q string) (keys []string, ratings [][]string) {
	for _, it := range s.Items {
		if it.Decoy {
			continue
		}
		row := make([]string, len(s.Annotators))
		any := false
		for j, a := range s.Annotators {
			if got, ok := ans[it.Key][a.Name]; ok {
				row[j] = got[q]
				any = any || row[j] != ""
			}
		}
		if any {
			keys = append(keys, it.Key)
			ratings = append(ratings, row)
		}
	}
	return keys, ratings
}

// agreeStats are the agreement statistics of one question on a set of
// items, each answered at least once: raw (pairwise) agreement, Gwet's
// AC1, Fleiss' κ (items with the most ratings), Krippendorff's α
// (nominal), positive specific agreement and, for two annotators, Cohen's
// κ. NaN where undefined. AC1 follows Gwet's irrCAC (gwet.ac1.raw, with
// the scale's choices as categ.labels): its agreement is over the items
// answered twice or more, its chance agreement over every item answered,
// once included; the others use the items answered twice or more.
func agreeStats(rated [][]string, q Question) []float64 {
	out := []float64{math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()}
	if ac, err := stats.GwetAC1(rated, len(q.Choices)); err == nil && ac.Items > 0 {
		out[0], out[1] = ac.Pa, ac.AC1
	}
	ratings := answeredTwice(rated)
	most := 0
	for _, r := range ratings {
		most = max(most, present(r))
	}
	var full [][]string
	for _, r := range ratings {
		if present(r) == most && most >= 2 {
			var vals []string
			for _, v := range r {
				if v != "" {
					vals = append(vals, v)
				}
			}
			full = append(full, vals)
		}
	}
	if len(full) > 0 {
		if k, err := stats.FleissKappa(full); err == nil {
			out[2] = k
		}
	}
	units := make([][]float64, len(ratings))
	for i, r := range ratings {
		units[i] = make([]float64, len(r))
		for j, v := range r {
			units[i][j] = math.NaN()
			if k := slices.IndexFunc(q.Choices, func(c Choice) bool { return c.Key == v }); k >= 0 {
				units[i][j] = float64(k)
			}
		}
	}
	if a, err := stats.KrippendorffAlpha(units, stats.Nominal); err == nil {
		out[3] = a
	}
	// Positive specific agreement for r raters: Σ_i n_ip(n_ip − 1) /
	// Σ_i n_ip(r_i − 1) over items with two or more ratings; for two
	// raters 2 n_pp / (n_p· + n_·p) (SPEC C.8).
	var num, den float64
	for _, r := range ratings {
		ri, np := 0.0, 0.0
		for _, v := range r {
			if v != "" {
				ri++
				if v == q.Positive {
					np++
				}
			}
		}
		if ri >= 2 {
			num += np * (np - 1)
			den += np * (ri - 1)
		}
	}
	if den > 0 {
		out[4] = num / den
	}
	if len(ratings) > 0 && len(ratings[0]) == 2 {
		var a, b []string
		for _, r := range ratings {
			if r[0] != "" && r[1] != "" {
				a, b = append(a, r[0]), append(b, r[1])
			}
		}
		if k, err := stats.CohenKappa(a, b); err == nil && len(a) > 0 {
			out[5] = k.Kappa
		}
	}
	return out
}

// answeredTwice are the rows with two answers or more.
func answeredTwice(rows [][]string) [][]string {
	var multi [][]string
	for _, r := range rows {
		if present(r) >= 2 {
			multi = append(multi, r)
		}
	}
	return multi
}

func present(r []string) int {
	n := 0
	for _, v := range r {
		if v != "" {
			n++
		}
	}
	return n
}

// ciCell is a statistic with its bootstrap interval, or NA.
// CICell is an estimate with its percentile bootstrap interval (replicate
// column j) at level; NaN: undefined.
func CICell(v float64, reps stats.Replicates, j int, level float64) report.Cell {
	if math.IsNaN(v) {
		return report.NA("undefined")
	}
	lo, hi := reps.Percentile(j, level)
	return report.NCI(v, lo, hi, 3)
}

func agreement(rep *report.Report, s Study, ans answers, o AnalyzeOptions) error {
	sec := rep.AddSection("Agreement", "Items answered by two or more annotators, decoys excluded. Raw agreement is the mean share of agreeing pairs; AC1 follows Gwet's irrCAC: its chance agreement also counts the items only one annotator answered, and it uses every choice of the scale (Q); Fleiss' κ the items with the most ratings; α is nominal. Intervals: bootstrap over the items answered.")
	t := sec.Add(&report.Table{ID: "agreement", Title: "Agreement by question", Columns: report.Cols("question", "items", "raw agreement", "Gwet's AC1", "Fleiss' κ", "Krippendorff's α", "positive specific agreement", "Cohen's κ (2 annotators)")})
	for qi, q := range s.Questions {
		if !q.Coded() {
			t.Rows = append(t.Rows, []report.Cell{report.T(q.ID), report.I(0), report.NA("free text: no agreement (see study export --format long)"), report.NA(""), report.NA(""), report.NA(""), report.NA(""), report.NA("")})
			continue
		}
		_, ratings := ratingsOf(s, ans, q.ID)
		multi := answeredTwice(ratings)
		if len(multi) == 0 {
			t.Rows = append(t.Rows, []report.Cell{report.T(q.ID), report.I(0), report.NA("no item answered twice"), report.NA(""), report.NA(""), report.NA(""), report.NA(""), report.NA("")})
			continue
		}
		obs := agreeStats(ratings, q)
		reps, err := stats.Bootstrap(len(ratings), o.Resamples, o.Seed+uint64(qi), func(idx []int) ([]float64, bool) {
			sub := make([][]string, len(idx))
			for i, k := range idx {
				sub[i] = ratings[k]
			}
			return agreeStats(sub, q), true
		})
		if err != nil {
			return fmt.Errorf("agreement on %s: %w", q.ID, err)
		}
		row := []report.Cell{report.T(q.ID), report.I(len(multi))}
		for j, v := range obs {
			if j == 5 && len(s.Annotators) != 2 {
				row = append(row, report.NA("more than two annotators: see the pairs"))
				continue
			}
			row = append(row, CICell(v, reps, j, o.Level))
		}
		t.Rows = append(t.Rows, row)
	}
	if err := byStratum(sec, s, ans, o); err != nil {
		return err
	}
	if len(s.Annotators) < 2 {
		return nil
	}
	pt := sec.Add(&report.Table{ID: "pairs", Title: "Agreement by pair of annotators", Columns: report.Cols("question", "pair", "items", "raw agreement", "Cohen's κ")})
	for _, q := range s.Questions {
		if !q.Coded() {
			continue
		}
		_, ratings := ratingsOf(s, ans, q.ID)
		for i := range s.Annotators {
			for j := i + 1; j < len(s.Annotators); j++ {
				a, b, row := pairRow(s, q, ratings, i, j)
				tr, err := stats.NewTwoRaters(a, b)
				if err != nil || len(a) == 0 {
					row = append(row, report.NA("no shared item"), report.NA("no shared item"))
				} else {
					k := tr.Kappa()
					row = append(row, report.F(tr.Raw().Raw, 3), cellOr(k.Kappa, k.Reason))
				}
				pt.Rows = append(pt.Rows, row)
			}
		}
	}
	return nil
}

func cellOr(v float64, why string) report.Cell {
	if math.IsNaN(v) {
		return report.NA(why)
	}
	return report.F(v, 3)
}

// majority is the human answer to a question on an item: the choice more
// than half of its annotators gave; "" when none has (a tie, or no
// answer).
func majority(ans answers, key, q string) (string, int) {
	counts := map[string]int{}
	n := 0
	for name, a := range ans[key] {
		if name == Adjudicator {
			continue
		}
		if v := a[q]; v != "" {
			counts[v]++
			n++
		}
	}
	if v, ok := ans.Adjudicated(key, q); ok {
		return v, n // the adjudicator settled it
	}
	for v, c := range counts {
		if 2*c > n {
			return v, n
		}
	}
	return "", n
}

// pairRow is what annotators i and j both answered to question q (their
// answers, item by item) and the start of its row in a table of pairs:
// the question, the pair, the items.
func pairRow(s Study, q Question, ratings [][]string, i, j int) (a, b []string, row []report.Cell) {
	for _, r := range ratings {
		if r[i] != "" && r[j] != "" {
			a, b = append(a, r[i]), append(b, r[j])
		}
	}
	return a, b, []report.Cell{report.T(q.ID), report.T(s.Annotators[i].Name + " · " + s.Annotators[j].Name), report.I(len(a))}
}
