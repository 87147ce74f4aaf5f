package stats

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// LogitFit is a fitted logistic regression. Slices are indexed by column of X.
type LogitFit struct {
	Coef      []float64
	SE        []float64 // √diag((XᵀWX)⁻¹)
	Z         []float64 // Coef/SE
	PWald     []float64 // two-sided normal p of Z
	OddsRatio []float64 // exp(Coef)
	PLR       []float64 // Firth: penalised likelihood-ratio p per term (nil otherwise)
	LogLik    float64   // log-likelihood (penalised for Firth: l*)
	Iter      int
	Firth     bool
}

// ErrSeparation is returned by Logistic when the data are (quasi-)separated
// and the maximum-likelihood estimate does not exist; use Firth.
var ErrSeparation = errors.New("stats: perfect separation: the ML estimate does not exist (use Firth regression)")

type design struct {
	X      *mat.Dense
	y      []float64
	n, p   int
	fitted []bool // which coefficients are free (the rest stay fixed)
}

func newDesign(X [][]float64, y []float64) (*design, error) {
	n := len(X)
	if n == 0 {
		return nil, ErrEmpty
	}
	if len(y) != n {
		return nil, ErrLength
	}
	p := len(X[0])
	if p == 0 || n <= p-1 {
		return nil, fmt.Errorf("stats: logistic regression needs more rows (%d) than columns (%d)", n, p)
	}
	d := &design{X: mat.NewDense(n, p, nil), y: y, n: n, p: p, fitted: make([]bool, p)}
	for i, row := range X {
		if len(row) != p {
			return nil, fmt.Errorf("stats: row %d has %d columns, want %d", i, len(row), p)
		}
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("stats: row %d column %d is not finite", i, j)
			}
			d.X.Set(i, j, v)
		}
		if y[i] != 0 && y[i] != 1 {
			return nil, fmt.Errorf("stats: y[%d] = %g is not 0 or 1", i, y[i])
		}
	}
	for j := range d.fitted {
		d.fitted[j] = true
	}
	return d, nil
}

// state evaluates everything at β: probabilities, weights, information XᵀWX
// and its inverse, log-likelihood, and the Firth hat diagonal.
type state struct {
	pi, w  []float64
	info   *mat.SymDense
	inv    *mat.Dense
	logdet float64
	ll     float64
	h      []float64
}

