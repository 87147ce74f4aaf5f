package stats

import (
	"fmt"
	"math"
	"testing"
)

func TestPropAgainstStatsmodels(t *testing.T) {
	if len(refs.Proportions) == 0 {
		t.Fatal("no fixtures")
	}
	for _, r := range refs.Proportions {
		p, err := Prop(r.K, r.N, r.Level, CIMethod(r.Method))
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%s %d/%d @%g", r.Method, r.K, r.N, r.Level)
		close9(t, name+" lo", p.Lo, float64(r.Lo))
		close9(t, name+" hi", p.Hi, float64(r.Hi))
	}
}

func TestWilsonPublishedAnchors(t *testing.T) {
	for _, c := range []struct {
		k, n   int
		lo, hi float64
	}{{7, 13, 29.1, 76.8}, {31, 40, 62.5, 87.7}} {
		p, _ := Prop(c.k, c.n, 0.95, Wilson)
		if math.Round(p.Lo*1000)/10 != c.lo || math.Round(p.Hi*1000)/10 != c.hi {
			t.Errorf("%d/%d: [%.1f, %.1f], published [%.1f, %.1f]", c.k, c.n, 100*p.Lo, 100*p.Hi, c.lo, c.hi)
		}
	}
}

func TestPropEdges(t *testing.T) {
	p, err := Prop(0, 0, 0.95, Wilson)
	if err != nil || !math.IsNaN(p.Estimate) || !math.IsNaN(p.Lo) {
		t.Fatalf("0/0: %+v %v", p, err)
	}
	for _, bad := range [][2]int{{3, 2}, {-1, 5}} {
		if _, err := Prop(bad[0], bad[1], 0.95, Wilson); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	if _, err := Prop(1, 2, 1.5, Wilson); err == nil {
		t.Error("level 1.5 accepted")
	}
	if _, err := Prop(1, 2, 0.95, "wald-ish"); err == nil {
		t.Error("unknown method accepted")
	}
}

func TestCohensH(t *testing.T) {
	for _, r := range refs.CohensH {
		close9(t, "h", CohensH(float64(r.P1), float64(r.P2)), float64(r.H))
	}
	d, lo, hi, err := DiffProp(30, 100, 20, 100, 0.95)
	if err != nil || math.Abs(d-0.1) > 1e-15 || !(lo < d && d < hi) {
		t.Fatalf("%v [%v, %v] %v", d, lo, hi, err)
	}
}

func TestDescriptivesAgainstNumpy(t *testing.T) {
	for _, r := range refs.Descriptives {
		x := fl(r.X)
		m, _ := Mean(x)
		close9(t, "mean", m, float64(r.Mean))
		sd0, _ := SD(x, 0)
		close9(t, "sd0", sd0, float64(r.Sd0))
		sd1, _ := SD(x, 1)
		close9(t, "sd1", sd1, float64(r.Sd1))
		for i, q := range r.Q {
			got, _ := Quantile(x, float64(q))
			close9(t, fmt.Sprintf("q%g n=%d", q, len(x)), got, float64(r.Quantiles[i]))
		}
		d, _ := Describe(x)
		want := fl(r.Describe)
		for i, got := range []float64{float64(d.Count), d.Mean, d.SD, d.Min, d.Q25, d.Q50, d.Q75, d.Max} {
			close9(t, fmt.Sprintf("describe[%d]", i), got, want[i])
		}
	}
	if _, err := Mean(nil); err != ErrEmpty {
		t.Error("empty mean")
	}
	if _, err := Quantile([]float64{1, math.NaN()}, 0.5); err != ErrNaN {
		t.Error("NaN accepted")
	}
}

// TestWilsonBoundsAtTheEdges: 0 of n has a lower bound of exactly 0 and n
// of n an upper bound of exactly 1 (rounding once printed 2.8e-17).
func TestWilsonBoundsAtTheEdges(t *testing.T) {
	for _, n := range []int{1, 3, 7, 10, 33, 100, 1000} {
		lo, _ := Prop(0, n, 0.95, Wilson)
		hi, _ := Prop(n, n, 0.95, Wilson)
		if lo.Lo != 0 || hi.Hi != 1 {
			t.Errorf("n = %d: 0/n lower %g, n/n upper %g", n, lo.Lo, hi.Hi)
		}
	}
}
