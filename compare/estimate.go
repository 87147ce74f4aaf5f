package compare

import (
	"cmp"
	"fmt"

	"gonum.org/v1/gonum/stat"

	"github.com/fallacylab/fallacylab/stats"
)

// Estimate is one arm's figure on one metric: the mean of its items'
// outcomes with a percentile cluster bootstrap interval — Wilson's for a
// rate of items each its own cluster — and the bootstrap standard error
// (the replicates' standard deviation).
type Estimate struct {
	Metric string
	Binary bool
	Unit   string
	// N is the items the mean is over, in Clusters clusters.
	N, Clusters      int
	Mean, Lo, Hi, SE float64
	Level            float64
	Resamples        int
	Seed             uint64
	// Interval says how Lo and Hi were found (intervalMethod).
	Interval string
}

// Wilson reports whether the interval is Wilson's: the estimate is a
// rate of independent items (one per cluster), whose percentile bootstrap
// collapses to a point at 0 and at 1.
func (e Estimate) Wilson() bool { return e.Binary && e.Clusters == e.N }

// intervalMethod names how an estimate's interval is found, for a unit
// ("argument"; "" reads "item"): Wilson's for a rate of independent items,
// else the percentile cluster bootstrap over the unit.
func intervalMethod(wilson bool, unit string) string {
	unit = cmp.Or(unit, "item")
	if wilson {
		return "Wilson score interval (a rate of independent " + unit + "s)"
	}
	return "percentile cluster bootstrap over " + unit + "s"
}

// EstimateOf is m's mean over its items with its cluster bootstrap
// interval (Wilson's for a rate of independent items) and standard error,
// as Compare resamples an arm (o's Resamples, Seed and Level).
func EstimateOf(m Metric, o Options) (Estimate, error) {
	o.defaults()
	e := Estimate{Metric: m.Name, Binary: m.Binary, Unit: m.Unit, N: len(m.Items), Level: o.Level, Resamples: o.Resamples, Seed: o.Seed}
	if e.N == 0 {
		return e, fmt.Errorf("%s: no item", m.Name)
	}
	clusterOf := map[string]int{}
	var clusters [][]float64
	for _, it := range m.Items {
		c, seen := clusterOf[it.Cluster]
		if !seen {
			c = len(clusters)
			clusterOf[it.Cluster] = c
			clusters = append(clusters, nil)
		}
		clusters[c] = append(clusters[c], it.Value)
	}
	e.Clusters = len(clusters)
	mean := func(w []int) []float64 {
		var s, n float64
		for c, vs := range clusters {
			k := 1.0
			if w != nil {
				k = float64(w[c])
			}
			for _, v := range vs {
				s, n = s+k*v, n+k
			}
		}
		return []float64{s / n}
	}
	e.Mean = mean(nil)[0]
	reps, err := stats.ClusterBootstrap(len(clusters), o.Resamples, o.Seed, func(w []int) ([]float64, bool) { return mean(w), true })
	if err != nil {
		return e, fmt.Errorf("%s: %w", m.Name, err)
	}
	e.Lo, e.Hi = reps.Percentile(0, o.Level)
	e.SE = stat.StdDev(reps.Column(0), nil)
	if e.Wilson() {
		k := 0
		for _, it := range m.Items {
			if it.Value == 1 {
				k++
			}
		}
		p, err := stats.Prop(k, e.N, o.Level, stats.Wilson)
		if err != nil {
			return e, fmt.Errorf("%s: %w", m.Name, err)
		}
		e.Lo, e.Hi = p.Lo, p.Hi
	}
	e.Interval = intervalMethod(e.Wilson(), e.Unit)
	return e, nil
}
