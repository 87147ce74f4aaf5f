package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Corrected is a rate corrected for a rater's known errors (RoganGladen).
type Corrected struct {
	Rate, SE, Lo, Hi float64
	// Defined is false when the rater is no better than chance (Se + Sp ≤
	// 1), Reason saying so.
	Defined bool
	Reason  string
}

// RoganGladen corrects a rate p observed by a rater (an LLM judge) whose
// sensitivity se and specificity sp were measured on nPos and nNeg items
// people labelled positive and negative (Rogan and Gladen 1978):
// π = (p + Sp − 1)/(Se + Sp − 1), clipped to [0, 1]. Its standard error
// carries both uncertainties by the delta method — varP, the run's
// variance of p (e.g. a cluster bootstrap's), and the validation sample's
// binomial variances of Se and Sp:
// Var π ≈ (varP + π²·Se(1−Se)/nPos + (1−π)²·Sp(1−Sp)/nNeg)/(Se + Sp − 1)²,
// with π unclipped; the interval π ± z·SE is clipped to [0, 1].
func RoganGladen(p, varP, se float64, nPos int, sp float64, nNeg int, level float64) Corrected {
	j := se + sp - 1
	if nPos <= 0 || nNeg <= 0 {
		return Corrected{Rate: math.NaN(), SE: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Reason: "no validated item on one side: sensitivity or specificity unknown"}
	}
	if j <= 0 {
		return Corrected{Rate: math.NaN(), SE: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Reason: fmt.Sprintf("Se + Sp = %.3f ≤ 1: the rater is no better than chance, and the correction is undefined", se+sp)}
	}
	pi := (p + sp - 1) / j
	v := (varP + pi*pi*se*(1-se)/float64(nPos) + (1-pi)*(1-pi)*sp*(1-sp)/float64(nNeg)) / (j * j)
	s := math.Sqrt(v)
	z := zFor(level)
	clip := func(x float64) float64 { return math.Min(1, math.Max(0, x)) }
	return Corrected{Rate: clip(pi), SE: s, Lo: clip(pi - z*s), Hi: clip(pi + z*s), Defined: true}
}

// RoganGladenBootstrap is the percentile interval of the Rogan–Gladen rate
// from a bootstrap over both samples: pReps are the run's replicates of p
// (its cluster bootstrap), and each is paired with a resample of the
// validation sample — Se from tp of nPos validated positives, Sp from tn
// of nNeg negatives, each redrawn with replacement. Replicates where
// Se + Sp ≤ 1 are left out; ok is false when none is left.
//
// Written here because no Go library resamples a misclassification
// correction; the delta-method interval (RoganGladen) is its check.
func RoganGladenBootstrap(pReps []float64, tp, nPos, tn, nNeg int, seed uint64, level float64) (lo, hi float64, ok bool) {
	if nPos <= 0 || nNeg <= 0 || len(pReps) == 0 {
		return math.NaN(), math.NaN(), false
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	draw := func(k, n int) float64 {
		hits := 0
		for range n {
			if rng.IntN(n) < k {
				hits++
			}
		}
		return float64(hits) / float64(n)
	}
	var out []float64
	for _, p := range pReps {
		se, sp := draw(tp, nPos), draw(tn, nNeg)
		j := se + sp - 1
		if math.IsNaN(p) || j <= 0 {
			continue
		}
		out = append(out, math.Min(1, math.Max(0, (p+sp-1)/j)))
	}
	if len(out) == 0 {
		return math.NaN(), math.NaN(), false
	}
	lo, hi = percentileInterval(out, level)
	return lo, hi, true
}
