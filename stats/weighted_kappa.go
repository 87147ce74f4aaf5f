package stats

import (
	"fmt"
	"math"
)

// Weighting says how far apart two points of an ordered scale are for a
// weighted κ.
type Weighting string

// Weightings of WeightedKappa, as scikit-learn's cohen_kappa_score names them.
const (
	Linear    Weighting = "linear"    // |i − j|
	Quadratic Weighting = "quadratic" // (i − j)²
)

// WeightedKappa is Cohen's weighted κ of two raters on an ordered scale
// (scale: its points, lowest first; every label must be one of them):
//
//	κ_w = 1 − Σ w_ij O_ij / Σ w_ij E_ij,  E = outer(row sums, column sums) / n
//
// with w_ij = |i − j| (linear) or (i − j)² (quadratic) over the scale's
// positions, as sklearn.metrics.cohen_kappa_score(weights=…, labels=scale).
// The distances are the scale's, not only the points used: a 5-point
// Likert answered 1, 2 and 5 keeps 5 three steps from 2. NaN with a reason
// when every item falls on one point (Σ w E = 0).
func WeightedKappa(a, b []string, scale []string, w Weighting) (Kappa, error) {
	if len(a) != len(b) {
		return Kappa{}, ErrLength
	}
	if len(a) == 0 {
		return Kappa{}, ErrEmpty
	}
	pos := make(map[string]int, len(scale))
	for i, s := range scale {
		pos[s] = i
	}
	k := len(scale)
	obs := make([]float64, k*k)
	rows, cols := make([]float64, k), make([]float64, k)
	for n := range a {
		i, ok := pos[a[n]]
		j, ok2 := pos[b[n]]
		if !ok || !ok2 {
			return Kappa{}, fmt.Errorf("weighted κ: item %d: label %q or %q is not a point of the scale %v", n, a[n], b[n], scale)
		}
		obs[i*k+j]++
		rows[i]++
		cols[j]++
	}
	weight := func(i, j int) float64 {
		d := math.Abs(float64(i - j))
		if w == Quadratic {
			return d * d
		}
		return d
	}
	if w != Linear && w != Quadratic {
		return Kappa{}, fmt.Errorf("weighted κ: weighting %q: want linear or quadratic", w)
	}
	n := float64(len(a))
	var wo, we float64
	for i := range k {
		for j := range k {
			wo += weight(i, j) * obs[i*k+j]
			we += weight(i, j) * rows[i] * cols[j] / n
		}
	}
	res := Kappa{N: len(a), Po: 1 - wo/n, Pe: 1 - we/n}
	if we == 0 {
		res.Kappa, res.Reason = math.NaN(), "undefined: both raters used a single point of the scale"
		return res, nil
	}
	res.Kappa = 1 - wo/we
	return res, nil
}
