package stats

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
)

// maxRedraws bounds how often one resample is redrawn when the statistic is
// undefined on it (e.g. an empty subset).
const maxRedraws = 1000

// ErrUndefined is returned when a bootstrap statistic stays undefined after
// repeated redraws.
var ErrUndefined = errors.New("stats: statistic undefined on every redraw")

// Replicates holds B bootstrap replicates of k statistics (B rows of k).
type Replicates struct {
	Values [][]float64
}

// Column returns the B replicates of statistic j.
func (r Replicates) Column(j int) []float64 {
	out := make([]float64, len(r.Values))
	for b, row := range r.Values {
		out[b] = row[j]
	}
	return out
}

// Finite is how many resamples of statistic j are defined (not NaN).
func (r Replicates) Finite(j int) int {
	n := 0
	for _, v := range r.Column(j) {
		if !math.IsNaN(v) {
			n++
		}
	}
	return n
}

// Percentile returns the percentile interval of statistic j: the
// (1−level)/2 and (1+level)/2 quantiles of its replicates with numpy's linear
// method (numpy.percentile of the replicates; SPEC B.9). Replicates where the
// statistic is NaN (undefined on that resample, e.g. a cell with no rows) are
// skipped, which is the same as redrawing the resample for that statistic
// alone; with no finite replicate the interval is NaN.
func (r Replicates) Percentile(j int, level float64) (lo, hi float64) {
	col := r.Column(j)
	finite := col[:0]
	for _, v := range col {
		if !math.IsNaN(v) {
			finite = append(finite, v)
		}
	}
	return percentileInterval(finite, level)
}

// rngFor gives resample b its own generator, so results do not depend on how
// resamples are spread over goroutines.
func rngFor(seed uint64, b int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x5851f42d4c957f2d^uint64(b)))
}

// parallel runs fn(b) for b in [0, B) on all cores.
func parallel(B int, fn func(b int) error) error {
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	next := make(chan int, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range next {
				if err := fn(b); err != nil {
					once.Do(func() { first = err })
				}
			}
		}()
	}
	for b := range B {
		next <- b
	}
	close(next)
	wg.Wait()
	return first
}

// ClusterBootstrap resamples clusters with replacement (the block bootstrap of
// SPEC B.9): each of B resamples draws nClusters cluster indices uniformly
// with replacement and passes stat the multiplicity of every cluster (w[c] =
// times drawn). stat returns k statistics computed on that same resample — so
// differences and effect sizes between groups get intervals — and ok = false
// when they are undefined (e.g. Σn = 0), in which case the resample is
// redrawn. Deterministic for a seed whatever the number of cores.
func ClusterBootstrap(nClusters, B int, seed uint64, stat func(w []int) (vals []float64, ok bool)) (Replicates, error) {
	if nClusters <= 0 || B <= 0 {
		return Replicates{}, ErrEmpty
	}
	out := Replicates{Values: make([][]float64, B)}
	err := parallel(B, func(b int) error {
		rng := rngFor(seed, b)
		w := make([]int, nClusters)
		for range maxRedraws {
			clear(w)
			for range nClusters {
				w[rng.IntN(nClusters)]++
			}
			if vals, ok := stat(w); ok {
				out.Values[b] = append([]float64(nil), vals...)
				return nil
			}
		}
		return fmt.Errorf("resample %d: %w", b, ErrUndefined)
	})
	return out, err
}

// ClusterBootstrapInto is ClusterBootstrap for a statistic of k values
// that writes them into out (a row of the result, length k) and is also
// given the drawn clusters nz = Nonzero(w); the replicates share one
// allocation, and w and nz are reused. The draws, and so the replicates,
// are ClusterBootstrap's.
func ClusterBootstrapInto(nClusters, B, k int, seed uint64, stat func(w, nz []int, out []float64) bool) (Replicates, error) {
	if nClusters <= 0 || B <= 0 {
		return Replicates{}, ErrEmpty
	}
	flat := make([]float64, B*k)
	out := Replicates{Values: make([][]float64, B)}
	scratch := sync.Pool{New: func() any { return &[2][]int{make([]int, nClusters), make([]int, 0, nClusters)} }}
	err := parallel(B, func(b int) error {
		s := scratch.Get().(*[2][]int)
		defer scratch.Put(s)
		row := flat[b*k : (b+1)*k : (b+1)*k]
		if err := drawInto(seed, b, s[0], s[1], row, stat); err != nil {
			return err
		}
		out.Values[b] = row
		return nil
	})
	return out, err
}

