package stats

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"testing"
)

// A small cluster design: 4 clusters with (k, n) successes/trials in group A
// and group B. SPEC B.9 asks for a check against full enumeration of the
// 4⁴ = 256 equally likely resamples.
var (
	kA = []float64{3, 0, 5, 2}
	nA = []float64{4, 2, 6, 5}
	kB = []float64{1, 1, 2, 0}
	nB = []float64{4, 3, 6, 2}
)

func rates(w []int) ([]float64, bool) {
	a := ClusterCounts{K: kA, N: nA}
	b := ClusterCounts{K: kB, N: nB}
	ra, okA := a.Rate(w)
	rb, okB := b.Rate(w)
	if !okA || !okB {
		return nil, false
	}
	return []float64{ra, rb, ra - rb, CohensH(ra, rb)}, true
}

// enumerate lists the statistic over all 256 ordered draws.
func enumerate() [][]float64 {
	var out [][]float64
	w := make([]int, 4)
	for code := range 256 {
		clear(w)
		c := code
		for range 4 {
			w[c%4]++
			c /= 4
		}
		v, ok := rates(w)
		if !ok {
			continue
		}
		out = append(out, v)
	}
	return out
}

func column(rows [][]float64, j int) []float64 {
	out := make([]float64, len(rows))
	for i, r := range rows {
		out[i] = r[j]
	}
	return out
}

func TestClusterBootstrapConvergesToEnumeration(t *testing.T) {
	exact := enumerate()
	reps, err := ClusterBootstrap(4, 200000, 42, rates)
	if err != nil {
		t.Fatal(err)
	}
	for j, name := range []string{"rate A", "rate B", "difference", "h"} {
		e := column(exact, j)
		mc := reps.Column(j)
		em, _ := Mean(e)
		mm, _ := Mean(mc)
		es, _ := SD(e, 0)
		ms, _ := SD(mc, 0)
		if math.Abs(em-mm) > 4*es/math.Sqrt(float64(len(mc))) {
			t.Errorf("%s: Monte Carlo mean %.5f, enumerated %.5f", name, mm, em)
		}
		if math.Abs(es-ms) > 0.01*es {
			t.Errorf("%s: Monte Carlo SD %.5f, enumerated %.5f", name, ms, es)
		}
		// Quantiles of a discrete distribution: compare the empirical CDF at
		// the enumerated quantile instead of the quantile itself.
		sort.Float64s(e)
		for _, q := range []float64{0.025, 0.5, 0.975} {
			x := quantileSorted(e, q)
			if f := ecdf(mc, x) - ecdf(e, x); math.Abs(f) > 0.01 {
				t.Errorf("%s: CDF at enumerated q%.3f differs by %.4f", name, q, f)
			}
		}
	}
}

func ecdf(x []float64, v float64) float64 {
	n := 0
	for _, a := range x {
		if a <= v+1e-12 {
			n++
		}
	}
	return float64(n) / float64(len(x))
}

