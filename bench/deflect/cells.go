package deflect

import (
	"fmt"
	"math"
	"sync"

	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
)

// cells registers every proportion the report shows so that one cluster
// bootstrap over claims computes all of them on the same resamples (SPEC B.9),
// which also gives intervals to differences and Cohen's h between cells.
type cells struct {
	nClusters int
	counts    []stats.ClusterCounts
	tallies   []stats.ClusterTally // counts[i] packed, when whole numbers (nil otherwise)
	k, n      []float64
	clusters  []int // claims with rows, per cell
	// minClusters is the fewest claims a shown interval rests on; thin
	// counts the cells (and contrasts) shown without one; minEffective is
	// the fewest resamples behind a shown interval.
	minClusters  int
	resamples    int
	thin         int
	minEffective int
	contrasts    []contrast
	// lo, hi and finite are every statistic's interval and the finite
	// resamples it rests on (run).
	lo, hi []float64
	finite []int
	level  float64
}

type contrast struct {
	a, b int
	h    bool // Cohen's h instead of the difference
}

func newCells(nClusters int, level float64) *cells {
	return &cells{nClusters: nClusters, level: level, minEffective: math.MaxInt}
}

// add registers the mean of value over rows passing filter; value returns
// ok = false for rows where it is undefined (they are left out).
func (c *cells) add(rows []*Row, filter func(*Row) bool, value func(*Row) (float64, bool)) int {
	cc := stats.ClusterCounts{K: make([]float64, c.nClusters), N: make([]float64, c.nClusters)}
	var k, n float64
	for _, r := range rows {
		if filter != nil && !filter(r) {
			continue
		}
		v, ok := value(r)
		if !ok {
			continue
		}
		cc.K[r.Claim] += v
		cc.N[r.Claim]++
		k += v
		n++
	}
	return c.register(cc, k, n)
}

// addFields registers the mean of each consensus field over rows, as add
// with field(f) would, in one pass.
func (c *cells) addFields(rows []*Row, fields []int) []int {
	ccs := make([]stats.ClusterCounts, len(fields))
	k, n := make([]float64, len(fields)), make([]float64, len(fields))
	for j := range ccs {
		ccs[j] = stats.ClusterCounts{K: make([]float64, c.nClusters), N: make([]float64, c.nClusters)}
	}
	for _, r := range rows {
		for j, f := range fields {
			v := r.Cons[f]
			if math.IsNaN(v) {
				continue
			}
			ccs[j].K[r.Claim] += v
			ccs[j].N[r.Claim]++
			k[j] += v
			n[j]++
		}
	}
	idx := make([]int, len(fields))
	for j, cc := range ccs {
		idx[j] = c.register(cc, k[j], n[j])
	}
	return idx
}

// register adds a cell of counts cc, k of n in all.
func (c *cells) register(cc stats.ClusterCounts, k, n float64) int {
	used := 0
	for _, x := range cc.N {
		if x > 0 {
			used++
		}
	}
	tally, _ := cc.Tally()
	c.counts, c.tallies, c.clusters = append(c.counts, cc), append(c.tallies, tally), append(c.clusters, used)
	c.k, c.n = append(c.k, k), append(c.n, n)
	return len(c.counts) - 1
}

// field is a value function for a consensus field.
func field(f int) func(*Row) (float64, bool) { return func(r *Row) (float64, bool) { return r.has(f) } }

func (c *cells) addContrast(a, b int, h bool) int {
	c.contrasts = append(c.contrasts, contrast{a, b, h})
	return len(c.contrasts) - 1
}

// run draws the resamples and keeps every statistic's percentile interval
// (not the resamples). A cell with no rows in a resample is NaN there and
// skipped by its interval.
func (c *cells) run(B int, seed uint64) error {
	nc := len(c.counts)
	// Cells of whole counts are summed together, cluster by cluster; the
	// others (means of fractional values) one by one.
	var whole []stats.ClusterTally
	var wholeAt, fracAt []int
	for i, t := range c.tallies {
		if t != nil {
			whole, wholeAt = append(whole, t), append(wholeAt, i)
		} else {
			fracAt = append(fracAt, i)
		}
	}
	set := stats.NewTallySet(whole)
	scratch := sync.Pool{New: func() any { return &tallyScratch{make([]int64, set.Scratch()), make([]float64, set.Len())} }}
	var err error
	c.lo, c.hi, c.finite, err = stats.ClusterBootstrapIntervals(c.nClusters, B, nc+len(c.contrasts), seed, c.level, func(w, nz []int, out []float64) bool {
		s := scratch.Get().(*tallyScratch)
		defer scratch.Put(s)
		set.Rates(w, nz, s.acc, s.rates)
		for j, i := range wholeAt {
			out[i] = s.rates[j]
		}
		for _, i := range fracAt {
			v, ok := c.counts[i].RateOf(w, nz)
			if !ok {
				v = math.NaN()
			}
			out[i] = v
		}
		for i, ct := range c.contrasts {
			out[nc+i] = c.combine(ct, out[ct.a], out[ct.b])
		}
		return true
	})
	return err
}

// tallyScratch is one resample's working space.
type tallyScratch struct {
	acc   []int64
	rates []float64
}

func (c *cells) combine(ct contrast, a, b float64) float64 {
	if ct.h {
		return stats.CohensH(a, b)
	}
	return a - b
}

func (c *cells) est(i int) float64 {
	if c.n[i] == 0 {
		return math.NaN()
	}
	return c.k[i] / c.n[i]
}

// cell renders registered proportion i with its interval.
func (c *cells) cell(i int) report.Cell {
	if c.n[i] == 0 {
		return report.NA("no rows")
	}
	if c.clusters[i] < c.minClusters {
		c.thin++
		return wilsonCell(c.k[i], c.n[i], c.level, int(c.clusters[i]), c.minClusters)
	}
	lo, hi := c.interval(i)
	return report.PCI(c.est(i), lo, hi, int(c.n[i]))
}

// interval is the percentile interval of statistic j (a cell, or a
// contrast after the cells), keeping the fewest resamples behind a shown
// interval.
func (c *cells) interval(j int) (lo, hi float64) {
	lo, hi, n := c.lo[j], c.hi[j], c.finite[j]
	if n < c.minEffective {
		c.minEffective = n
	}
	return lo, hi
}

// contrastCell renders contrast i (a difference in percentage points, or h).
func (c *cells) contrastCell(i int) report.Cell {
	ct := c.contrasts[i]
	a, b := c.est(ct.a), c.est(ct.b)
	v := c.combine(ct, a, b)
	if c.clusters[ct.a] < c.minClusters || c.clusters[ct.b] < c.minClusters {
		c.thin++
		why := fmt.Sprintf("no interval: one side rests on fewer than %d claims (--min-clusters), too few for the claim bootstrap", c.minClusters)
		if ct.h {
			return noInterval(report.F(v, 3), why)
		}
		return noInterval(report.F(100*v, 1), why)
	}
	lo, hi := c.interval(len(c.counts) + i)
	if ct.h {
		return report.NCI(v, lo, hi, 3)
	}
	return report.NCI(100*v, 100*lo, 100*hi, 1)
}
