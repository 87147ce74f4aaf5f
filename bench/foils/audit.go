package foils

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
	"github.com/fallacylab/fallacylab/textmetric"
)

// Unparsed marks a prediction that could not be mapped to a label.
const Unparsed = ""

// AuditInput holds one detector's predictions on the audit's item sets.
// Prediction slices are aligned with their items; Unparsed predictions are
// excluded from every denominator and counted.
type AuditInput struct {
	Corpus, Detector string
	Native           []Item // the corpus' own "none" test items (N)
	NativePred       []string
	Matched          []Foil // M
	MatchedPred      []string
	Wrong            []Foil // WS
	WrongPred        []string
	Test             []Item // the unmodified test set, all labels
	TestPred         []string
	// Binary marks a yes/no detector: only flag rates and the N→M gap are
	// defined (SPEC C.10).
	Binary bool
	// Answers are the detector's raw answers by input id (for the record;
	// no measurement uses them).
	Answers map[string]Answer
}

// AuditOptions control resampling.
type AuditOptions struct {
	Seed      uint64
	Resamples int     // bootstrap resamples for gaps (default 10,000)
	Perms     int     // permutation-test permutations (default 10,000)
	Level     float64 // default 0.95
	// Readability scores a text for the Firth regression (default Flesch reading ease).
	Readability func(string) float64
}

// Summary holds the headline numbers of an audit.
type Summary struct {
	NativeFPR, MatchedFPR, WrongFlag    stats.Proportion
	Gap, GapLo, GapHi                   float64 // matched − native FPR
	Sep, SepLo, SepHi                   float64 // macro type-specific separation
	Pooled, PooledLo, PooledHi          float64
	Margin, MarginLo, MarginHi          float64 // τ′ − τ over WS
	TPrime, T                           float64
	ShareNone, ShareNoneLo, ShareNoneHi float64
	PermP, PermPFallacious              float64
	FirthOR, FirthPLR, FirthWald        float64
	Unparsed                            int
	Dissociation                        bool
}

type cond struct {
	flag  []float64 // 1[ŷ ≠ none] per parsed item
	asSrc []float64 // 1[ŷ = src] (M, WS)
	asTgt []float64 // 1[ŷ = tgt] (WS)
	src   []string
	srcT  []int // the place of src in Types (−1: none of them)
	tgt   []string
	text  []string
	skip  int
}

// typeIndex is each type's place in Types.
var typeIndex = func() map[string]int {
	m := map[string]int{}
	for i, t := range Types {
		m[t] = i
	}
	return m
}()

