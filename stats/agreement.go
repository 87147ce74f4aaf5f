package stats

import (
	"fmt"
	"math"
	"sort"
	"strconv"
)

// Kappa is Cohen's κ with its parts. When κ is undefined (p_e = 1, e.g. both
// raters use one and the same category) Kappa is NaN and Reason says why.
type Kappa struct {
	Kappa, Po, Pe float64
	N             int
	Reason        string
}

// CohenKappa is Cohen's κ for two raters over the same items:
// p_o = Σ_k n_kk/n, p_e = Σ_k (n_k·/n)(n_·k/n), κ = (p_o − p_e)/(1 − p_e)
// (SPEC F.1; sklearn.metrics.cohen_kappa_score). Labels are the union of both
// raters' labels.
func CohenKappa(a, b []string) (Kappa, error) {
	t, err := NewTwoRaters(a, b)
	if err != nil {
		return Kappa{}, err
	}
	return t.Kappa(), nil
}

// AC1 is Gwet's agreement coefficient with its parts.
type AC1 struct {
	AC1, Pa, Pe float64
	Pi          map[string]float64 // category prevalences π_k
	Items       int                // items with at least two ratings
	Reason      string
}

// GwetAC1 computes Gwet's AC1 (Gwet 2008) for any number of raters with
// missing ratings: ratings[i] holds the labels given to item i ("" = missing).
// q is the number of categories of the scale (0: the number observed); it must
// be ≥ 2 and ≥ the number observed.
//
//	p_a = mean over items with r_i ≥ 2 of Σ_k r_ik(r_ik − 1)/(r_i(r_i − 1))
//	π_k = mean over items with r_i ≥ 1 of r_ik/r_i
//	p_e = Σ_k π_k(1 − π_k)/(q − 1);  AC1 = (p_a − p_e)/(1 − p_e)
//
// (SPEC F.2; irrCAC gwet.ac1.raw without weights.)
func GwetAC1(ratings [][]string, q int) (AC1, error) {
	t, err := tally(ratings)
	if err != nil {
		return AC1{}, err
	}
	cats := t.cats
	if q == 0 {
		q = len(cats)
	}
	if q < 2 || q < len(cats) {
		return AC1{}, fmt.Errorf("stats: AC1 needs q ≥ 2 and ≥ the %d categories observed, got %d", len(cats), q)
	}
	res := AC1{Pi: map[string]float64{}}
	pi := make([]float64, len(cats))
	rated := 0
	for i := range ratings {
		c := t.item(i)
		r := 0.0
		for _, v := range c {
			r += v
		}
		if r >= 1 {
			rated++
			for k, v := range c {
				pi[k] += v / r
			}
		}
		if r >= 2 {
			res.Items++
			s := 0.0
			for _, v := range c {
				s += v * (v - 1)
			}
			res.Pa += s / (r * (r - 1))
		}
	}
	if res.Items == 0 {
		return AC1{}, fmt.Errorf("stats: AC1 needs an item with at least two ratings")
	}
	res.Pa /= float64(res.Items)
	for k, lab := range cats {
		pi[k] /= float64(rated)
		res.Pi[lab] = pi[k]
		res.Pe += pi[k] * (1 - pi[k])
	}
	return res.finish(q), nil
}

// finish divides the summed chance agreement by q − 1 and computes AC1.
func (res AC1) finish(q int) AC1 {
	res.Pe /= float64(q - 1)
	if res.Pe >= 1 {
		res.AC1, res.Reason = math.NaN(), "undefined: expected agreement is 1"
		return res
	}
	res.AC1 = (res.Pa - res.Pe) / (1 - res.Pe)
	return res
}

// tallied holds each item's count per category, densely: one row of
// len(cats) counts per item, categories sorted.
type tallied struct {
	cats   []string
	counts []float64
}

func (t tallied) item(i int) []float64 {
	n := len(t.cats)
	return t.counts[i*n : (i+1)*n]
}

// tally counts each item's labels ("" is missing) in one flat table, with
// the sorted category list.
func tally(ratings [][]string) (tallied, error) {
	if len(ratings) == 0 {
		return tallied{}, ErrEmpty
	}
	index := map[string]int{}
	for _, item := range ratings {
		for _, v := range item {
			if v != "" {
				index[v] = 0
			}
		}
	}
	t := tallied{cats: make([]string, 0, len(index))}
	for c := range index {
		t.cats = append(t.cats, c)
	}
	sort.Strings(t.cats)
	for k, c := range t.cats {
		index[c] = k
	}
	n := len(t.cats)
	t.counts = make([]float64, len(ratings)*n)
	for i, item := range ratings {
		for _, v := range item {
			if v != "" {
				t.counts[i*n+index[v]]++
			}
		}
	}
	return t, nil
}

