// Package compare compares arms — runs, or models inside a run — of one
// benchmark on the items they share: each arm's estimate, the paired
// difference with a cluster bootstrap interval, a paired test (McNemar's
// exact test and its mid-p for a binary outcome per item; a sign-flip
// permutation test over clusters otherwise), the effect size, and for three
// or more arms every pair with Holm and Benjamini–Hochberg adjusted
// p-values and a verdict at the chosen level. A Task gives its arms'
// per-item outcomes (bench.Outcomes); this package does no I/O.
package compare

import (
	"errors"
	"fmt"
	"math"

	"github.com/fallacylab/fallacylab/stats"
)

// Arm is one side of a comparison: a run, or one model inside a run.
type Arm struct {
	// Label names it in reports: "run 3", "run 3:openai:gpt-4.1".
	Label string
	// Metrics are the benchmark's headline metrics, item by item.
	Metrics []Metric
}

// Metric is one headline metric, as the outcomes of the items it averages.
type Metric struct {
	Name string
	// Binary: each item's outcome is 0 or 1 (a rate; McNemar's test and
	// Cohen's h apply).
	Binary bool
	// Unit names the cluster items are resampled by ("text", "claim"):
	// items of one cluster move together in the bootstrap and the
	// permutation test.
	Unit  string
	Items []Item
	// LowerIsBetter: a smaller value is the better one (a false-positive
	// rate). False also where neither is (a refusal rate): what an export
	// says of the metric.
	LowerIsBetter bool
}

// Item is one item's outcome: its id (the same item in every arm), its
// cluster, and its value.
type Item struct {
	ID, Cluster string
	Value       float64
}

// Options are the comparison's settings.
type Options struct {
	Alpha     float64 // the level of the verdicts (default 0.05)
	Resamples int     // cluster bootstrap resamples (default 2000)
	Seed      uint64
	Level     float64 // interval level (default 0.95)
	// ExactClusters: up to this many clusters the sign-flip test
	// enumerates every flip (default 16); Flips are drawn beyond it
	// (default 10000).
	ExactClusters, Flips int
}

func (o *Options) defaults() {
	if o.Alpha <= 0 {
		o.Alpha = 0.05
	}
	if o.Resamples <= 0 {
		o.Resamples = 2000
	}
	if o.Level <= 0 {
		o.Level = 0.95
	}
	if o.ExactClusters <= 0 {
		o.ExactClusters = 16
	}
	if o.Flips <= 0 {
		o.Flips = 10000
	}
}

// Pair is the comparison of arms A and B on one metric.
type Pair struct {
	Metric, A, B string
	Binary       bool
	Unit         string
	// NA and NB are the items each arm has; Shared those both have, in
	// Clusters clusters.
	NA, NB, Shared, Clusters int
	// EstA, EstB are each arm's mean over the shared items, Diff = EstA −
	// EstB, each with its cluster bootstrap percentile interval.
	EstA, EstB, Diff   float64
	LoA, HiA, LoB, HiB float64
	DiffLo, DiffHi     float64
	H                  float64 // Cohen's h (binary metrics; NaN otherwise)
	Test               string  // "McNemar exact" or "sign-flip"
	P, MidP            float64 // MidP: McNemar's mid-p (NaN otherwise)
	// MinP is the smallest p the test could give on these items, were
	// every difference on one side: 2·0.5^n for McNemar's exact test on n
	// discordant items, 2^(1−k) for the exact sign-flip over k clusters
	// whose difference is not 0 (1/(flips) drawn at random). At or above
	// the level, no outcome of these items could show a difference: the
	// verdict says so rather than "no difference shown".
	MinP float64
	// Informative is what MinP rests on: the discordant items (McNemar)
	// or the clusters whose difference is not 0 (sign-flip).
	Informative int
	Discordant  [2]int // McNemar: items only A got (1), only B
	PHolm, PBH  float64
	Family      int // the pairs Holm and BH correct over (this metric's)
	Verdict     string
}

// ErrNoSharedItems is a comparison of arms that share no item.
var ErrNoSharedItems = errors.New("the arms share no item")

