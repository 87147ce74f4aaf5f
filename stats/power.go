package stats

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// NormalPower is the power of a two-sided z test of two independent
// groups of n1 each at effect size h (Cohen's h for rates) and level alpha:
// statsmodels' NormalIndPower().power(h, n1, alpha, ratio=1).
func NormalPower(h, n1, alpha float64) float64 {
	z := distuv.UnitNormal
	crit := z.Quantile(1 - alpha/2)
	d := math.Abs(h) * math.Sqrt(n1/2)
	return z.Survival(crit-d) + z.CDF(-crit-d)
}

// ErrPower is a power or level outside (0, 1), or an effect of 0.
var ErrPower = errors.New("stats: power and alpha lie in (0, 1) and the effect is not 0")

// SampleSize is the n per group a two-sided z test needs to detect effect
// h with the power at alpha (statsmodels' zt_ind_solve_power with
// ratio=1), found by bisection to a relative 1e−12.
func SampleSize(h, alpha, power float64) (float64, error) {
	if h == 0 || alpha <= 0 || alpha >= 1 || power <= 0 || power >= 1 {
		return math.NaN(), ErrPower
	}
	lo, hi := 1e-9, 1.0
	for NormalPower(h, hi, alpha) < power {
		hi *= 2
		if hi > 1e15 {
			return math.Inf(1), nil
		}
	}
	for hi-lo > 1e-12*hi {
		mid := (lo + hi) / 2
		if NormalPower(h, mid, alpha) < power {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2, nil
}

// MinimumEffect is the smallest effect h a two-sided z test of n1 per
// group detects with the power at alpha (the minimum detectable effect).
func MinimumEffect(n1, alpha, power float64) (float64, error) {
	if n1 <= 0 || alpha <= 0 || alpha >= 1 || power <= 0 || power >= 1 {
		return math.NaN(), ErrPower
	}
	lo, hi := 0.0, 2*math.Pi
	for hi-lo > 1e-13 {
		mid := (lo + hi) / 2
		if NormalPower(mid, n1, alpha) < power {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2, nil
}

// RateAtEffect is the rate h above p (Cohen's h: 2·asin√p₂ − 2·asin√p₁ =
// h), capped at 1.
func RateAtEffect(p, h float64) float64 {
	a := math.Asin(math.Sqrt(p)) + h/2
	if a >= math.Pi/2 {
		return 1
	}
	return math.Pow(math.Sin(a), 2)
}

// DesignEffect is the variance inflation of m observations per cluster
// with intra-cluster correlation rho: 1 + (m − 1)·rho.
func DesignEffect(m, rho float64) float64 { return 1 + (m-1)*rho }

// ICC is the one-way ANOVA intra-cluster correlation of observations in
// groups (ICC(1); unequal sizes through n₀ = (N − Σnᵢ²/N)/(k − 1)):
// (MSB − MSW)/(MSB + (n₀ − 1)·MSW), floored at 0. It needs two groups and
// more observations than groups.
func ICC(groups [][]float64) (float64, error) {
	k := len(groups)
	var n, sum, sumSq float64
	for _, g := range groups {
		n += float64(len(g))
		for _, v := range g {
			sum += v
		}
		sumSq += float64(len(g) * len(g))
	}
	if k < 2 || n <= float64(k) {
		return math.NaN(), ErrEmpty
	}
	mean := sum / n
	var ssb, ssw float64
	for _, g := range groups {
		if len(g) == 0 {
			continue
		}
		gm := 0.0
		for _, v := range g {
			gm += v
		}
		gm /= float64(len(g))
		ssb += float64(len(g)) * (gm - mean) * (gm - mean)
		for _, v := range g {
			ssw += (v - gm) * (v - gm)
		}
	}
	msb, msw := ssb/float64(k-1), ssw/(n-float64(k))
	n0 := (n - sumSq/n) / float64(k-1)
	if msb+(n0-1)*msw == 0 {
		return 0, nil
	}
	return math.Max(0, (msb-msw)/(msb+(n0-1)*msw)), nil
}
