package compare

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/stats"
)

// TestEstimateOf: an arm's estimate is the mean of its items, resampled
// as Compare resamples an arm (the same interval Compare gives that arm
// against another on the same items) — but a rate of items each its own
// cluster has Wilson's interval, in Compare too (the bootstrap's is a
// point at 0 and 1) —
// and its bootstrap standard error is within Monte-Carlo error of the
// binomial one when every item is its own cluster; with clusters of
// correlated items it is wider.
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
	w, _ := stats.Prop(80, 400, 0.95, stats.Wilson)
	if e.Mean != 0.2 || e.N != 400 || e.Clusters != 400 || e.Lo != w.Lo || e.Hi != w.Hi || !strings.HasPrefix(e.Interval, "Wilson") {
		t.Fatalf("estimate %+v; Wilson's [%v, %v]", e, w.Lo, w.Hi)
	}
	// Compare gives the arm the same (its difference keeps the paired
	// bootstrap's interval).
	rates, err := Compare([]Arm{{Label: "a", Metrics: []Metric{m}}, {Label: "b", Metrics: []Metric{other}}}, o)
	if err != nil {
		t.Fatal(err)
	}
	if r := rates[0]; r.LoA != w.Lo || r.HiA != w.Hi || r.DiffLo >= r.Diff || r.DiffHi <= r.Diff {
		t.Fatalf("Compare's arm A %v [%v, %v], difference %v [%v, %v]; Wilson's [%v, %v]", r.EstA, r.LoA, r.HiA, r.Diff, r.DiffLo, r.DiffHi, w.Lo, w.Hi)
	}
	// Scores (not a rate): the interval Compare gives the arm.
	ms, os := m, other
	ms.Binary, os.Binary = false, false
	es, err := EstimateOf(ms, o)
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := Compare([]Arm{{Label: "a", Metrics: []Metric{ms}}, {Label: "b", Metrics: []Metric{os}}}, o)
	if err != nil {
		t.Fatal(err)
	}
	p := pairs[0]
	if es.Mean != 0.2 || es.Lo != p.LoA || es.Hi != p.HiA || es.Interval != "percentile cluster bootstrap over items" {
		t.Fatalf("estimate %+v; Compare's arm %v [%v, %v]", es, p.EstA, p.LoA, p.HiA)
	}
	// Four of four: Wilson's [0.5101, 1] (statsmodels' proportion_confint
	// (4, 4, method="wilson")), not the bootstrap's [1, 1].
	var all Metric
	all.Name, all.Binary, all.Unit = "rate", true, "item"
	for i := range 4 {
		all.Items = append(all.Items, Item{ID: fmt.Sprint(i), Cluster: fmt.Sprint(i), Value: 1})
	}
	if a, err := EstimateOf(all, o); err != nil || math.Abs(a.Lo-0.5101) > 1e-4 || a.Hi != 1 {
		t.Fatalf("4 of 4: %+v, %v", a, err)
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
	if !strings.HasPrefix(c.Interval, "percentile cluster bootstrap") {
		t.Errorf("a rate of 40 clusters of 10 items: %s, want the cluster bootstrap", c.Interval)
	}
	if want := math.Sqrt(0.2 * 0.8 / 40); c.Clusters != 40 || math.Abs(c.SE-want)/want > 0.06 {
		t.Fatalf("clustered SE %v over %d clusters, want about %v", c.SE, c.Clusters, want)
	}
	if _, err := EstimateOf(Metric{Name: "empty"}, o); err == nil {
		t.Fatal("an estimate of no item")
	}
}
