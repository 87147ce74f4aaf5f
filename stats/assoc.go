package stats

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// ChiSquareResult is a Pearson χ² test of independence.
type ChiSquareResult struct {
	Stat     float64
	DF       int
	P        float64
	Expected [][]float64 // of the table actually tested
	Yates    bool
	Notes    []string // e.g. rows or columns dropped for a zero total
	// DroppedRows and DroppedCols are the rows and columns left out for a
	// zero total (as Notes say), by their index in the table given.
	DroppedRows, DroppedCols []int
	// SmallExpected is how many of the tested table's expected counts
	// are below 5: where they are more than a fifth of them, the χ²
	// approximation of the statistic's distribution is poor (Cochran's
	// rule); scipy computes the same p without a word.
	SmallExpected int
}

// ChiSquare tests independence in an r×c table of counts: E_ij = R_i C_j/N,
// X² = Σ(O−E)²/E, df = (r−1)(c−1), p = χ²_df survival (SPEC F.7;
// scipy.stats.chi2_contingency). Rows and columns with a zero total are
// dropped with a note (scipy raises). Yates' correction (|O−E| − ½, not below
// 0) applies only when yates is set and the table is 2×2.
func ChiSquare(table [][]float64, yates bool) (ChiSquareResult, error) {
	if len(table) == 0 || len(table[0]) == 0 {
		return ChiSquareResult{}, ErrEmpty
	}
	c := len(table[0])
	for i, row := range table {
		if len(row) != c {
			return ChiSquareResult{}, fmt.Errorf("stats: χ² table row %d has %d columns, want %d", i, len(row), c)
		}
		for _, v := range row {
			if math.IsNaN(v) || v < 0 {
				return ChiSquareResult{}, fmt.Errorf("stats: χ² table row %d: counts must be non-negative numbers", i)
			}
		}
	}
	var res ChiSquareResult
	var rows []int
	for i, row := range table {
		if sum(row) == 0 {
			res.Notes = append(res.Notes, fmt.Sprintf("row %d dropped: zero total", i))
			res.DroppedRows = append(res.DroppedRows, i)
			continue
		}
		rows = append(rows, i)
	}
	var cols []int
	for j := range c {
		t := 0.0
		for _, row := range table {
			t += row[j]
		}
		if t == 0 {
			res.Notes = append(res.Notes, fmt.Sprintf("column %d dropped: zero total", j))
			res.DroppedCols = append(res.DroppedCols, j)
			continue
		}
		cols = append(cols, j)
	}
	if len(rows) < 2 || len(cols) < 2 {
		return res, fmt.Errorf("stats: χ² needs at least 2 non-empty rows and columns, have %d×%d", len(rows), len(cols))
	}
	R := make([]float64, len(rows))
	C := make([]float64, len(cols))
	N := 0.0
	for a, i := range rows {
		for b, j := range cols {
			R[a] += table[i][j]
			C[b] += table[i][j]
			N += table[i][j]
		}
	}
	res.DF = (len(rows) - 1) * (len(cols) - 1)
	res.Yates = yates && res.DF == 1
	res.Expected = make([][]float64, len(rows))
	for a, i := range rows {
		res.Expected[a] = make([]float64, len(cols))
		for b, j := range cols {
			e := R[a] * C[b] / N
			res.Expected[a][b] = e
			if e < 5 {
				res.SmallExpected++
			}
			d := math.Abs(table[i][j] - e)
			if res.Yates {
				d = math.Max(0, d-0.5)
			}
			res.Stat += d * d / e
		}
	}
	res.P = distuv.ChiSquared{K: float64(res.DF)}.Survival(res.Stat)
	return res, nil
}

func sum(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}

// logHypergeom is log P(X = a) for the 2×2 table [[a,b],[c,d]] with fixed margins.
func logHypergeom(a, b, c, d float64) float64 {
	lf := func(x float64) float64 { v, _ := math.Lgamma(x + 1); return v }
	n := a + b + c + d
	return lf(a+b) + lf(c+d) + lf(a+c) + lf(b+d) - lf(n) - lf(a) - lf(b) - lf(c) - lf(d)
}

// FisherExact is the two-sided Fisher exact test of the 2×2 table
// [[a, b], [c, d]]: the sum of the hypergeometric probabilities of all tables
// with the same margins that are no more likely than the observed one
// (relative tolerance 1e-7, as scipy.stats.fisher_exact). It also returns the
// sample odds ratio ad/(bc).
func FisherExact(a, b, c, d int) (oddsRatio, p float64, err error) {
	if a < 0 || b < 0 || c < 0 || d < 0 {
		return math.NaN(), math.NaN(), fmt.Errorf("stats: Fisher's test needs non-negative counts")
	}
	switch {
	case b*c == 0 && a*d == 0:
		oddsRatio = math.NaN()
	case b*c == 0:
		oddsRatio = math.Inf(1)
	default:
		oddsRatio = float64(a*d) / float64(b*c)
	}
	r1, c1, n := a+b, a+c, a+b+c+d
	if n == 0 || r1 == 0 || c1 == 0 || r1 == n || c1 == n {
		return oddsRatio, 1, nil
	}
	lo, hi := max(0, r1+c1-n), min(r1, c1)
	pobs := logHypergeom(float64(a), float64(b), float64(c), float64(d))
	for x := lo; x <= hi; x++ {
		lp := logHypergeom(float64(x), float64(r1-x), float64(c1-x), float64(n-r1-c1+x))
		if lp <= pobs+math.Log1p(1e-7) {
			p += math.Exp(lp)
		}
	}
	return oddsRatio, math.Min(1, p), nil
}

