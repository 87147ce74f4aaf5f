package stats

import (
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"strconv"
	"testing"
)

// sortedPercentile is the percentile interval as numpy computes it: the
// finite replicates sorted, then the linear quantiles.
func sortedPercentile(r Replicates, j int, level float64) (lo, hi float64) {
	var s []float64
	for _, v := range r.Column(j) {
		if !math.IsNaN(v) {
			s = append(s, v)
		}
	}
	if len(s) == 0 {
		return math.NaN(), math.NaN()
	}
	sort.Float64s(s)
	return quantileSorted(s, (1-level)/2), quantileSorted(s, (1+level)/2)
}

// replicateValue is a test replicate of statistic j, of one of four kinds
// by j: few distinct values (many ties), continuous, NaN in a third of the
// resamples, and — in half the statistics of the fourth kind — NaN in all
// (the others a constant).
func replicateValue(rng *rand.Rand, j int) float64 {
	switch j % 4 {
	case 0:
		return float64(rng.IntN(3)) / 2
	case 1:
		return rng.NormFloat64()
	case 2:
		v := rng.Float64()
		if rng.IntN(3) == 0 {
			return math.NaN()
		}
		return v
	default:
		if j%8 == 3 {
			return float64(j)
		}
		return math.NaN()
	}
}

// TestIntervalsEqualPercentile: selection gives the intervals of a sort
// (sortedPercentile) to the last bit, through Intervals and through
// Replicates.Percentile, on replicates full of ties and NaNs, at several
// levels and replicate counts, and counts the finite ones as Finite.
func TestIntervalsEqualPercentile(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, b := range []int{1, 2, 3, 7, 100, 1000} {
		const k = 40
		reps := Replicates{Values: make([][]float64, b)}
		for i := range reps.Values {
			row := make([]float64, k)
			for j := range row {
				row[j] = replicateValue(rng, j)
			}
			reps.Values[i] = row
		}
		iv := reps.Intervals()
		for _, level := range []float64{0.5, 0.9, 0.95, 0.99, 1} {
			alo, ahi, an := reps.PercentileAll(level)
			for j := range k {
				if wlo, whi := sortedPercentile(reps, j, level); !same(alo[j], wlo) || !same(ahi[j], whi) || an[j] != reps.Finite(j) {
					t.Fatalf("B=%d level %v statistic %d: PercentileAll [%v, %v] of %d, want [%v, %v] of %d", b, level, j, alo[j], ahi[j], an[j], wlo, whi, reps.Finite(j))
				}
				wlo, whi := sortedPercentile(reps, j, level)
				lo, hi, n := iv.Percentile(j, level)
				if !same(lo, wlo) || !same(hi, whi) || n != reps.Finite(j) {
					t.Fatalf("B=%d level %v statistic %d: [%v, %v] of %d, want [%v, %v] of %d", b, level, j, lo, hi, n, wlo, whi, reps.Finite(j))
				}
				if plo, phi := reps.Percentile(j, level); !same(plo, wlo) || !same(phi, whi) {
					t.Fatalf("B=%d level %v statistic %d: Percentile [%v, %v], want [%v, %v]", b, level, j, plo, phi, wlo, whi)
				}
			}
		}
	}
}

func same(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

// TestTallyEqualsCounts: whole-number counts give the same rate bits through
// ClusterTally as through ClusterCounts; fractional ones are not packed.
func TestTallyEqualsCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const clusters = 80
	for range 200 {
		c := ClusterCounts{K: make([]float64, clusters), N: make([]float64, clusters)}
		for i := range clusters {
			c.N[i] = float64(rng.IntN(400))
			c.K[i] = float64(rng.IntN(int(c.N[i]) + 1))
		}
		tally, ok := c.Tally()
		if !ok {
			t.Fatal("whole counts not packed")
		}
		w := make([]int, clusters)
		for range clusters {
			w[rng.IntN(clusters)]++
		}
		nz := Nonzero(w)
		want, wok := c.RateOf(w, nz)
		got, gok := tally.RateOf(w, nz)
		if !same(got, want) || gok != wok {
			t.Fatalf("tally %v (%v), counts %v (%v)", got, gok, want, wok)
		}
	}
	if _, ok := (ClusterCounts{K: []float64{0.5}, N: []float64{1}}).Tally(); ok {
		t.Fatal("a fractional k was packed")
	}
	if r, ok := (ClusterTally{0, 0}).RateOf([]int{1}, []int{0}); ok || !math.IsNaN(r) {
		t.Fatal("an empty cell has a rate")
	}
}

// TestTallySetEqualsEach: the rates of a TallySet are each tally's own.
func TestTallySetEqualsEach(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const clusters = 30
	var ts []ClusterTally
	for j := range 17 {
		c := ClusterCounts{K: make([]float64, clusters), N: make([]float64, clusters)}
		for i := range clusters {
			if j%3 == 0 && i%2 == 0 {
				continue // a cell over some clusters only
			}
			c.N[i] = float64(rng.IntN(50))
			c.K[i] = float64(rng.IntN(int(c.N[i]) + 1))
		}
		tally, _ := c.Tally()
		ts = append(ts, tally)
	}
	ts = append(ts, make(ClusterTally, 2*clusters), ts[3], ts[0]) // no rows at all; cells twice
	set := NewTallySet(ts)
	acc, out := make([]int64, set.Scratch()), make([]float64, set.Len())
	for range 100 {
		w := make([]int, clusters)
		for range clusters {
			w[rng.IntN(clusters)]++
		}
		nz := Nonzero(w)
		set.Rates(w, nz, acc, out)
		for j, tally := range ts {
			want, _ := tally.RateOf(w, nz)
			if !same(out[j], want) {
				t.Fatalf("tally %d: %v, want %v", j, out[j], want)
			}
		}
	}
}

// TestTwoRatersInts: the table of integer labels is NewTwoRaters' of their
// decimal strings, categories and counts, on labels beyond −1…1 (whose
// string order differs from their numeric one).
func TestTwoRatersInts(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for range 50 {
		n := 1 + rng.IntN(300)
		a, b := make([]int, n), make([]int, n)
		sa, sb := make([]string, n), make([]string, n)
		for i := range a {
			a[i], b[i] = rng.IntN(13)-2, rng.IntN(4)-1
			sa[i], sb[i] = strconv.Itoa(a[i]), strconv.Itoa(b[i])
		}
		got, err := NewTwoRatersInts(a, b)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := NewTwoRaters(sa, sb)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("ints %+v\nstrings %+v", got, want)
		}
	}
	if _, err := NewTwoRatersInts(nil, nil); err != ErrEmpty {
		t.Fatal("no items counted")
	}
}

// TestClusterBootstrapInto: the replicates are ClusterBootstrap's, on the
// same seed.
func TestClusterBootstrapInto(t *testing.T) {
	c := ClusterCounts{K: []float64{1, 0, 3, 2, 5}, N: []float64{2, 1, 4, 2, 9}}
	want, err := ClusterBootstrap(5, 300, 11, func(w []int) ([]float64, bool) {
		r, ok := c.Rate(w)
		return []float64{r, float64(len(Nonzero(w)))}, ok
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ClusterBootstrapInto(5, 300, 2, 11, func(w, nz []int, out []float64) bool {
		r, ok := c.RateOf(w, nz)
		out[0], out[1] = r, float64(len(nz))
		return ok
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("ClusterBootstrapInto drew other replicates")
	}
}