// Pairs turns two raters' labels into the per-item rating lists that
// GwetAC1, FleissKappa and KrippendorffAlpha take.
func Pairs(a, b []string) ([][]string, error) {
	if len(a) != len(b) {
		return nil, ErrLength
	}
	out := make([][]string, len(a))
	for i := range a {
		out[i] = []string{a[i], b[i]}
	}
	return out, nil
}

// FleissKappa is Fleiss' κ for items rated by the same number m of raters:
// P_i = (Σ_k n_ik² − m)/(m(m−1)), P̄ = mean P_i, p_k = Σ_i n_ik/(N m),
// P̄_e = Σ p_k², κ = (P̄ − P̄_e)/(1 − P̄_e)
// (statsmodels.stats.inter_rater.fleiss_kappa, method="fleiss").
func FleissKappa(ratings [][]string) (float64, error) {
	t, err := tally(ratings)
	if err != nil {
		return math.NaN(), err
	}
	m := -1.0
	for i := range ratings {
		r := 0.0
		for _, v := range t.item(i) {
			r += v
		}
		if m < 0 {
			m = r
		} else if r != m {
			return math.NaN(), fmt.Errorf("stats: Fleiss' κ needs the same number of ratings per item; item %d has %g, not %g", i, r, m)
		}
	}
	if m < 2 {
		return math.NaN(), fmt.Errorf("stats: Fleiss' κ needs at least two ratings per item")
	}
	N := float64(len(ratings))
	pbar := 0.0
	pk := make([]float64, len(t.cats))
	for i := range ratings {
		s := 0.0
		for k, v := range t.item(i) {
			s += v * v
			pk[k] += v
		}
		pbar += (s - m) / (m * (m - 1))
	}
	pbar /= N
	pe := 0.0
	for k := range t.cats {
		p := pk[k] / (N * m)
		pe += p * p
	}
	if pe >= 1 {
		return math.NaN(), nil
	}
	return (pbar - pe) / (1 - pe), nil
}

// Agreement is raw agreement between two raters with category-specific
// (positive-specific) agreement.
type Agreement struct {
	Raw      float64            // Σ_k n_kk / n
	Specific map[string]float64 // PSA_k = 2 n_kk/(n_k· + n_·k)
	N        int
}

// RawAgreement returns raw and category-specific agreement of two raters
// (SPEC C.8: PSA_A = 2n_AA/(n_A· + n_·A)).
func RawAgreement(a, b []string) (Agreement, error) {
	t, err := NewTwoRaters(a, b)
	if err != nil {
		return Agreement{}, err
	}
	return t.Raw(), nil
}

// Prevalence is the share of all non-missing ratings equal to label (for two
// raters, the mean of their rates: Gwet's π of that category).
func Prevalence(ratings [][]string, label string) (float64, error) {
	if len(ratings) == 0 {
		return math.NaN(), ErrEmpty
	}
	k, n := 0.0, 0.0
	for _, item := range ratings {
		for _, v := range item {
			if v == "" {
				continue
			}
			n++
			if v == label {
				k++
			}
		}
	}
	if n == 0 {
		return math.NaN(), ErrEmpty
	}
	return k / n, nil
}

// TwoRaters is the contingency table of two raters' labels over the same
// items: every two-rater statistic is a function of it, so a field rated on
// 24,000 items is counted once and each statistic is read off a k × k table.
type TwoRaters struct {
	Cats   []string    // the labels either rater used, sorted ("" included)
	Counts [][]float64 // Counts[i][j]: items rater A labelled Cats[i], B Cats[j]
	N      int
}

// NewTwoRaters counts two raters' labels item by item.
func NewTwoRaters(a, b []string) (TwoRaters, error) {
	return countRaters(a, b, func(s string) string { return s })
}

func (t TwoRaters) margins() (ra, rb []float64, diag float64) {
	ra, rb = make([]float64, len(t.Cats)), make([]float64, len(t.Cats))
	for i := range t.Cats {
		for j, c := range t.Counts[i] {
			ra[i] += c
			rb[j] += c
		}
		diag += t.Counts[i][i]
	}
	return ra, rb, diag
}

// Kappa is Cohen's κ of the table (as CohenKappa).
func (t TwoRaters) Kappa() Kappa {
	ra, rb, agree := t.margins()
	n := float64(t.N)
	k := Kappa{N: t.N, Po: agree / n}
	for i := range t.Cats {
		k.Pe += ra[i] / n * rb[i] / n
	}
	if k.Pe >= 1-1e-15 {
		k.Kappa, k.Reason = math.NaN(), "undefined: expected agreement is 1 (both raters used a single category)"
		return k
	}
	k.Kappa = (k.Po - k.Pe) / (1 - k.Pe)
	return k
}