// McNemarResult is McNemar's test on the discordant counts b and c.
type McNemarResult struct {
	Stat float64 // exact: min(b, c); asymptotic: the χ² statistic
	P    float64
}

// McNemar tests the paired 2×2 table [[a, b], [c, d]] using its discordant
// cells. Exact: p = min(1, 2·Binom(min(b,c); b+c, ½)) (statsmodels
// mcnemar(exact=True)). Asymptotic: X² = (|b−c| − 1)²/(b+c) with continuity
// correction (or (b−c)²/(b+c) without), p = χ²₁ survival (statsmodels
// mcnemar(exact=False, correction=…)).
func McNemar(b, c int, exact, correction bool) (McNemarResult, error) {
	if b < 0 || c < 0 {
		return McNemarResult{}, fmt.Errorf("stats: McNemar needs non-negative counts")
	}
	n := b + c
	if exact {
		k := min(b, c)
		if n == 0 {
			return McNemarResult{Stat: 0, P: 1}, nil
		}
		p := 2 * distuv.Binomial{N: float64(n), P: 0.5}.CDF(float64(k))
		return McNemarResult{Stat: float64(k), P: math.Min(1, p)}, nil
	}
	if n == 0 {
		return McNemarResult{Stat: math.NaN(), P: math.NaN()}, fmt.Errorf("stats: McNemar's χ² is undefined without discordant pairs")
	}
	d := math.Abs(float64(b - c))
	if correction {
		d = d - 1
	}
	st := d * d / float64(n)
	return McNemarResult{Stat: st, P: distuv.ChiSquared{K: 1}.Survival(st)}, nil
}

// Correlation is a correlation coefficient with its two-sided p-value.
type Correlation struct {
	R, P   float64
	N      int
	Reason string // why R is NaN, if it is
}

// PearsonAt is Pearson's r (alone: no p-value, no check that the values
// are finite) of the pairs (x[i], y[i]) for i in idx, in that order, an
// index as often as it appears: the same number as Pearson of the gathered
// pairs, without gathering them — a bootstrap's resamples. NaN when fewer
// than 2 pairs or an input is constant.
func PearsonAt(x, y []float64, idx []int) float64 {
	n := len(idx)
	if n < 2 {
		return math.NaN()
	}
	var sx, sy float64
	for _, i := range idx {
		sx += x[i]
	}
	for _, i := range idx {
		sy += y[i]
	}
	mx, my := sx/float64(n), sy/float64(n)
	var sxy, sxx, syy float64
	for _, i := range idx {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return math.Max(-1, math.Min(1, sxy/math.Sqrt(sxx*syy)))
}

// Pearson computes r = Σ(x−x̄)(y−ȳ)/√(Σ(x−x̄)²Σ(y−ȳ)²) and the two-sided p from
// t = r√((n−2)/(1−r²)) with n − 2 degrees of freedom (SPEC F.4;
// scipy.stats.pearsonr). Constant input gives NaN with a reason.
func Pearson(x, y []float64) (Correlation, error) {
	if len(x) != len(y) {
		return Correlation{}, ErrLength
	}
	if err := checkFinite(x); err != nil {
		return Correlation{}, err
	}
	if err := checkFinite(y); err != nil {
		return Correlation{}, err
	}
	n := len(x)
	if n < 2 {
		return Correlation{R: math.NaN(), P: math.NaN(), N: n, Reason: "fewer than 2 pairs"}, nil
	}
	mx, _ := Mean(x)
	my, _ := Mean(y)
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return Correlation{R: math.NaN(), P: math.NaN(), N: n, Reason: "undefined: an input is constant"}, nil
	}
	r := sxy / math.Sqrt(sxx*syy)
	r = math.Max(-1, math.Min(1, r))
	res := Correlation{R: r, N: n}
	if n == 2 {
		res.P = 1
		return res, nil
	}
	if math.Abs(r) == 1 {
		res.P = 0
		return res, nil
	}
	// scipy: p = 2·B(|r|) under the null Beta(n/2−1, n/2−1) on [−1, 1], which
	// equals the two-sided t test with n − 2 degrees of freedom.
	ab := float64(n)/2 - 1
	res.P = 2 * distuv.Beta{Alpha: ab, Beta: ab}.Survival((math.Abs(r)+1)/2)
	return res, nil
}

// Ranks returns average ranks (1-based; ties get the mean of their ranks), as
// scipy.stats.rankdata(method="average").
func Ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && x[idx[j+1]] == x[idx[i]] {
			j++
		}
		avg := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = avg
		}
		i = j + 1
	}
	return r
}

// Spearman is Pearson's r on average ranks, with the two-sided p from the t
// distribution with n − 2 degrees of freedom (scipy.stats.spearmanr).
func Spearman(x, y []float64) (Correlation, error) {
	if len(x) != len(y) {
		return Correlation{}, ErrLength
	}
	if err := checkFinite(x); err != nil {
		return Correlation{}, err
	}
	if err := checkFinite(y); err != nil {
		return Correlation{}, err
	}
	c, err := Pearson(Ranks(x), Ranks(y))
	if err != nil || math.IsNaN(c.R) || c.N < 3 || math.Abs(c.R) == 1 {
		return c, err
	}
	df := float64(c.N - 2)
	t := c.R * math.Sqrt(df/((1-c.R)*(1+c.R)))
	c.P = 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(math.Abs(t))
	return c, nil
}