// drawInto draws resample b's clusters into w (len(w) of them, with
// replacement; their multiplicities) and the drawn ones into nz's room
// (cap(nz) ≥ len(w)), and has stat write its values into row — drawing
// again while stat says they are undefined. The draws are
// ClusterBootstrap's.
func drawInto(seed uint64, b int, w, nz []int, row []float64, stat func(w, nz []int, out []float64) bool) error {
	rng := rngFor(seed, b)
	n := len(w)
	for range maxRedraws {
		clear(w)
		for range n {
			w[rng.IntN(n)]++
		}
		nz = nz[:0]
		for i, wi := range w {
			if wi != 0 {
				nz = append(nz, i)
			}
		}
		if stat(w, nz, row) {
			return nil
		}
	}
	return fmt.Errorf("resample %d: %w", b, ErrUndefined)
}

// Bootstrap is the ordinary percentile bootstrap over n items: each resample
// passes stat n indices drawn with replacement. For a paired bootstrap pass
// paired observations and let stat compute the paired difference on the same
// indices.
func Bootstrap(n, B int, seed uint64, stat func(idx []int) (vals []float64, ok bool)) (Replicates, error) {
	if n <= 0 || B <= 0 {
		return Replicates{}, ErrEmpty
	}
	out := Replicates{Values: make([][]float64, B)}
	err := parallel(B, func(b int) error {
		rng := rngFor(seed, b)
		idx := make([]int, n)
		for range maxRedraws {
			for i := range idx {
				idx[i] = rng.IntN(n)
			}
			if vals, ok := stat(idx); ok {
				out.Values[b] = append([]float64(nil), vals...)
				return nil
			}
		}
		return fmt.Errorf("resample %d: %w", b, ErrUndefined)
	})
	return out, err
}

// PairedMeanDiff bootstraps the mean of a−b over paired items and returns the
// observed difference with its percentile interval.
func PairedMeanDiff(a, b []float64, B int, seed uint64, level float64) (diff, lo, hi float64, err error) {
	if len(a) != len(b) {
		return math.NaN(), math.NaN(), math.NaN(), ErrLength
	}
	if err := checkFinite(a); err != nil {
		return math.NaN(), math.NaN(), math.NaN(), err
	}
	if err := checkFinite(b); err != nil {
		return math.NaN(), math.NaN(), math.NaN(), err
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
	}
	diff, _ = Mean(d)
	reps, err := Bootstrap(len(d), B, seed, func(idx []int) ([]float64, bool) {
		s := 0.0
		for _, i := range idx {
			s += d[i]
		}
		return []float64{s / float64(len(idx))}, true
	})
	if err != nil {
		return diff, math.NaN(), math.NaN(), err
	}
	lo, hi = reps.Percentile(0, level)
	return diff, lo, hi, nil
}

// ClusterCounts are per-cluster successes and trials of one group of rows,
// the sufficient statistics of a proportion under the cluster bootstrap.
type ClusterCounts struct {
	K, N []float64 // indexed by cluster
}

// NewClusterCounts tallies rows (cluster index, indicator) into per-cluster counts.
func NewClusterCounts(nClusters int, cluster []int, indicator []bool) (ClusterCounts, error) {
	if len(cluster) != len(indicator) {
		return ClusterCounts{}, ErrLength
	}
	c := ClusterCounts{K: make([]float64, nClusters), N: make([]float64, nClusters)}
	for i, cl := range cluster {
		if cl < 0 || cl >= nClusters {
			return ClusterCounts{}, fmt.Errorf("stats: row %d: cluster %d outside [0, %d)", i, cl, nClusters)
		}
		c.N[cl]++
		if indicator[i] {
			c.K[cl]++
		}
	}
	return c, nil
}

// Rate is Σ_c w_c k_c / Σ_c w_c n_c under cluster weights w; ok is false when
// the resample holds no rows of the group.
func (c ClusterCounts) Rate(w []int) (float64, bool) {
	var k, n float64
	for i, wi := range w {
		if wi != 0 {
			k += float64(wi) * c.K[i]
			n += float64(wi) * c.N[i]
		}
	}
	if n == 0 {
		return math.NaN(), false
	}
	return k / n, true
}

// Nonzero lists the clusters a resample drew, in ascending order, for
// RateOf: with many groups per resample it skips the undrawn third.
func Nonzero(w []int) []int {
	nz := make([]int, 0, len(w))
	for i, wi := range w {
		if wi != 0 {
			nz = append(nz, i)
		}
	}
	return nz
}

// RateOf is Rate(w) summed over the drawn clusters nz = Nonzero(w) only;
// the result is the same to the last bit.
func (c ClusterCounts) RateOf(w, nz []int) (float64, bool) {
	var k, n float64
	for _, i := range nz {
		wi := float64(w[i])
		k += wi * c.K[i]
		n += wi * c.N[i]
	}
	if n == 0 {
		return math.NaN(), false
	}
	return k / n, true
}
