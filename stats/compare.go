package stats

import (
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// McNemarMidP is the mid-p of McNemar's exact test on the discordant
// counts b and c: 2·P(X ≤ k) − P(X = k), X ~ Binom(b + c, ½), k = min(b, c),
// capped at 1 (Fagerland, Lydersen and Laake 2013: closer to the nominal
// level than the exact test, which is conservative). 1 without discordant
// pairs.
func McNemarMidP(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	k := float64(min(b, c))
	d := distuv.Binomial{N: float64(n), P: 0.5}
	return math.Min(1, 2*d.CDF(k)-d.Prob(k))
}

// Holm adjusts p-values for a family by Holm's step-down method
// (statsmodels multipletests method="holm"): the i-th smallest is
// max_{j ≤ i} (m − j + 1)·p_(j), capped at 1, in the input's order.
func Holm(p []float64) []float64 {
	m := len(p)
	order := sortedOrder(p)
	out := make([]float64, m)
	run := 0.0
	for rank, i := range order {
		run = math.Max(run, math.Min(1, float64(m-rank)*p[i]))
		out[i] = run
	}
	return out
}

// BenjaminiHochberg adjusts p-values for the false discovery rate
// (statsmodels multipletests method="fdr_bh"): the i-th smallest is
// min_{j ≥ i} m·p_(j)/j, capped at 1, in the input's order.
func BenjaminiHochberg(p []float64) []float64 {
	m := len(p)
	order := sortedOrder(p)
	out := make([]float64, m)
	run := 1.0
	for rank := m - 1; rank >= 0; rank-- {
		i := order[rank]
		run = math.Min(run, p[i]/(float64(rank+1)/float64(m))) // p / ecdf, as statsmodels divides
		out[i] = math.Min(1, run)
	}
	return out
}

// sortedOrder are the indices of p from its smallest value up (ties in
// their order, as a stable sort: statsmodels' mergesort).
func sortedOrder(p []float64) []int {
	order := make([]int, len(p))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return p[order[a]] < p[order[b]] })
	return order
}

// SignFlipResult is a paired sign-flip permutation test of a mean
// difference.
type SignFlipResult struct {
	Diff  float64 // the observed mean difference
	P     float64 // two-sided
	Exact bool    // every sign flip enumerated
	B     int     // random flips drawn (Monte Carlo)
}

// SignFlip tests whether the mean of d (paired differences, one per
// cluster) is 0 by flipping signs: with n ≤ exactN every one of the 2ⁿ
// flips is enumerated, else B random flips are drawn from seed. The
// two-sided p is scipy.stats.permutation_test's (permutation_type
// "samples"): 2·min(P(T ≤ t), P(T ≥ t)) with its relative tolerance of
// 1e−14, capped at 1; a Monte Carlo p counts the observed flip too
// ((k + 1)/(B + 1)).
func SignFlip(d []float64, B int, seed uint64, exactN int) (SignFlipResult, error) {
	n := len(d)
	if n == 0 {
		return SignFlipResult{}, ErrEmpty
	}
	if err := checkFinite(d); err != nil {
		return SignFlipResult{}, err
	}
	mean := func(sign func(i int) float64) float64 {
		s := 0.0
		for i, v := range d {
			s += sign(i) * v
		}
		return s / float64(n)
	}
	obs := mean(func(int) float64 { return 1 })
	gamma := math.Abs(1e-14 * obs)
	var less, greater, total int
	count := func(t float64) {
		total++
		if t <= obs+gamma {
			less++
		}
		if t >= obs-gamma {
			greater++
		}
	}
	res := SignFlipResult{Diff: obs}
	if n <= exactN {
		res.Exact = true
		for mask := 0; mask < 1<<n; mask++ {
			count(mean(func(i int) float64 {
				if mask&(1<<i) != 0 {
					return -1
				}
				return 1
			}))
		}
		res.P = math.Min(1, 2*math.Min(float64(less), float64(greater))/float64(total))
		return res, nil
	}
	r := rand.New(rand.NewPCG(seed, 0x5167))
	for range B {
		count(mean(func(int) float64 {
			if r.IntN(2) == 0 {
				return -1
			}
			return 1
		}))
	}
	res.B = B
	res.P = math.Min(1, 2*math.Min(float64(less+1), float64(greater+1))/float64(B+1))
	return res, nil
}
