package compare

import (
	"fmt"
	"math"
	"testing"
)

// TestEstimateOf: an arm's estimate is the mean of its items, resampled
// as Compare resamples an arm (the same interval Compare gives that arm
// against another on the same items), and its bootstrap standard error
// is within Monte-Carlo error of the binomial one when every item is its
// own cluster; with clusters of correlated items it is wider.
func TestEstimateOf(t *testing.T) {
	var m, other, clustered Metric
	m.Name, m.Binary, m.Unit = "rate", true, "item"
	other, clustered = m, m
	for i := range 400 {
		id := fmt.Sprint(i)
		v := float64(i % 5 / 4) // one in five
		m.Items = append(m.Items, Item{ID: id, Cluster: id, Value: v})
		other.Items = append(other.Items, Item{ID: id, Cluster: id, Value: float64(i % 2)})
		// 40 clusters of 10 equal items: the effective sample is 40.
		c := fmt.Sprint(i / 10)
		clustered.Items = append(clustered.Items, Item{ID: id, Cluster: c, Value: float64(i / 10 % 5 / 4)})
	}
	o := Options{Resamples: 4000, Seed: 7}
	e, err := EstimateOf(m, o)
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := Compare([]Arm{{Label: "a", Metrics: []Metric{m}}, {Label: "b", Metrics: []Metric{other}}}, o)
	if err != nil {
		t.Fatal(err)
	}
	p := pairs[0]
	if e.Mean != 0.2 || e.N != 400 || e.Clusters != 400 || e.Lo != p.LoA || e.Hi != p.HiA {
		t.Fatalf("estimate %+v; Compare's arm %v [%v, %v]", e, p.EstA, p.LoA, p.HiA)
	}
	se := math.Sqrt(0.2 * 0.8 / 400)
	// The bootstrap SD of B replicates is within a few percent of the
	// truth: its own relative SE is about 1/sqrt(2B) ≈ 1.1 %.
	if math.Abs(e.SE-se)/se > 0.06 {
		t.Fatalf("bootstrap SE %v, binomial %v", e.SE, se)
	}
	c, err := EstimateOf(clustered, o)
	if err != nil {
		t.Fatal(err)
	}
	if want := math.Sqrt(0.2 * 0.8 / 40); c.Clusters != 40 || math.Abs(c.SE-want)/want > 0.06 {
		t.Fatalf("clustered SE %v over %d clusters, want about %v", c.SE, c.Clusters, want)
	}
	if _, err := EstimateOf(Metric{Name: "empty"}, o); err == nil {
		t.Fatal("an estimate of no item")
	}
}
