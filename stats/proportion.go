package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// CIMethod selects a confidence interval for a binomial proportion.
type CIMethod string

// Interval methods, named as in statsmodels.stats.proportion.proportion_confint.
const (
	Wilson         CIMethod = "wilson"
	ClopperPearson CIMethod = "beta"
	AgrestiCoull   CIMethod = "agresti_coull"
)

// Proportion is k successes out of n with a confidence interval.
type Proportion struct {
	K, N     int
	Estimate float64 // k/n; NaN when n = 0
	Lo, Hi   float64
	Level    float64
	Method   CIMethod
}

// zFor returns the two-sided normal quantile for a confidence level.
func zFor(level float64) float64 {
	return distuv.UnitNormal.Quantile(1 - (1-level)/2)
}

// Prop estimates k/n with a confidence interval (level e.g. 0.95).
//
//   - Wilson: centre (p̂ + z²/2n)/(1 + z²/n), half-width z√(p̂(1−p̂)/n + z²/4n²)/(1 + z²/n)
//     (SPEC F.5; statsmodels method="wilson").
//   - Clopper–Pearson: [Beta⁻¹(α/2; k, n−k+1), Beta⁻¹(1−α/2; k+1, n−k)], 0 and 1 at the
//     ends (statsmodels method="beta").
//   - Agresti–Coull: Wald interval on ñ = n + z², p̃ = (k + z²/2)/ñ, clipped to
//     [0, 1] (statsmodels method="agresti_coull").
//
// n = 0 gives NaN estimate and bounds.
func Prop(k, n int, level float64, method CIMethod) (Proportion, error) {
	if k < 0 || n < 0 || k > n {
		return Proportion{}, fmt.Errorf("stats: proportion %d/%d is not valid", k, n)
	}
	if level <= 0 || level >= 1 {
		return Proportion{}, fmt.Errorf("stats: confidence level %g not in (0, 1)", level)
	}
	if method == "" {
		method = Wilson
	}
	p := Proportion{K: k, N: n, Level: level, Method: method, Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	if n == 0 {
		return p, nil
	}
	nf, kf := float64(n), float64(k)
	ph := kf / nf
	p.Estimate = ph
	z := zFor(level)
	switch method {
	case Wilson:
		z2 := z * z
		den := 1 + z2/nf
		c := (ph + z2/(2*nf)) / den
		h := z * math.Sqrt(ph*(1-ph)/nf+z2/(4*nf*nf)) / den
		p.Lo, p.Hi = c-h, c+h
		// At k = 0 (k = n) the bound is exactly 0 (1): c and h are equal
		// then, but their rounding leaves 2.8e-17, which a report prints.
		if k == 0 {
			p.Lo = 0
		}
		if k == n {
			p.Hi = 1
		}
	case ClopperPearson:
		a := 1 - level
		p.Lo, p.Hi = 0, 1
		if k > 0 {
			p.Lo = distuv.Beta{Alpha: kf, Beta: nf - kf + 1}.Quantile(a / 2)
		}
		if k < n {
			p.Hi = distuv.Beta{Alpha: kf + 1, Beta: nf - kf}.Quantile(1 - a/2)
		}
	case AgrestiCoull:
		z2 := z * z
		nt := nf + z2
		pt := (kf + z2/2) / nt
		h := z * math.Sqrt(pt*(1-pt)/nt)
		p.Lo, p.Hi = math.Max(0, pt-h), math.Min(1, pt+h)
	default:
		return Proportion{}, fmt.Errorf("stats: unknown interval method %q", method)
	}
	return p, nil
}

// CohensH is the effect size h = 2·asin(√p1) − 2·asin(√p2) (Cohen 1988; SPEC
// B.10). It is signed; |h| is the magnitude.
func CohensH(p1, p2 float64) float64 {
	return 2*math.Asin(math.Sqrt(p1)) - 2*math.Asin(math.Sqrt(p2))
}

// DiffProp is p1 − p2 with the unpooled Wald interval
// (p1−p2) ± z√(p1(1−p1)/n1 + p2(1−p2)/n2). For interval estimates that respect
// clustering use ClusterBootstrap.
func DiffProp(k1, n1, k2, n2 int, level float64) (diff, lo, hi float64, err error) {
	if n1 <= 0 || n2 <= 0 || k1 < 0 || k2 < 0 || k1 > n1 || k2 > n2 {
		return math.NaN(), math.NaN(), math.NaN(), fmt.Errorf("stats: proportions %d/%d and %d/%d are not valid", k1, n1, k2, n2)
	}
	p1, p2 := float64(k1)/float64(n1), float64(k2)/float64(n2)
	z := zFor(level)
	h := z * math.Sqrt(p1*(1-p1)/float64(n1)+p2*(1-p2)/float64(n2))
	return p1 - p2, p1 - p2 - h, p1 - p2 + h, nil
}
