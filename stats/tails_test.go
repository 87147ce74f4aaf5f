package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestClusterBootstrapIntervalsArePercentileAll: the intervals kept from
// the tails equal PercentileAll of the whole replicates, bit for bit, and
// rest on as many finite replicates — over statistics with many ties, with
// continuous values, with NaN in some resamples and in all (replicateValue),
// and a rate of the draws, for B from 1
// to 2,000, levels from 0.5 to 1, on one core and on several (each keeps
// its own tails, merged at the end).
func TestClusterBootstrapIntervalsArePercentileAll(t *testing.T) {
	const k, clusters = 9, 7
	// The statistic of a resample: a function of its draws alone, so both
	// bootstraps compute the same replicate for the same draws.
	stat := func(w, nz []int, out []float64) bool {
		runtime.Gosched() // resamples overlap: several cores' tails are merged
		var h uint64 = 14695981039346656037
		for _, x := range w {
			h = (h ^ uint64(x)) * 1099511628211
		}
		rng := rand.New(rand.NewPCG(h, 7))
		for j := range out[:k-1] {
			out[j] = replicateValue(rng, j)
		}
		out[k-1] = float64(w[0]) / float64(clusters) // a rate of the draws
		return true
	}
	for _, procs := range []int{1, 3} {
		old := runtime.GOMAXPROCS(procs)
		for _, b := range []int{1, 2, 5, 40, 1000, 2000} {
			for _, level := range []float64{0.5, 0.9, 0.95, 0.99, 1} {
				t.Run(fmt.Sprintf("procs=%d/B=%d/level=%v", procs, b, level), func(t *testing.T) {
					reps, err := ClusterBootstrapInto(clusters, b, k, 3, stat)
					if err != nil {
						t.Fatal(err)
					}
					wlo, whi, wn := reps.PercentileAll(level)
					lo, hi, n, err := ClusterBootstrapIntervals(clusters, b, k, 3, level, stat)
					if err != nil {
						t.Fatal(err)
					}
					for j := range k {
						if !same(lo[j], wlo[j]) || !same(hi[j], whi[j]) || n[j] != wn[j] {
							t.Fatalf("statistic %d: [%v, %v] of %d, want [%v, %v] of %d", j, lo[j], hi[j], n[j], wlo[j], whi[j], wn[j])
						}
					}
				})
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

// TestTailSizeReachesTheOrderStatistics: for every count of finite
// replicates up to B, the order statistics a percentile interval
// interpolates lie within tailSize of the bottom or of the top.
func TestTailSizeReachesTheOrderStatistics(t *testing.T) {
	for _, b := range []int{1, 2, 3, 10, 999, 1000, 1001, 4000} {
		for _, level := range []float64{0.5, 0.8, 0.9, 0.95, 0.99, 0.999, 1} {
			m := tailSize(b, level)
			for n := 1; n <= b; n++ {
				for _, q := range []float64{(1 - level) / 2, (1 + level) / 2} {
					i := int(math.Floor(float64(n-1) * q))
					if i >= n-1 {
						continue // the maximum: the top tail's last
					}
					for _, r := range []int{i, i + 1} {
						if r >= m && n-1-r >= m {
							t.Fatalf("B=%d level %v n=%d: order statistic %d is beyond both tails of %d", b, level, n, r, m)
						}
					}
				}
			}
		}
	}
}