// Compare compares every pair of arms on each metric they all have.
func Compare(arms []Arm, o Options) ([]Pair, error) {
	o.defaults()
	if len(arms) < 2 {
		return nil, fmt.Errorf("compare needs two arms or more, not %d", len(arms))
	}
	var out []Pair
	for _, m := range arms[0].Metrics {
		var family []Pair
		for i := range arms {
			for j := i + 1; j < len(arms); j++ {
				a, okA := metricOf(arms[i], m.Name)
				b, okB := metricOf(arms[j], m.Name)
				if !okA || !okB {
					continue
				}
				p, err := pair(arms[i].Label, arms[j].Label, a, b, o)
				if err != nil {
					return nil, fmt.Errorf("%s, %s against %s: %w", m.Name, arms[i].Label, arms[j].Label, err)
				}
				family = append(family, p)
			}
		}
		adjust(family, o.Alpha)
		out = append(out, family...)
	}
	return out, nil
}

func metricOf(a Arm, name string) (Metric, bool) {
	for _, m := range a.Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// pair compares two arms' outcomes of one metric on their shared items.
func pair(la, lb string, a, b Metric, o Options) (Pair, error) {
	p := Pair{Metric: a.Name, A: la, B: lb, Binary: a.Binary && b.Binary, Unit: a.Unit, NA: len(a.Items), NB: len(b.Items), H: math.NaN(), MidP: math.NaN()}
	byID := map[string]Item{}
	for _, it := range b.Items {
		byID[it.ID] = it
	}
	clusterOf := map[string]int{}
	var clusters [][2][]float64 // per cluster: A's and B's values
	for _, x := range a.Items {
		y, ok := byID[x.ID]
		if !ok {
			continue
		}
		c, seen := clusterOf[x.Cluster]
		if !seen {
			c = len(clusters)
			clusterOf[x.Cluster] = c
			clusters = append(clusters, [2][]float64{})
		}
		clusters[c][0] = append(clusters[c][0], x.Value)
		clusters[c][1] = append(clusters[c][1], y.Value)
		p.Shared++
		if p.Binary && x.Value != y.Value {
			if x.Value > y.Value {
				p.Discordant[0]++
			} else {
				p.Discordant[1]++
			}
		}
	}
	if p.Shared == 0 {
		return p, ErrNoSharedItems
	}
	p.Clusters = len(clusters)
	means := func(w []int) []float64 {
		var sa, sb, n float64
		for c, cl := range clusters {
			k := 1.0
			if w != nil {
				k = float64(w[c])
			}
			for i := range cl[0] {
				sa, sb, n = sa+k*cl[0][i], sb+k*cl[1][i], n+k
			}
		}
		return []float64{sa / n, sb / n, (sa - sb) / n}
	}
	est := means(nil)
	p.EstA, p.EstB, p.Diff = est[0], est[1], est[2]
	reps, err := stats.ClusterBootstrap(len(clusters), o.Resamples, o.Seed, func(w []int) ([]float64, bool) { return means(w), true })
	if err != nil {
		return p, err
	}
	p.LoA, p.HiA = reps.Percentile(0, o.Level)
	p.LoB, p.HiB = reps.Percentile(1, o.Level)
	p.DiffLo, p.DiffHi = reps.Percentile(2, o.Level)
	if p.Binary {
		p.H = stats.CohensH(p.EstA, p.EstB)
	}
	if p.Binary && p.Clusters == p.Shared {
		// One item per cluster: the pairs are independent. Each arm's
		// rate has Wilson's interval, as a run's report and EstimateOf
		// give it (the bootstrap's is a point at 0 and 1); the
		// difference keeps the paired bootstrap's.
		for i, lohi := range [2][2]*float64{{&p.LoA, &p.HiA}, {&p.LoB, &p.HiB}} {
			w, err := stats.Prop(int(math.Round([]float64{p.EstA, p.EstB}[i]*float64(p.Shared))), p.Shared, o.Level, stats.Wilson)
			if err != nil {
				return p, err
			}
			*lohi[0], *lohi[1] = w.Lo, w.Hi
		}
		m, err := stats.McNemar(p.Discordant[0], p.Discordant[1], true, false)
		if err != nil {
			return p, err
		}
		p.Test, p.P, p.MidP = "McNemar exact", m.P, stats.McNemarMidP(p.Discordant[0], p.Discordant[1])
		p.Informative = p.Discordant[0] + p.Discordant[1]
		p.MinP = math.Min(1, 2*math.Pow(0.5, float64(p.Informative)))
		return p, nil
	}
	d := make([]float64, len(clusters))
	for c, cl := range clusters {
		for i := range cl[0] {
			d[c] += cl[0][i] - cl[1][i]
		}
		d[c] /= float64(len(cl[0]))
	}
	sf, err := stats.SignFlip(d, o.Flips, o.Seed, o.ExactClusters)
	if err != nil {
		return p, err
	}
	p.Test, p.P = "sign-flip over "+a.Unit+"s", sf.P
	for _, v := range d {
		if v != 0 {
			p.Informative++
		}
	}
	// Flipping a cluster whose difference is 0 changes nothing: of the
	// 2^k distinct flips of the others, the observed one and its mirror
	// are the most extreme there can be.
	p.MinP = math.Min(1, math.Pow(2, float64(1-p.Informative)))
	if !sf.Exact {
		p.Test += fmt.Sprintf(" (%d random flips)", sf.B)
		p.MinP = math.Max(p.MinP, 1/float64(sf.B))
	}
	return p, nil
}

// adjust sets the family's Holm and BH p-values and each pair's verdict.
func adjust(family []Pair, alpha float64) {
	ps := make([]float64, len(family))
	for i, p := range family {
		ps[i] = p.P
	}
	holm, bh := stats.Holm(ps), stats.BenjaminiHochberg(ps)
	for i := range family {
		p := &family[i]
		p.PHolm, p.PBH, p.Family = holm[i], bh[i], len(family)
		p.Verdict = verdict(*p, alpha)
	}
}

// verdict says what may be concluded of a pair at alpha (Holm-adjusted
// when the family has several pairs).
func verdict(p Pair, alpha float64) string {
	padj, how := p.P, ""
	if p.Family > 1 {
		padj, how = p.PHolm, "Holm-adjusted "
	}
	if p.Informative == 0 {
		if p.Test == "McNemar exact" {
			return fmt.Sprintf("no difference: the arms agree on every %s (p = %.3g)", unitOf(p), p.P)
		}
		return fmt.Sprintf("no difference: each %s's mean difference is 0 (p = %.3g)", unitOf(p), p.P)
	}
	if padj >= alpha && p.MinP >= alpha {
		return fmt.Sprintf("too few to show a difference at α = %g: %s, where the smallest p the test can give is %.3g (%sp = %.3g)",
			alpha, informative(p), p.MinP, how, padj)
	}
	if padj >= alpha {
		return fmt.Sprintf("no difference shown at α = %g (%sp = %.3g)", alpha, how, padj)
	}
	hi, lo := "A", "B"
	if p.Diff < 0 {
		hi, lo = lo, hi
	}
	return fmt.Sprintf("%s is higher than %s at α = %g (%sp = %.3g)", hi, lo, alpha, how, padj)
}

// informative says what a pair's smallest possible p rests on: "3 items
// differ", "5 texts with a difference".
func informative(p Pair) string {
	unit := unitOf(p)
	if p.Test == "McNemar exact" {
		if p.Informative == 1 {
			return "1 " + unit + " differs"
		}
		return fmt.Sprintf("%d %ss differ", p.Informative, unit)
	}
	if p.Informative == 1 {
		return "1 " + unit + " with a difference"
	}
	return fmt.Sprintf("%d %ss with a difference", p.Informative, unit)
}

// unitOf is the name of a pair's cluster ("item" where the metric names none).
func unitOf(p Pair) string {
	if p.Unit == "" {
		return "item"
	}
	return p.Unit
}