func (d *design) eval(beta []float64, firth bool) (*state, error) {
	s := &state{pi: make([]float64, d.n), w: make([]float64, d.n)}
	for i := range d.n {
		eta := 0.0
		for j := range d.p {
			eta += d.X.At(i, j) * beta[j]
		}
		// log σ(η) and log(1−σ(η)) computed stably.
		lp, lq := -softplus(-eta), -softplus(eta)
		s.pi[i] = math.Exp(lp)
		s.w[i] = math.Exp(lp + lq)
		if d.y[i] == 1 {
			s.ll += lp
		} else {
			s.ll += lq
		}
	}
	s.info = mat.NewSymDense(d.p, nil)
	for a := range d.p {
		for b := a; b < d.p; b++ {
			v := 0.0
			for i := range d.n {
				v += d.X.At(i, a) * s.w[i] * d.X.At(i, b)
			}
			s.info.SetSym(a, b, v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(s.info) {
		return nil, fmt.Errorf("stats: XᵀWX is singular (collinear columns or fitted probabilities at 0/1)")
	}
	s.logdet = ch.LogDet()
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		return nil, fmt.Errorf("stats: invert XᵀWX: %w", err)
	}
	s.inv = mat.DenseCopyOf(&inv)
	if firth {
		s.ll += 0.5 * s.logdet
		s.h = make([]float64, d.n)
		xi := make([]float64, d.p)
		for i := range d.n {
			for j := range d.p {
				xi[j] = d.X.At(i, j)
			}
			q := 0.0
			for a := range d.p {
				for b := range d.p {
					q += xi[a] * s.inv.At(a, b) * xi[b]
				}
			}
			s.h[i] = s.w[i] * q
		}
	}
	return s, nil
}

func softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

// score is Xᵀ(y − π) or, for Firth, U* = Xᵀ(y − π + h∘(½ − π)).
func (d *design) score(s *state) []float64 {
	u := make([]float64, d.p)
	for i := range d.n {
		r := d.y[i] - s.pi[i]
		if s.h != nil {
			r += s.h[i] * (0.5 - s.pi[i])
		}
		for j := range d.p {
			u[j] += d.X.At(i, j) * r
		}
	}
	return u
}

// step solves the free block of the information against the free scores.
func (d *design) step(s *state, u []float64) ([]float64, error) {
	var free []int
	for j, f := range d.fitted {
		if f {
			free = append(free, j)
		}
	}
	delta := make([]float64, d.p)
	if len(free) == 0 {
		return delta, nil
	}
	A := mat.NewSymDense(len(free), nil)
	b := mat.NewVecDense(len(free), nil)
	for a, ja := range free {
		b.SetVec(a, u[ja])
		for c, jc := range free {
			A.SetSym(a, c, s.info.At(ja, jc))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(A) {
		return nil, fmt.Errorf("stats: information matrix is singular")
	}
	var x mat.VecDense
	if err := ch.SolveVecTo(&x, b); err != nil {
		return nil, err
	}
	for a, j := range free {
		delta[j] = x.AtVec(a)
	}
	return delta, nil
}

const (
	fitTol     = 1e-8
	fitMaxIter = 200
)

// fit maximises the (penalised) log-likelihood by Newton/IRLS with step
// halving, from beta (coefficients not free stay as given).
func (d *design) fit(beta []float64, firth bool) ([]float64, *state, int, error) {
	beta = append([]float64(nil), beta...)
	s, err := d.eval(beta, firth)
	if err != nil {
		return nil, nil, 0, err
	}
	for it := 1; it <= fitMaxIter; it++ {
		u := d.score(s)
		delta, err := d.step(s, u)
		if err != nil {
			return nil, nil, it, err
		}
		if maxAbsFree(delta, d.fitted) < fitTol && maxAbsFree(u, d.fitted) < fitTol {
			return beta, s, it, nil
		}
		var next *state
		cand := make([]float64, d.p)
		for half := 0; ; half++ {
			for j := range beta {
				cand[j] = beta[j] + delta[j]
			}
			next, err = d.eval(cand, firth)
			if err == nil && next.ll >= s.ll-1e-12*math.Abs(s.ll) {
				break
			}
			if half == 60 {
				return beta, s, it, nil // no ascent possible: at the optimum to machine precision
			}
			for j := range delta {
				delta[j] /= 2
			}
		}
		beta = append(beta[:0], cand...)
		s = next
		if !firth && maxAbs(beta) > 50 {
			return nil, nil, it, ErrSeparation
		}
	}
	return nil, nil, fitMaxIter, fmt.Errorf("stats: logistic regression did not converge in %d iterations", fitMaxIter)
}

func maxAbs(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

func maxAbsFree(x []float64, free []bool) float64 {
	m := 0.0
	for j, v := range x {
		if free[j] {
			m = math.Max(m, math.Abs(v))
		}
	}
	return m
}

func (d *design) result(beta []float64, s *state, it int, firth bool) LogitFit {
	f := LogitFit{Coef: beta, LogLik: s.ll, Iter: it, Firth: firth}
	for j := range d.p {
		se := math.Sqrt(s.inv.At(j, j))
		z := beta[j] / se
		f.SE = append(f.SE, se)
		f.Z = append(f.Z, z)
		f.PWald = append(f.PWald, TwoSidedNormalP(z))
		f.OddsRatio = append(f.OddsRatio, math.Exp(beta[j]))
	}
	return f
}

// Logistic fits a logistic regression by iteratively reweighted least squares
// (Newton–Raphson on the log-likelihood), with Wald standard errors from
// (XᵀWX)⁻¹ (statsmodels.discrete.discrete_model.Logit). X must include an
// intercept column if one is wanted. Separated data give ErrSeparation.
func Logistic(X [][]float64, y []float64) (LogitFit, error) {
	d, err := newDesign(X, y)
	if err != nil {
		return LogitFit{}, err
	}
	beta, s, it, err := d.fit(make([]float64, d.p), false)
	if err != nil {
		return LogitFit{}, err
	}
	return d.result(beta, s, it, false), nil
}

// Firth fits Firth's (1993) penalised logistic regression, maximising
// l*(β) = Σ[y log π + (1−y) log(1−π)] + ½ log det(XᵀWX) by penalised IRLS with
// the modified score U* = Xᵀ(y − π + h∘(½ − π)), h = diag(W½X(XᵀWX)⁻¹XᵀW½),
// step (XᵀWX)⁻¹U*, step halving while l* decreases, and convergence when
// max|δ| and max|U*| are below 1e-8 (SPEC C.7). Estimates exist under
// separation. SE = √diag((XᵀWX)⁻¹); Wald p from the normal. When lrTests is
// set, PLR[j] is the penalised likelihood-ratio p for β_j = 0: χ²₁ survival of
// 2[l*(β̂) − l*(β̃₍j₎)], where β̃₍j₎ maximises l* with β_j fixed at 0 and the
// penalty computed from the full X (as R's logistf).
func Firth(X [][]float64, y []float64, lrTests bool) (LogitFit, error) {
	d, err := newDesign(X, y)
	if err != nil {
		return LogitFit{}, err
	}
	beta, s, it, err := d.fit(make([]float64, d.p), true)
	if err != nil {
		return LogitFit{}, err
	}
	f := d.result(beta, s, it, true)
	if !lrTests {
		return f, nil
	}
	for j := range d.p {
		d.fitted[j] = false
		start := append([]float64(nil), beta...)
		start[j] = 0
		_, s0, _, err := d.fit(start, true)
		d.fitted[j] = true
		if err != nil {
			return f, fmt.Errorf("stats: restricted fit without term %d: %w", j, err)
		}
		lr := math.Max(0, 2*(f.LogLik-s0.ll))
		f.PLR = append(f.PLR, distuv.ChiSquared{K: 1}.Survival(lr))
	}
	return f, nil
}

// TwoSidedNormalP is 2·P(Z > |z|) for a standard normal Z, computed from the
// complementary error function so that it keeps full relative precision far
// into the tail (2·(1 − Φ(|z|)) loses it from |z| ≈ 6.5 and is 0 from 8.3).
func TwoSidedNormalP(z float64) float64 { return math.Erfc(math.Abs(z) / math.Sqrt2) }