func TestBootstrapDeterministicAcrossCores(t *testing.T) {
	run := func(procs int) Replicates {
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		r, err := ClusterBootstrap(4, 500, 7, rates)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a, b := run(1), run(4)
	for i := range a.Values {
		for j := range a.Values[i] {
			if a.Values[i][j] != b.Values[i][j] {
				t.Fatalf("resample %d differs between 1 and 4 cores", i)
			}
		}
	}
	c, _ := ClusterBootstrap(4, 500, 8, rates)
	same := true
	for i := range a.Values {
		same = same && a.Values[i][0] == c.Values[i][0]
	}
	if same {
		t.Fatal("a different seed gave identical resamples")
	}
}

func TestBootstrapRedrawsUndefined(t *testing.T) {
	// Group present only in cluster 0: resamples without it are redrawn.
	g := ClusterCounts{K: []float64{2, 0, 0}, N: []float64{4, 0, 0}}
	reps, err := ClusterBootstrap(3, 300, 1, func(w []int) ([]float64, bool) {
		r, ok := g.Rate(w)
		return []float64{r}, ok
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range reps.Column(0) {
		if v != 0.5 {
			t.Fatalf("got %v, want every replicate 0.5", v)
		}
	}
	_, err = ClusterBootstrap(2, 5, 1, func([]int) ([]float64, bool) { return nil, false })
	if err == nil {
		t.Fatal("never-defined statistic accepted")
	}
}

func TestPercentileAndPairedBootstrap(t *testing.T) {
	reps := Replicates{Values: [][]float64{{1}, {2}, {3}, {4}, {5}}}
	lo, hi := reps.Percentile(0, 0.5)
	if lo != 2 || hi != 4 {
		t.Fatalf("[%v, %v]", lo, hi)
	}
	a := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	b := []float64{0, 1, 2, 3, 4, 5, 6, 7}
	d, lo, hi, err := PairedMeanDiff(a, b, 200, 3, 0.95)
	if err != nil || d != 1 || lo != 1 || hi != 1 {
		t.Fatalf("constant paired difference: %v [%v, %v] %v", d, lo, hi, err)
	}
	if _, _, _, err := PairedMeanDiff(a, b[:3], 10, 1, 0.95); err != ErrLength {
		t.Fatal("length mismatch accepted")
	}
}

// shareNone is SPEC C.6's statistic: among errors (pred ≠ gold) on fallacious
// items, the share predicted "none".
func shareNone(gold, pred []string, perm []int) float64 {
	errs, none := 0, 0
	for i := range gold {
		p := pred[perm[i]]
		if gold[i] != "none" && p != gold[i] {
			errs++
			if p == "none" {
				none++
			}
		}
	}
	if errs == 0 {
		return math.Inf(-1) // counts as not extreme
	}
	return float64(none) / float64(errs)
}

func TestPermutationExactEnumeration(t *testing.T) {
	gold := []string{"a", "b", "a", "none", "b", "none", "a", "b"}
	pred := []string{"none", "none", "a", "none", "a", "b", "none", "b"}
	stat := func(perm []int) float64 { return shareNone(gold, pred, perm) }
	exact, err := PermutationTest(8, 0, 50000, 1, stat)
	if err != nil {
		t.Fatal(err)
	}
	if !exact.Exact || exact.Total != 40320 {
		t.Fatalf("not enumerated: %+v", exact)
	}
	// Independent count: every permutation by recursion.
	count := 0
	perm := make([]int, 8)
	used := make([]bool, 8)
	var rec func(i int)
	rec = func(i int) {
		if i == 8 {
			if stat(perm) >= exact.Observed-1e-12 {
				count++
			}
			return
		}
		for v := range 8 {
			if !used[v] {
				used[v], perm[i] = true, v
				rec(i + 1)
				used[v] = false
			}
		}
	}
	rec(0)
	if exact.Count != count {
		t.Fatalf("Heap enumeration counted %d, recursion %d", exact.Count, count)
	}
	mc, err := PermutationTest(8, 20000, 100, 9, stat)
	if err != nil || mc.Exact {
		t.Fatalf("%+v %v", mc, err)
	}
	if math.Abs(mc.P-exact.P) > 0.01 {
		t.Fatalf("Monte Carlo p %.4f vs exact %.4f", mc.P, exact.P)
	}
	if want := float64(1+mc.Count) / float64(1+20000); mc.P != want {
		t.Fatalf("p = (1+#≥)/(1+B) not used: %v vs %v", mc.P, want)
	}
}

// TestRateOfEqualsRate: the rate over the drawn clusters only is Rate to the
// last bit, on random counts and weights.
func TestRateOfEqualsRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 500 {
		n := 1 + rng.IntN(100)
		c := ClusterCounts{K: make([]float64, n), N: make([]float64, n)}
		w := make([]int, n)
		for i := range n {
			c.N[i] = float64(rng.IntN(40))
			c.K[i] = float64(rng.IntN(int(c.N[i])+1)) + 0.5*float64(rng.IntN(2))
		}
		for range n {
			w[rng.IntN(n)]++
		}
		a, okA := c.Rate(w)
		b, okB := c.RateOf(w, Nonzero(w))
		if okA != okB || (okA && a != b) {
			t.Fatalf("Rate %v %v, RateOf %v %v", a, okA, b, okB)
		}
	}
}
