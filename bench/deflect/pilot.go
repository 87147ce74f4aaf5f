package deflect

import "sort"

// Pilot picks n claims for a cheap first look: spread evenly over the claim
// levels (round-robin) and, within a level, evenly over its claims, in the
// benchmark's order. It is deterministic, so a pilot's calls are exactly the
// full run's calls for those claims: the full run later reuses them from the
// cache. n ≤ 0 or n ≥ len(claims) returns every claim.
func Pilot(claims []Claim, n int) []Claim {
	if n <= 0 || n >= len(claims) {
		return claims
	}
	byLevel := map[int][]int{}
	var levels []int
	for i, c := range claims {
		if _, ok := byLevel[c.Level]; !ok {
			levels = append(levels, c.Level)
		}
		byLevel[c.Level] = append(byLevel[c.Level], i)
	}
	sort.Ints(levels)
	quota := map[int]int{}
	for left := n; left > 0; {
		progressed := false
		for _, l := range levels {
			if left > 0 && quota[l] < len(byLevel[l]) {
				quota[l]++
				left--
				progressed = true
			}
		}
		if !progressed {
			break
		}
	}
	var picked []int
	for _, l := range levels {
		idx, k := byLevel[l], quota[l]
		for i := range k {
			picked = append(picked, idx[i*len(idx)/k])
		}
	}
	sort.Ints(picked)
	out := make([]Claim, len(picked))
	for i, p := range picked {
		out[i] = claims[p]
	}
	return out
}
