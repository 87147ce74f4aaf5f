package stats

import (
	"fmt"
	"math"
)

// PermResult is the outcome of a permutation test.
type PermResult struct {
	Observed float64
	P        float64
	Exact    bool // every permutation was enumerated
	Count    int  // permutations with a statistic ≥ the observed one
	Total    int  // permutations evaluated
}

// factorial returns n! or +Inf when it exceeds limit.
func factorialUpTo(n, limit int) int {
	f := 1
	for i := 2; i <= n; i++ {
		if f > limit/i {
			return math.MaxInt
		}
		f *= i
	}
	return f
}

// PermutationTest tests whether stat on the identity arrangement of n items
// is unusually large. stat receives a permutation perm of 0..n−1 (item i takes
// the label of item perm[i]). If n! ≤ exactLimit every permutation is
// enumerated and p = #{stat ≥ observed}/n! (the identity included); otherwise
// B random permutations give p = (1 + #{stat_b ≥ observed})/(1 + B) (SPEC
// C.6). A relative tolerance of 1e-12 guards ≥ against rounding. Monte Carlo
// draws come from seed, one generator per permutation, so the result does
// not depend on the number of cores.
func PermutationTest(n, B, exactLimit int, seed uint64, stat func(perm []int) float64) (PermResult, error) {
	if n <= 0 {
		return PermResult{}, ErrEmpty
	}
	id := make([]int, n)
	for i := range id {
		id[i] = i
	}
	obs := stat(append([]int(nil), id...))
	if math.IsNaN(obs) {
		return PermResult{}, fmt.Errorf("stats: observed statistic is NaN")
	}
	ge := func(v float64) bool { return !math.IsNaN(v) && v >= obs-1e-12*math.Max(1, math.Abs(obs)) }
	res := PermResult{Observed: obs}
	if total := factorialUpTo(n, exactLimit); total <= exactLimit {
		res.Exact, res.Total = true, total
		perm := append([]int(nil), id...)
		// Heap's algorithm, iterative.
		c := make([]int, n)
		if ge(stat(perm)) {
			res.Count++
		}
		for i := 0; i < n; {
			if c[i] < i {
				if i%2 == 0 {
					perm[0], perm[i] = perm[i], perm[0]
				} else {
					perm[c[i]], perm[i] = perm[i], perm[c[i]]
				}
				if ge(stat(append([]int(nil), perm...))) {
					res.Count++
				}
				c[i]++
				i = 0
			} else {
				c[i] = 0
				i++
			}
		}
		res.P = float64(res.Count) / float64(total)
		return res, nil
	}
	if B <= 0 {
		return PermResult{}, fmt.Errorf("stats: %d! permutations exceed the exact limit and B = %d", n, B)
	}
	hits := make([]bool, B)
	err := parallel(B, func(b int) error {
		rng := rngFor(seed, b)
		perm := append([]int(nil), id...)
		rng.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		hits[b] = ge(stat(perm))
		return nil
	})
	if err != nil {
		return PermResult{}, err
	}
	for _, h := range hits {
		if h {
			res.Count++
		}
	}
	res.Total = B
	res.P = float64(1+res.Count) / float64(1+B)
	return res, nil
}
