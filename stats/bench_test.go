package stats

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkBlockBootstrap is the figure: 1,000 resamples over 24,000
// rows in 80 clusters with 50 statistics (proportions of 50 row groups, e.g.
// model × frame cells) per resample, tallies included.
func BenchmarkBlockBootstrap(b *testing.B) {
	const rows, clusters, groups = 24000, 80, 50
	rng := rand.New(rand.NewPCG(1, 2))
	cl := make([]int, rows)
	grp := make([]int, rows)
	ind := make([]bool, rows)
	for i := range rows {
		cl[i], grp[i], ind[i] = rng.IntN(clusters), rng.IntN(groups), rng.Float64() < 0.3
	}
	b.ResetTimer()
	for range b.N {
		counts := make([]ClusterCounts, groups)
		for g := range counts {
			counts[g] = ClusterCounts{K: make([]float64, clusters), N: make([]float64, clusters)}
		}
		for i := range rows {
			counts[grp[i]].N[cl[i]]++
			if ind[i] {
				counts[grp[i]].K[cl[i]]++
			}
		}
		reps, err := ClusterBootstrap(clusters, 1000, 99, func(w []int) ([]float64, bool) {
			out := make([]float64, groups)
			for g := range counts {
				r, ok := counts[g].Rate(w)
				if !ok {
					return nil, false
				}
				out[g] = r
			}
			return out, true
		})
		if err != nil {
			b.Fatal(err)
		}
		for g := range groups {
			reps.Percentile(g, 0.95)
		}
	}
}