func condOf(foils []Foil, preds []string) cond {
	var c cond
	for i, f := range foils {
		p := preds[i]
		if p == Unparsed {
			c.skip++
			continue
		}
		c.flag = append(c.flag, b2f(p != None))
		c.asSrc = append(c.asSrc, b2f(p == f.Source))
		c.asTgt = append(c.asTgt, b2f(f.Target != "" && p == f.Target))
		c.src, c.tgt, c.text = append(c.src, f.Source), append(c.tgt, f.Target), append(c.text, f.Text)
		t, ok := typeIndex[f.Source]
		if !ok {
			t = -1
		}
		c.srcT = append(c.srcT, t)
	}
	return c
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func sumOf(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}

func meanIdx(x []float64, idx []int) float64 {
	if len(idx) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, i := range idx {
		s += x[i]
	}
	return s / float64(len(idx))
}

// typeRates returns, per type, the share of items of that source type the
// detector called that type, over an index set (NaN for a type without items).
func typeRates(c cond, idx []int) map[string]float64 {
	r := typeRateList(c, idx)
	out := make(map[string]float64, len(Types))
	for i, t := range Types {
		out[t] = r[i]
	}
	return out
}

// typeRateList is typeRates in the order of Types, counted in arrays: the
// bootstrap calls it a thousand times per condition.
func typeRateList(c cond, idx []int) []float64 {
	k, n := make([]float64, len(Types)), make([]float64, len(Types))
	for _, i := range idx {
		if t := c.srcT[i]; t >= 0 {
			n[t]++
			k[t] += c.asSrc[i]
		}
	}
	for t := range k {
		if n[t] == 0 {
			k[t] = math.NaN()
		} else {
			k[t] /= n[t]
		}
	}
	return k
}

// separation is (1/8)·Σ_τ (M_τ − W_τ) over types present in both (SPEC C.4).
func separation(m, w map[string]float64) float64 {
	s, n := 0.0, 0
	for _, t := range Types {
		if math.IsNaN(m[t]) || math.IsNaN(w[t]) {
			continue
		}
		s += m[t] - w[t]
		n++
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

func all(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// defaults fills in the options left unset.
func (o *AuditOptions) defaults() {
	if o.Resamples <= 0 {
		o.Resamples = 10000
	}
	if o.Perms <= 0 {
		o.Perms = 10000
	}
	if o.Level == 0 {
		o.Level = 0.95
	}
	if o.Readability == nil {
		o.Readability = textmetric.FleschReadingEase
	}
}

// check refuses an input whose predictions and items differ in number, or
// that lacks matched or wrong-scheme items.
func (in AuditInput) check() error {
	if len(in.NativePred) != len(in.Native) || len(in.MatchedPred) != len(in.Matched) || len(in.WrongPred) != len(in.Wrong) || len(in.TestPred) != len(in.Test) {
		return fmt.Errorf("audit: predictions and items differ in number")
	}
	if len(in.Matched) == 0 || len(in.Wrong) == 0 {
		return fmt.Errorf("audit: needs matched and wrong-scheme items")
	}
	return nil
}

// conditions are the parsed predictions of each condition: the native
// none items' flags and the matched and wrong-scheme conditions; the
// unparsed ones are counted in sum, and a condition left with nothing to
// analyse is refused.
func (in AuditInput) conditions(sum *Summary) ([]float64, cond, cond, error) {
	var nat []float64
	for i := range in.Native {
		p := in.NativePred[i]
		if p == Unparsed {
			sum.Unparsed++
			continue
		}
		nat = append(nat, b2f(p != None))
	}
	M, W := condOf(in.Matched, in.MatchedPred), condOf(in.Wrong, in.WrongPred)
	sum.Unparsed += M.skip + W.skip
	for _, c := range []struct {
		name string
		n    int
		of   int
	}{{"native none", len(nat), len(in.Native)}, {"matched", len(M.flag), len(in.Matched)}, {"wrong-scheme", len(W.flag), len(in.Wrong)}} {
		switch {
		case c.of == 0:
			return nil, M, W, fmt.Errorf("audit: nothing to analyse: there are no %s items", c.name)
		case c.n == 0:
			return nil, M, W, fmt.Errorf("audit: nothing to analyse: all %d %s predictions of %s are unparsed (%d unparsed in all)", c.of, c.name, in.Detector, sum.Unparsed)
		}
	}
	return nat, M, W, nil
}

// Audit computes the Scheme Foils measurements (SPEC C.3–C.7) for one set of
// predictions and returns the report and its headline numbers.
func Audit(in AuditInput, o AuditOptions) (*report.Report, Summary, error) {
	o.defaults()
	if err := in.check(); err != nil {
		return nil, Summary{}, err
	}
	var sum Summary
	nat, M, W, err := in.conditions(&sum)
	if err != nil {
		return nil, sum, err
	}
	prop := func(x []float64) stats.Proportion {
		p, _ := stats.Prop(int(sumOf(x)), len(x), o.Level, stats.Wilson)
		return p
	}
	sum.NativeFPR, sum.MatchedFPR, sum.WrongFlag = prop(nat), prop(M.flag), prop(W.flag)

	// Item bootstrap, each condition resampled independently (SPEC C.10, G.5).
	seeds := [3]uint64{o.Seed*3 + 1, o.Seed*3 + 2, o.Seed*3 + 3}
	natReps, err := resampleMeans(len(nat), o.Resamples, seeds[0], func(idx []int) []float64 { return []float64{meanIdx(nat, idx)} })
	if err != nil {
		return nil, sum, err
	}
	mReps, err := resampleMeans(len(M.flag), o.Resamples, seeds[1], func(idx []int) []float64 {
		r := typeRateList(M, idx)
		out := []float64{meanIdx(M.flag, idx), meanIdx(M.asSrc, idx)}
		for t := range Types {
			out = append(out, r[t])
		}
		return out
	})
	if err != nil {
		return nil, sum, err
	}
	wReps, err := resampleMeans(len(W.flag), o.Resamples, seeds[2], func(idx []int) []float64 {
		r := typeRateList(W, idx)
		out := []float64{meanIdx(W.asSrc, idx), meanIdx(W.asTgt, idx)}
		for t := range Types {
			out = append(out, r[t])
		}
		return out
	})
	if err != nil {
		return nil, sum, err
	}
	rates := func(reps [][]float64, b int) map[string]float64 {
		m := map[string]float64{}
		for i, t := range Types {
			m[t] = reps[b][2+i]
		}
		return m
	}
	gapR, sepR, poolR, marginR := make([]float64, o.Resamples), make([]float64, o.Resamples), make([]float64, o.Resamples), make([]float64, o.Resamples)
	for b := range o.Resamples {
		gapR[b] = mReps[b][0] - natReps[b][0]
		sepR[b] = separation(rates(mReps, b), rates(wReps, b))
		poolR[b] = mReps[b][1] - wReps[b][0]
		marginR[b] = wReps[b][1] - wReps[b][0]
	}
	ci := func(x []float64) (float64, float64) {
		return stats.Replicates{Values: column(x)}.Percentile(0, o.Level)
	}
	// typeGapCI is the percentile interval of gap_τ = M_τ − W_τ over the
	// same resamples (SPEC G.5: CIs of gaps are item bootstraps).
	typeGapCI := func(t string) (float64, float64) {
		i := slices.Index(Types, t)
		x := make([]float64, o.Resamples)
		for b := range o.Resamples {
			x[b] = mReps[b][2+i] - wReps[b][2+i]
		}
		return ci(x)
	}
	mRates, wRates := typeRates(M, all(len(M.flag))), typeRates(W, all(len(W.flag)))
	sum.Gap = sum.MatchedFPR.Estimate - sum.NativeFPR.Estimate
	sum.GapLo, sum.GapHi = ci(gapR)
	sum.Sep = separation(mRates, wRates)
	sum.SepLo, sum.SepHi = ci(sepR)
	sum.Pooled = meanIdx(M.asSrc, all(len(M.asSrc))) - meanIdx(W.asSrc, all(len(W.asSrc)))
	sum.PooledLo, sum.PooledHi = ci(poolR)
	sum.TPrime, sum.T = meanIdx(W.asTgt, all(len(W.asTgt))), meanIdx(W.asSrc, all(len(W.asSrc)))
	sum.Margin = sum.TPrime - sum.T
	sum.MarginLo, sum.MarginHi = ci(marginR)
	sum.Dissociation = sum.SepLo > 0 && sum.MarginLo > 0

	rep := &report.Report{Title: "Scheme Foils audit: " + in.Corpus + " — " + in.Detector, Benchmark: Definition.Name}
	rep.Meta = [][2]string{{"corpus", in.Corpus}, {"detector", in.Detector},
		{"items", fmt.Sprintf("%d native none, %d matched, %d wrong-scheme, %d test", len(in.Native), len(in.Matched), len(in.Wrong), len(in.Test))},
		{"intervals", fmt.Sprintf("Wilson for single proportions; percentile item bootstrap (%d resamples, seed %d, conditions resampled independently) for gaps", o.Resamples, o.Seed)},
		{"unparsed predictions", fmt.Sprint(sum.Unparsed)}}
	if in.Binary {
		sec := rep.AddSection("Binary detector", fmt.Sprintf("A yes/no detector names no type, so only flag rates and the N→M gap are defined (SPEC C.10): "+
			"P(yes | matched) − P(yes | native) = %+.1f pp, 95 %% CI [%.1f, %.1f].", 100*sum.Gap, 100*sum.GapLo, 100*sum.GapHi))
		flagTable(sec, sum, true)
		rep.Headline, rep.Lead = "flag_rates", sec.Intro
		rep.NotePointIntervals("item")
		return rep, sum, nil
	}
	verdict := "The dissociation does NOT hold clearly for this detector: "
	if sum.Dissociation {
		verdict = "The dissociation holds: "
	}
	verdict += verdictFigures(sum)
	sec := rep.AddSection("Verdict", verdict)
	rep.Headline, rep.Lead = "flag_rates", verdict
	flagTable(sec, sum, false)
	gaps := sec.Add(&report.Table{ID: "gaps", Title: "Gaps (percentage points)", Columns: report.Cols("measure", "value (pp)"),
		Charts: charts["gaps"]})
	gaps.Rows = [][]report.Cell{
		{report.T("N→M gap: matched FPR − native FPR"), report.NCI(100*sum.Gap, 100*sum.GapLo, 100*sum.GapHi, 1)},
		{report.T("type-specific separation (macro over types, SPEC C.4)"), report.NCI(100*sum.Sep, 100*sum.SepLo, 100*sum.SepHi, 1)},
		{report.T("type-specific separation (pooled)"), report.NCI(100*sum.Pooled, 100*sum.PooledLo, 100*sum.PooledHi, 1)},
		{report.T("τ′ margin on WS: P(ŷ = τ′) − P(ŷ = τ) (SPEC C.5)"), report.NCI(100*sum.Margin, 100*sum.MarginLo, 100*sum.MarginHi, 1)},
	}
	per := rep.AddSection("Per type", "M_τ and W_τ are the shares of matched and wrong-scheme items from source type τ that the detector calls τ; "+
		"T′ groups wrong-scheme items by their new type τ′, T by their source type.")
	pt := per.Add(&report.Table{ID: "per_type", Title: "Per-type rates", Columns: report.Cols("type", "M_τ", "W_τ (= T by source)", "gap (pp)", "T′ by target"),
		Charts: charts["per_type"]})
	byTgt := func(c cond) map[string][2]float64 {
		m := map[string][2]float64{}
		for i := range c.asTgt {
			x := m[c.tgt[i]]
			m[c.tgt[i]] = [2]float64{x[0] + c.asTgt[i], x[1] + 1}
		}
		return m
	}(W)
	for _, t := range Types {
		mk, mn := countType(M, t)
		wk, wn := countType(W, t)
		tg := byTgt[t]
		lo, hi := typeGapCI(t)
		row := []report.Cell{report.T(t), report.P(ratio(mk, mn), int(mn)), report.P(ratio(wk, wn), int(wn)),
			report.NCI(100*(ratio(mk, mn)-ratio(wk, wn)), 100*lo, 100*hi, 1), report.P(ratio(tg[0], tg[1]), int(tg[1]))}
		pt.Rows = append(pt.Rows, row)
	}
	confusion(rep, in)
	if err := errorsLand(rep, in, o, &sum); err != nil {
		return nil, sum, err
	}
	if err := firth(rep, M, W, o, &sum); err != nil {
		return nil, sum, err
	}
	rep.NotePointIntervals("item")
	return rep, sum, nil
}

// charts are the audit report's charts, by table id.
var charts = map[string][]report.Chart{
	"gaps":       {{Kind: "bars", Title: "Gaps in pp (bootstrap 95 % CI)", Label: []int{0}, Value: 1}},
	"per_type":   {{Kind: "bars", Title: "Type-specific separation M_τ − W_τ (pp, bootstrap 95 % CI)", Label: []int{0}, Value: 3}},
	"flag_rates": {{Kind: "bars", Title: "Flag rate by condition (Wilson 95 % CI)", Label: []int{0}, Value: 3}},
	"confusion":  {{Kind: "heatmap", Title: "Confusion matrix (row shares)", Label: []int{0, 1}, Value: 2}},
}

// AddCharts gives the tables of an audit report read back from JSON (which
// keeps no charts: an older store's) the charts an audit draws.
func AddCharts(rep *report.Report) {
	for _, t := range rep.Tables() {
		if c, ok := charts[t.ID]; ok && len(t.Charts) == 0 {
			t.Charts = c
		}
	}
}

func countType(c cond, t string) (k, n float64) {
	for i := range c.src {
		if c.src[i] == t {
			n++
			k += c.asSrc[i]
		}
	}
	return k, n
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}

func column(x []float64) [][]float64 {
	out := make([][]float64, len(x))
	for i, v := range x {
		out[i] = []float64{v}
	}
	return out
}

// resampleMeans runs an item bootstrap whose statistic may be NaN (kept, and
// skipped by the percentile interval).
func resampleMeans(n, B int, seed uint64, stat func(idx []int) []float64) ([][]float64, error) {
	if n == 0 {
		out := make([][]float64, B)
		for b := range out {
			out[b] = stat(nil)
		}
		return out, nil
	}
	reps, err := stats.Bootstrap(n, B, seed, func(idx []int) ([]float64, bool) { return stat(idx), true })
	return reps.Values, err
}

func flagTable(sec *report.Section, sum Summary, withGap bool) {
	flags := sec.Add(&report.Table{ID: "flag_rates", Title: "Flag rates by condition (SPEC C.3)", Columns: report.Cols("condition", "items", "flagged", "rate"),
		Charts: charts["flag_rates"]})
	flags.Note = "The wrong-scheme rate is a flag rate, not a false-positive rate: in the paper's human validation 31 of 40 wrong-scheme items (77.5 %) were valid (SPEC §6.8); a study of this run's items (fallacylab study) measures its own."
	for _, r := range []struct {
		l string
		p stats.Proportion
	}{{"native none (N): FPR", sum.NativeFPR}, {"matched (M): FPR", sum.MatchedFPR}, {"wrong-scheme (WS): flag rate", sum.WrongFlag}} {
		flags.Rows = append(flags.Rows, []report.Cell{report.T(r.l), report.I(r.p.N), report.I(r.p.K), report.PCI(r.p.Estimate, r.p.Lo, r.p.Hi, r.p.N)})
	}
	if withGap {
		gaps := sec.Add(&report.Table{ID: "gaps", Title: "Gaps (percentage points)", Columns: report.Cols("measure", "value (pp)")})
		gaps.Rows = [][]report.Cell{{report.T("N→M gap: matched flag rate − native flag rate"), report.NCI(100*sum.Gap, 100*sum.GapLo, 100*sum.GapHi, 1)}}
	}
}

// AcrossSeeds adds a mean ± SD (ddof 1) table over several seeds' audits to
// rep (SPEC C.3: results are reported as mean ± SD across seeds).
func AcrossSeeds(rep *report.Report, seeds []string, sums []Summary) {
	sec := rep.AddSection("Across seeds", fmt.Sprintf("Mean ± SD (ddof = 1) over %d seeds (%s); the sections above are seed %s.", len(seeds), strings.Join(seeds, ", "), seeds[0]))
	t := sec.Add(&report.Table{ID: "across_seeds", Title: "Headline numbers across seeds", Columns: report.Cols("measure", "mean (pp)", "SD (pp)", "per seed (pp)")})
	for _, m := range []struct {
		name string
		get  func(Summary) float64
	}{
		{"native FPR", func(s Summary) float64 { return s.NativeFPR.Estimate }},
		{"matched FPR", func(s Summary) float64 { return s.MatchedFPR.Estimate }},
		{"N→M gap", func(s Summary) float64 { return s.Gap }},
		{"separation (macro)", func(s Summary) float64 { return s.Sep }},
		{"τ′ margin", func(s Summary) float64 { return s.Margin }},
	} {
		var x []float64
		var parts []string
		for _, s := range sums {
			x = append(x, 100*m.get(s))
			parts = append(parts, fmt.Sprintf("%.1f", 100*m.get(s)))
		}
		mean, _ := stats.Mean(x)
		sd, _ := stats.SD(x, 1)
		t.Rows = append(t.Rows, []report.Cell{report.T(m.name), report.F(mean, 1), report.F(sd, 1), report.T(strings.Join(parts, ", "))})
	}
}

// confusion adds the test set's confusion matrix as row shares P(ŷ | gold).
func confusion(rep *report.Report, in AuditInput) {
	sec := rep.AddSection("Confusion matrix", "Unmodified test set: the share of each gold label's items given each predicted label.")
	t := sec.Add(&report.Table{ID: "confusion", Title: "P(predicted | gold) on the test set", Columns: report.Cols("gold", "predicted", "share"),
		Charts: charts["confusion"], Matrix: &report.Matrix{Row: 0, Col: 1, Value: 2}})
	counts := map[[2]string]int{}
	totals := map[string]int{}
	for i, it := range in.Test {
		p := in.TestPred[i]
		if p == Unparsed {
			continue
		}
		counts[[2]string{it.Gold, p}]++
		totals[it.Gold]++
	}
	for _, g := range Labels {
		if totals[g] == 0 {
			continue
		}
		for _, p := range Labels {
			t.Rows = append(t.Rows, []report.Cell{report.T(g), report.T(p), report.P(float64(counts[[2]string{g, p}])/float64(totals[g]), totals[g])})
		}
	}
}

// verdictFigures is the figures the audit's verdict rests on, said the
// way their signs go: a negative separation is "less often", a negative
// margin follows the source type, an FPR that does not rise says so.
func verdictFigures(sum Summary) string {
	more := fmt.Sprintf("%.1f pp more often than", 100*sum.Sep)
	switch {
	case fmt.Sprintf("%.1f", math.Abs(100*sum.Sep)) == "0.0":
		more = "as often as"
	case sum.Sep < 0:
		more = fmt.Sprintf("%.1f pp less often than", -100*sum.Sep)
	}
	follows := "it follows the new scheme τ′ rather than the source type τ"
	switch {
	case sum.Margin < 0:
		follows = "it follows the source type τ rather than the new scheme τ′"
	case sum.Margin == 0:
		follows = "it follows the new scheme τ′ and the source type τ alike"
	}
	// An interval that holds 0 shows no direction: the figure leans, and
	// the sentence says so (a --limit 10 audit "follows the new scheme τ′"
	// at a margin of +10.0 pp, CI [-20.0, 40.0]).
	sepNote, marginNote := "", ""
	if sum.Sep != 0 && sum.SepLo <= 0 && sum.SepHi >= 0 {
		sepNote = ", which holds 0: no difference shown"
	}
	if sum.Margin != 0 && sum.MarginLo <= 0 && sum.MarginHi >= 0 {
		follows = strings.Replace(follows, "it follows", "it leans to", 1) + ", not clearly"
		marginNote = ", which holds 0"
	}
	n, m := 100*sum.NativeFPR.Estimate, 100*sum.MatchedFPR.Estimate
	fpr := fmt.Sprintf("Its false-positive rate rises from %.1f %% on the corpus' own valid class to %.1f %% on scheme-matched valid arguments.", n, m)
	switch {
	case fmt.Sprintf("%.1f", n) == fmt.Sprintf("%.1f", m):
		fpr = fmt.Sprintf("Its false-positive rate is %.1f %% both on the corpus' own valid class and on scheme-matched valid arguments.", n)
	case m < n:
		fpr = fmt.Sprintf("Its false-positive rate falls from %.1f %% on the corpus' own valid class to %.1f %% on scheme-matched valid arguments.", n, m)
	}
	return fmt.Sprintf("it calls scheme-matched valid arguments by their source type %s wrong-scheme controls (macro separation, 95 %% CI [%.1f, %.1f]%s), "+
		"and on wrong-scheme items %s (margin %+.1f pp, CI [%.1f, %.1f]%s). %s",
		more, 100*sum.SepLo, 100*sum.SepHi, sepNote, follows, 100*sum.Margin, 100*sum.MarginLo, 100*sum.MarginHi, marginNote, fpr)
}
