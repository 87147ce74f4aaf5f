package stats

import (
	"math"
	"sort"
)

func checkFinite(x []float64) error {
	if len(x) == 0 {
		return ErrEmpty
	}
	for _, v := range x {
		if math.IsNaN(v) {
			return ErrNaN
		}
	}
	return nil
}

// Mean is Σx/n (numpy.mean).
func Mean(x []float64) (float64, error) {
	if err := checkFinite(x); err != nil {
		return math.NaN(), err
	}
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x)), nil
}

// SD is the standard deviation √(Σ(x−x̄)²/(n−ddof)) (numpy.std(x, ddof=ddof)).
// It is NaN when n ≤ ddof.
func SD(x []float64, ddof int) (float64, error) {
	m, err := Mean(x)
	if err != nil {
		return math.NaN(), err
	}
	if len(x) <= ddof {
		return math.NaN(), nil
	}
	ss := 0.0
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return math.Sqrt(ss / float64(len(x)-ddof)), nil
}

// Quantile returns the q-quantile (0 ≤ q ≤ 1) with numpy's default "linear"
// method: the sorted value at position h = (n−1)q, interpolated linearly
// between ⌊h⌋ and ⌈h⌉ (numpy.quantile(x, q)).
func Quantile(x []float64, q float64) (float64, error) {
	if err := checkFinite(x); err != nil {
		return math.NaN(), err
	}
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	return quantileSorted(s, q), nil
}

func quantileSorted(s []float64, q float64) float64 {
	h := float64(len(s)-1) * q
	lo := math.Floor(h)
	i := int(lo)
	if i >= len(s)-1 {
		return s[len(s)-1]
	}
	return lerp(s[i], s[i+1], h-lo)
}

// lerp is numpy's _lerp: a + (b−a)·t, rewritten as b − (b−a)(1−t) when
// t ≥ 0.5.
func lerp(a, b, t float64) float64 {
	d := b - a
	if t >= 0.5 {
		return b - d*(1-t)
	}
	return a + d*t
}

// Summary is pandas' describe() of one column.
type Summary struct {
	Count                             int
	Mean, SD, Min, Q25, Q50, Q75, Max float64
}

// Describe returns count, mean, SD (ddof 1), min, quartiles (linear) and max,
// as pandas.Series.describe().
func Describe(x []float64) (Summary, error) {
	if err := checkFinite(x); err != nil {
		return Summary{}, err
	}
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	m, _ := Mean(s)
	sd, _ := SD(s, 1)
	return Summary{Count: len(s), Mean: m, SD: sd, Min: s[0], Q25: quantileSorted(s, 0.25), Q50: quantileSorted(s, 0.5),
		Q75: quantileSorted(s, 0.75), Max: s[len(s)-1]}, nil
}
