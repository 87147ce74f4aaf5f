package stats

import (
	"fmt"
	"math"
)

// KappaSE is Cohen's κ of a k×k table of counts (rows: rater A's
// category, columns: rater B's) with its asymptotic standard error under
// the alternative (Fleiss, Cohen and Everitt 1969; statsmodels'
// cohens_kappa std_kappa):
//
//	var κ = [Σ_i p_ii (1 − (p_i· + p_·i)(1 − κ))² + (1 − κ)² Σ_{i≠j} p_ij (p_·i + p_j·)²
//	         − (κ − p_e(1 − κ))²] / ((1 − p_e)² n).
//
// Written here because gonum has no agreement statistics.
func KappaSE(table [][]float64) (kappa, se float64, err error) {
	k := len(table)
	var n float64
	for _, row := range table {
		if len(row) != k {
			return math.NaN(), math.NaN(), fmt.Errorf("stats: kappa table is not square")
		}
		for _, v := range row {
			if v < 0 {
				return math.NaN(), math.NaN(), fmt.Errorf("stats: kappa table has a negative count")
			}
			n += v
		}
	}
	if n == 0 {
		return math.NaN(), math.NaN(), fmt.Errorf("stats: kappa of an empty table")
	}
	row, col := make([]float64, k), make([]float64, k)
	var po, pe float64
	for i := range table {
		for j, v := range table[i] {
			row[i] += v / n
			col[j] += v / n
		}
		po += table[i][i] / n
	}
	for i := range row {
		pe += row[i] * col[i]
	}
	if pe >= 1-1e-15 {
		return math.NaN(), math.NaN(), nil
	}
	kappa = (po - pe) / (1 - pe)
	var a, b float64
	for i := range table {
		for j, v := range table[i] {
			p := v / n
			if i == j {
				d := 1 - (row[i]+col[i])*(1-kappa)
				a += p * d * d
				continue
			}
			s := col[i] + row[j]
			b += p * s * s
		}
	}
	c := kappa - pe*(1-kappa)
	v := (a + (1-kappa)*(1-kappa)*b - c*c) / ((1 - pe) * (1 - pe) * n)
	return kappa, math.Sqrt(math.Max(0, v)), nil
}