// Raw is raw and category-specific agreement (as RawAgreement).
func (t TwoRaters) Raw() Agreement {
	ra, rb, same := t.margins()
	res := Agreement{Raw: same / float64(t.N), Specific: map[string]float64{}, N: t.N}
	for i, c := range t.Cats {
		if ra[i]+rb[i] > 0 {
			res.Specific[c] = 2 * t.Counts[i][i] / (ra[i] + rb[i])
		}
	}
	return res
}

// AC1 is Gwet's AC1 of the two raters, "" counting as missing (as GwetAC1
// on Pairs(a, b)).
func (t TwoRaters) AC1(q int) (AC1, error) {
	var cats []string
	for _, c := range t.Cats {
		if c != "" {
			cats = append(cats, c)
		}
	}
	if q == 0 {
		q = len(cats)
	}
	if q < 2 || q < len(cats) {
		return AC1{}, fmt.Errorf("stats: AC1 needs q ≥ 2 and ≥ the %d categories observed, got %d", len(cats), q)
	}
	res := AC1{Pi: map[string]float64{}}
	pi := make([]float64, len(t.Cats))
	var rated, agree float64
	for i, ci := range t.Cats {
		for j, cj := range t.Counts[i] {
			if cj == 0 {
				continue
			}
			switch {
			case t.Cats[i] != "" && t.Cats[j] != "":
				res.Items += int(cj)
				rated += cj
				pi[i] += cj / 2
				pi[j] += cj / 2
				if i == j {
					agree += cj
				}
			case ci != "":
				rated += cj
				pi[i] += cj
			case t.Cats[j] != "":
				rated += cj
				pi[j] += cj
			}
		}
	}
	if res.Items == 0 {
		return AC1{}, fmt.Errorf("stats: AC1 needs an item with at least two ratings")
	}
	res.Pa = agree / float64(res.Items)
	for i, c := range t.Cats {
		if c == "" {
			continue
		}
		p := pi[i] / rated
		res.Pi[c] = p
		res.Pe += p * (1 - p)
	}
	return res.finish(q), nil
}

// Prevalence is the share of both raters' non-missing labels equal to label
// (as Prevalence on Pairs(a, b)).
func (t TwoRaters) Prevalence(label string) float64 {
	ra, rb, _ := t.margins()
	var k, n float64
	for i, c := range t.Cats {
		if c == "" {
			continue
		}
		n += ra[i] + rb[i]
		if c == label {
			k += ra[i] + rb[i]
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return k / n
}

// NewTwoRatersInts is NewTwoRaters of two raters' integer labels written
// in decimal ("-1", "0", "1"), without writing them: the same table, for a
// fraction of the work on 48,000 rubric values.
func NewTwoRatersInts(a, b []int) (TwoRaters, error) { return countRaters(a, b, strconv.Itoa) }

// countRaters counts two raters' labels into a table whose categories are
// the labels' names, sorted. Labels are few: a linear search of the ones
// seen, skipped while a rater repeats its last label, beats a map.
func countRaters[L comparable](a, b []L, name func(L) string) (TwoRaters, error) {
	if len(a) != len(b) {
		return TwoRaters{}, ErrLength
	}
	if len(a) == 0 {
		return TwoRaters{}, ErrEmpty
	}
	var labels []L
	var cnt [][]float64 // cnt[i][j]: items A labelled labels[i], B labels[j]
	find := func(v L) int {
		for i, l := range labels {
			if l == v {
				return i
			}
		}
		labels = append(labels, v)
		for i := range cnt {
			cnt[i] = append(cnt[i], 0)
		}
		cnt = append(cnt, make([]float64, len(labels)))
		return len(labels) - 1
	}
	var lastA, lastB L
	ia, ib := -1, -1
	for n := range a {
		if ia < 0 || a[n] != lastA {
			lastA, ia = a[n], find(a[n])
		}
		if ib < 0 || b[n] != lastB {
			lastB, ib = b[n], find(b[n])
		}
		cnt[ia][ib]++
	}
	names := make([]string, len(labels))
	for i, l := range labels {
		names[i] = name(l)
	}
	t := TwoRaters{Cats: append([]string(nil), names...), N: len(a)}
	sort.Strings(t.Cats)
	pos := make([]int, len(labels))
	for i, l := range names {
		pos[i] = sort.SearchStrings(t.Cats, l)
	}
	t.Counts = make([][]float64, len(t.Cats))
	for i := range t.Counts {
		t.Counts[i] = make([]float64, len(t.Cats))
	}
	for i, row := range cnt {
		for j, c := range row {
			t.Counts[pos[i]][pos[j]] = c
		}
	}
	return t, nil
}
