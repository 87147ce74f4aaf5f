package stats

import (
	"math"
	"slices"
)

// Intervals computes percentile intervals of many statistics of one
// Replicates, one after another: the replicates are laid out by statistic
// once (a blocked transpose), and each interval is found by selection in a
// buffer reused across calls, rather than by sorting a fresh copy. The
// results equal Percentile's to the last bit. Not safe for concurrent use.
type Intervals struct {
	b    int
	cols []float64 // statistic j's B replicates at j·B … (j+1)·B
	buf  []float64
}

// transposeBlock is how many replicates a transpose step copies per
// statistic: enough to use each cache line of a row several times.
const transposeBlock = 64

// Intervals readies r for percentile intervals of all its statistics.
func (r Replicates) Intervals() *Intervals {
	b := len(r.Values)
	k := 0
	if b > 0 {
		k = len(r.Values[0])
	}
	cols := make([]float64, b*k)
	for b0 := 0; b0 < b; b0 += transposeBlock {
		rows := r.Values[b0:min(b0+transposeBlock, b)]
		for j := range k {
			col := cols[j*b+b0:]
			for i, row := range rows {
				col[i] = row[j]
			}
		}
	}
	return &Intervals{b: b, cols: cols, buf: make([]float64, 0, b)}
}

// Percentile is Replicates.Percentile of statistic j, with finite the
// number of its replicates that are defined (Replicates.Finite).
func (iv *Intervals) Percentile(j int, level float64) (lo, hi float64, finite int) {
	s := iv.buf[:0]
	for _, v := range iv.cols[j*iv.b : (j+1)*iv.b] {
		if !math.IsNaN(v) {
			s = append(s, v)
		}
	}
	lo, hi = percentileInterval(s, level)
	return lo, hi, len(s)
}

// percentileInterval is the (1−level)/2 and (1+level)/2 quantiles of s,
// which holds no NaN (NaN, NaN when empty); s is reordered.
func percentileInterval(s []float64, level float64) (lo, hi float64) {
	if len(s) == 0 {
		return math.NaN(), math.NaN()
	}
	return quantileSelect(s, (1-level)/2), quantileSelect(s, (1+level)/2)
}

// quantileSelect is quantileSorted(sorted(s), q) without sorting: the two
// order statistics it interpolates are found by selection (s is reordered;
// it must hold no NaN).
func quantileSelect(s []float64, q float64) float64 {
	h := float64(len(s)-1) * q
	lo := math.Floor(h)
	i := int(lo)
	if i >= len(s)-1 {
		return slices.Max(s)
	}
	selectNth(s, i)
	return lerp(s[i], slices.Min(s[i+1:]), h-lo)
}

// selectNth reorders s so that s[k] holds the value sorting would put there,
// with nothing greater before it and nothing smaller after it. It is
// quickselect with a three-way partition, so that the many ties of bootstrap
// rates cost nothing. Written here because neither the standard library nor
// gonum offers selection on a float64 slice.
func selectNth(s []float64, k int) {
	lo, hi := 0, len(s)
	for hi-lo > 1 {
		a, b, c := s[lo], s[lo+(hi-lo)/2], s[hi-1]
		p := max(min(a, b), min(max(a, b), c)) // median of three
		lt, i, gt := lo, lo, hi
		for i < gt {
			switch v := s[i]; {
			case v < p:
				s[lt], s[i] = v, s[lt]
				lt++
				i++
			case v > p:
				gt--
				s[i], s[gt] = s[gt], v
			default:
				i++
			}
		}
		switch {
		case k < lt:
			hi = lt
		case k >= gt:
			lo = gt
		default:
			return
		}
	}
}

// PercentileAll is Percentile of every statistic at one level, computed 64
// statistics at a time through a buffer of 64 × B values: the results equal
// Intervals' to the last bit without its copy of all the replicates, so a
// caller that drops r afterwards holds only the intervals.
func (r Replicates) PercentileAll(level float64) (lo, hi []float64, finite []int) {
	b := len(r.Values)
	k := 0
	if b > 0 {
		k = len(r.Values[0])
	}
	lo, hi, finite = make([]float64, k), make([]float64, k), make([]int, k)
	cols := make([]float64, transposeBlock*b)
	for j0 := 0; j0 < k; j0 += transposeBlock {
		n := min(transposeBlock, k-j0)
		for i, row := range r.Values {
			for j, v := range row[j0 : j0+n] {
				cols[j*b+i] = v
			}
		}
		for j := range n {
			s := cols[j*b : j*b]
			for _, v := range cols[j*b : (j+1)*b] {
				if !math.IsNaN(v) {
					s = append(s, v)
				}
			}
			lo[j0+j], hi[j0+j] = percentileInterval(s, level)
			finite[j0+j] = len(s)
		}
	}
	return lo, hi, finite
}
