package stats

import (
	"fmt"
	"math"
	"sort"
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
	if len(a) != len(b) {
		return Kappa{}, ErrLength
	}
	if len(a) == 0 {
		return Kappa{}, ErrEmpty
	}
	ra, rb := map[string]float64{}, map[string]float64{}
	agree := 0.0
	for i := range a {
		ra[a[i]]++
		rb[b[i]]++
		if a[i] == b[i] {
			agree++
		}
	}
	n := float64(len(a))
	k := Kappa{N: len(a), Po: agree / n}
	// Sum in label order so the result does not depend on map iteration.
	for _, lab := range sortedKeys(ra) {
		k.Pe += ra[lab] / n * rb[lab] / n
	}
	if k.Pe >= 1-1e-15 {
		k.Kappa, k.Reason = math.NaN(), "undefined: expected agreement is 1 (both raters used a single category)"
		return k, nil
	}
	k.Kappa = (k.Po - k.Pe) / (1 - k.Pe)
	return k, nil
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
	counts, cats, err := tally(ratings)
	if err != nil {
		return AC1{}, err
	}
	if q == 0 {
		q = len(cats)
	}
	if q < 2 || q < len(cats) {
		return AC1{}, fmt.Errorf("stats: AC1 needs q ≥ 2 and ≥ the %d categories observed, got %d", len(cats), q)
	}
	res := AC1{Pi: map[string]float64{}}
	rated := 0
	for _, c := range counts {
		r := 0.0
		for _, v := range c {
			r += v
		}
		if r >= 1 {
			rated++
			for _, k := range sortedKeys(c) {
				res.Pi[k] += c[k] / r
			}
		}
		if r >= 2 {
			res.Items++
			s := 0.0
			for _, k := range sortedKeys(c) {
				s += c[k] * (c[k] - 1)
			}
			res.Pa += s / (r * (r - 1))
		}
	}
	if res.Items == 0 {
		return AC1{}, fmt.Errorf("stats: AC1 needs an item with at least two ratings")
	}
	res.Pa /= float64(res.Items)
	for _, k := range sortedKeys(res.Pi) {
		res.Pi[k] /= float64(rated)
		res.Pe += res.Pi[k] * (1 - res.Pi[k])
	}
	res.Pe /= float64(q - 1)
	if res.Pe >= 1 {
		res.AC1, res.Reason = math.NaN(), "undefined: expected agreement is 1"
		return res, nil
	}
	res.AC1 = (res.Pa - res.Pe) / (1 - res.Pe)
	return res, nil
}

// tally counts each item's labels; it returns the sorted category list.
func tally(ratings [][]string) ([]map[string]float64, []string, error) {
	if len(ratings) == 0 {
		return nil, nil, ErrEmpty
	}
	seen := map[string]bool{}
	out := make([]map[string]float64, len(ratings))
	for i, item := range ratings {
		out[i] = map[string]float64{}
		for _, v := range item {
			if v == "" {
				continue
			}
			out[i][v]++
			seen[v] = true
		}
	}
	var cats []string
	for c := range seen {
		cats = append(cats, c)
	}
	sort.Strings(cats)
	return out, cats, nil
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
	counts, cats, err := tally(ratings)
	if err != nil {
		return math.NaN(), err
	}
	m := -1.0
	for i, c := range counts {
		r := 0.0
		for _, v := range c {
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
	N := float64(len(counts))
	pbar := 0.0
	pk := map[string]float64{}
	for _, c := range counts {
		s := 0.0
		for k, v := range c {
			s += v * v
			pk[k] += v
		}
		pbar += (s - m) / (m * (m - 1))
	}
	pbar /= N
	pe := 0.0
	for _, k := range cats {
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
	if len(a) != len(b) {
		return Agreement{}, ErrLength
	}
	if len(a) == 0 {
		return Agreement{}, ErrEmpty
	}
	diag, ra, rb := map[string]float64{}, map[string]float64{}, map[string]float64{}
	same := 0.0
	for i := range a {
		ra[a[i]]++
		rb[b[i]]++
		if a[i] == b[i] {
			diag[a[i]]++
			same++
		}
	}
	res := Agreement{Raw: same / float64(len(a)), Specific: map[string]float64{}, N: len(a)}
	for _, m := range []map[string]float64{ra, rb} {
		for k := range m {
			res.Specific[k] = 2 * diag[k] / (ra[k] + rb[k])
		}
	}
	return res, nil
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

func sortedKeys(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
