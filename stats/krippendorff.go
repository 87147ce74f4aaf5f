package stats

import (
	"fmt"
	"math"
	"sort"
)

// Level is the measurement level of Krippendorff's α.
type Level string

// Measurement levels.
const (
	Nominal  Level = "nominal"
	Ordinal  Level = "ordinal"
	Interval Level = "interval"
	Ratio    Level = "ratio"
)

// KrippendorffAlpha computes Krippendorff's α (Krippendorff 2011, "Computing
// Krippendorff's alpha-reliability"). units[u] holds the values coders gave
// unit u; NaN marks a missing value, and units with fewer than two values are
// dropped. With the coincidence matrix o_ck = Σ_u #pairs(c,k in u)/(m_u − 1),
// n_c = Σ_k o_ck and n = Σ_c n_c,
//
//	α = 1 − (n − 1) Σ_ck o_ck δ²_ck / Σ_ck n_c n_k δ²_ck
//
// with δ² = 1[c≠k] (nominal), (Σ_{g=c..k} n_g − (n_c+n_k)/2)² (ordinal),
// (c−k)² (interval) or ((c−k)/(c+k))² (ratio). For nominal data this is
// SPEC F.3. α is undefined (error) when only one value occurs.
func KrippendorffAlpha(units [][]float64, level Level) (float64, error) {
	idx := map[float64]int{}
	var vals []float64
	for _, u := range units {
		if countPresent(u) < 2 {
			continue
		}
		for _, v := range u {
			if !math.IsNaN(v) {
				if _, ok := idx[v]; !ok {
					idx[v] = 0
					vals = append(vals, v)
				}
			}
		}
	}
	if len(vals) == 0 {
		return math.NaN(), fmt.Errorf("stats: α needs a unit with at least two values: %w", ErrEmpty)
	}
	if len(vals) == 1 {
		return math.NaN(), fmt.Errorf("stats: α is undefined when only one value occurs")
	}
	sort.Float64s(vals)
	for i, v := range vals {
		idx[v] = i
	}
	V := len(vals)
	o := make([][]float64, V)
	for i := range o {
		o[i] = make([]float64, V)
	}
	for _, u := range units {
		m := countPresent(u)
		if m < 2 {
			continue
		}
		for i, a := range u {
			if math.IsNaN(a) {
				continue
			}
			for j, b := range u {
				if i == j || math.IsNaN(b) {
					continue
				}
				o[idx[a]][idx[b]] += 1 / float64(m-1)
			}
		}
	}
	nc := make([]float64, V)
	n := 0.0
	for c := range o {
		for k := range o[c] {
			nc[c] += o[c][k]
		}
		n += nc[c]
	}
	delta := func(c, k int) (float64, error) {
		switch level {
		case Nominal, "":
			if c == k {
				return 0, nil
			}
			return 1, nil
		case Ordinal:
			lo, hi := min(c, k), max(c, k)
			s := 0.0
			for g := lo; g <= hi; g++ {
				s += nc[g]
			}
			s -= (nc[c] + nc[k]) / 2
			return s * s, nil
		case Interval:
			d := vals[c] - vals[k]
			return d * d, nil
		case Ratio:
			if vals[c]+vals[k] == 0 {
				return 0, nil
			}
			d := (vals[c] - vals[k]) / (vals[c] + vals[k])
			return d * d, nil
		}
		return 0, fmt.Errorf("stats: unknown level %q", level)
	}
	var do, de float64
	for c := range V {
		for k := range V {
			d, err := delta(c, k)
			if err != nil {
				return math.NaN(), err
			}
			do += o[c][k] * d
			de += nc[c] * nc[k] * d
		}
	}
	if de == 0 {
		return math.NaN(), fmt.Errorf("stats: α is undefined: no expected disagreement")
	}
	return 1 - (n-1)*do/de, nil
}

func countPresent(u []float64) int {
	m := 0
	for _, v := range u {
		if !math.IsNaN(v) {
			m++
		}
	}
	return m
}
