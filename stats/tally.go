package stats

import (
	"encoding/binary"
	"math"
)

// ClusterTally is ClusterCounts whose k and n are whole numbers, packed for
// the bootstrap's inner loop: cluster i's k at 2i and n at 2i+1, as integers.
// Whole numbers add up exactly in float64 in any order (below 2^53), so its
// rates equal ClusterCounts.RateOf's to the last bit, at a fraction of the
// cost: integer sums carry no floating-point latency from one term to the
// next, and the counts take a quarter of the memory.
type ClusterTally []int32

// Tally packs c when every k and n is a whole number small enough that
// every weighted sum of a resample stays exact; ok is false otherwise (a
// mean of fractional values, say), and c's own RateOf is to be used.
func (c ClusterCounts) Tally() (t ClusterTally, ok bool) {
	t = make(ClusterTally, 2*len(c.N))
	var total float64
	for i := range c.N {
		k, n := c.K[i], c.N[i]
		if k != math.Trunc(k) || n != math.Trunc(n) || k < math.MinInt32 || k > math.MaxInt32 || n < 0 || n > math.MaxInt32 {
			return nil, false
		}
		total += math.Abs(k) + n
		t[2*i], t[2*i+1] = int32(k), int32(n)
	}
	// A resample weighs each cluster at most len(c.N) times.
	if total*float64(len(c.N)) >= 1<<53 {
		return nil, false
	}
	return t, true
}

// RateOf is ClusterCounts.RateOf of the counts t packs.
func (t ClusterTally) RateOf(w, nz []int) (float64, bool) {
	var k, n int64
	for _, i := range nz {
		wi := int64(w[i])
		k += wi * int64(t[2*i])
		n += wi * int64(t[2*i+1])
	}
	if n == 0 {
		return math.NaN(), false
	}
	return float64(k) / float64(n), true
}

// TallySet holds many ClusterTallies laid out cluster by cluster, so that
// one resample's rates of all of them are summed in one pass over the drawn
// clusters, each a contiguous run of counts (a dense loop with no
// indirection), rather than one pass per tally. A column of counts that
// several tallies share (the same rows' n under several outcomes, or the
// same cell registered twice) is summed once.
type TallySet struct {
	k, n      []int   // tally t's k and n are columns k[t] and n[t]
	cols      int     // distinct columns
	byCluster []int32 // cluster i's count in column c at i·cols + c
}

// NewTallySet lays out ts, which must all be over the same clusters.
func NewTallySet(ts []ClusterTally) TallySet {
	s := TallySet{k: make([]int, len(ts)), n: make([]int, len(ts))}
	if len(ts) == 0 {
		return s
	}
	clusters := len(ts[0]) / 2
	var cols [][]int32
	seen := map[string]int{}
	column := func(t ClusterTally, off int) int {
		col := make([]int32, clusters)
		key := make([]byte, 0, 4*clusters)
		for i := range col {
			col[i] = t[2*i+off]
			key = binary.LittleEndian.AppendUint32(key, uint32(col[i]))
		}
		if c, ok := seen[string(key)]; ok {
			return c
		}
		seen[string(key)] = len(cols)
		cols = append(cols, col)
		return len(cols) - 1
	}
	for t, tally := range ts {
		s.k[t], s.n[t] = column(tally, 0), column(tally, 1)
	}
	s.cols = len(cols)
	s.byCluster = make([]int32, clusters*s.cols)
	for c, col := range cols {
		for i, v := range col {
			s.byCluster[i*s.cols+c] = v
		}
	}
	return s
}

// Len is how many tallies s holds.
func (s TallySet) Len() int { return len(s.k) }

// Scratch is the length of the scratch Rates needs.
func (s TallySet) Scratch() int { return s.cols }

// Rates writes tally t's ClusterTally.RateOf(w, nz) to out[t] (NaN where
// the resample holds none of its rows); acc is scratch of at least Scratch.
func (s TallySet) Rates(w, nz []int, acc []int64, out []float64) {
	acc = acc[:s.cols]
	clear(acc)
	for _, i := range nz {
		wi := int64(w[i])
		row := s.byCluster[i*s.cols : (i+1)*s.cols]
		a := acc[:len(row)]
		for j, v := range row {
			a[j] += wi * int64(v)
		}
	}
	for t, kc := range s.k {
		k, n := acc[kc], acc[s.n[t]]
		if n == 0 {
			out[t] = math.NaN()
			continue
		}
		out[t] = float64(k) / float64(n)
	}
}
