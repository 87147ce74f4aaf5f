package detect

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/optimize"
)

// LogReg is a multinomial logistic regression over sparse rows, fitted as
// scikit-learn 1.2's LogisticRegression(multi_class="multinomial",
// solver="lbfgs"): minimise Σ_i −log softmax(W x_i + b)[y_i] + ‖W‖²/(2·C)
// (the intercept b is not penalised) — the summed loss, not its mean, because
// that is the function sklearn hands to scipy's L-BFGS-B, so its tol (gtol:
// the largest gradient component) and scipy's relative-decrease stop (ftol)
// mean the same here. Fitted with gonum's L-BFGS (10 corrections and a
// Moré–Thuente line search, as L-BFGS-B), stopping at whichever of the two
// comes first.
type LogReg struct {
	Classes []string    `json:"classes"`
	D       int         `json:"dim"`
	C       float64     `json:"c"`
	W       [][]float64 `json:"w"` // K × D
	B       []float64   `json:"b"`
	Iter    int         `json:"iterations"`
}

// TrainOptions control fitting.
type TrainOptions struct {
	C       float64 // inverse regularisation strength (default 1)
	MaxIter int     // L-BFGS iterations (default 1000)
	// GradTol stops the fit when the max-norm of the gradient of the summed
	// objective is below it (default 1e-4, sklearn's tol).
	GradTol float64
	// FuncTol stops the fit when an iteration lowers the objective by less
	// than FuncTol·max(|f|, 1) (default scipy's L-BFGS-B ftol, 1e7·ε ≈
	// 2.2e-9; negative: never).
	FuncTol float64
}

// scipyFtol is scipy.optimize's L-BFGS-B default ftol (factr 1e7 times the
// machine epsilon), which sklearn leaves as it is.
const scipyFtol = 2.220446049250313e-09

// softmaxLoss is one row's multinomial log loss under the parameters x
// (K weight vectors of D, then K intercepts), adding its gradient to grad
// unless grad is nil; scores is scratch of K.
func softmaxLoss(x []float64, row Sparse, yi, K, D int, scores, grad []float64) float64 {
	mx := math.Inf(-1)
	for k := range K {
		s := x[K*D+k]
		wk := x[k*D : (k+1)*D]
		for j, idx := range row.Idx {
			s += wk[idx] * row.Val[j]
		}
		scores[k] = s
		mx = math.Max(mx, s)
	}
	sum := 0.0
	for k := range K {
		scores[k] = math.Exp(scores[k] - mx)
		sum += scores[k]
	}
	loss := -(math.Log(scores[yi] / sum))
	if grad == nil {
		return loss
	}
	for k := range K {
		g := scores[k] / sum
		if k == yi {
			g--
		}
		if g == 0 {
			continue
		}
		gk := grad[k*D : (k+1)*D]
		for j, idx := range row.Idx {
			gk[idx] += g * row.Val[j]
		}
		grad[K*D+k] += g
	}
	return loss
}

// TrainLogReg fits the model. y holds class indices into classes.
func TrainLogReg(X []Sparse, y []int, classes []string, D int, o TrainOptions) (*LogReg, error) {
	if len(X) == 0 || len(X) != len(y) {
		return nil, fmt.Errorf("detect: %d rows and %d labels", len(X), len(y))
	}
	if o.C <= 0 {
		o.C = 1
	}
	if o.MaxIter <= 0 {
		o.MaxIter = 1000
	}
	if o.GradTol <= 0 {
		o.GradTol = 1e-4
	}
	if o.FuncTol == 0 {
		o.FuncTol = scipyFtol
	}
	K := len(classes)
	nParam := K*D + K
	workers := runtime.GOMAXPROCS(0)
	type part struct {
		f    float64
		grad []float64
	}
	parts := make([]part, workers)
	for w := range parts {
		parts[w].grad = make([]float64, nParam)
	}
	// eval computes the objective and, if grad != nil, its gradient.
	eval := func(x, grad []float64) float64 {
		var wg sync.WaitGroup
		chunk := (len(X) + workers - 1) / workers
		for w := range workers {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				p := &parts[w]
				p.f = 0
				if grad != nil {
					clear(p.grad)
				}
				scores := make([]float64, K)
				for i := w * chunk; i < min(len(X), (w+1)*chunk); i++ {
					pg := p.grad
					if grad == nil {
						pg = nil
					}
					p.f += softmaxLoss(x, X[i], y[i], K, D, scores, pg)
				}
			}(w)
		}
		wg.Wait()
		lam := 1 / o.C
		f := 0.0
		for w := range parts {
			f += parts[w].f
		}
		reg := 0.0
		for i := 0; i < K*D; i++ {
			reg += x[i] * x[i]
		}
		f += lam * reg / 2
		if grad != nil {
			clear(grad)
			for w := range parts {
				for i, v := range parts[w].grad {
					grad[i] += v
				}
			}
			for i := range K * D {
				grad[i] += lam * x[i]
			}
		}
		return f
	}
	// gonum asks for the value and the gradient at the same point in two
	// calls; compute both once and serve the second call from the cache.
	var cacheX, cacheG []float64
	var cacheF float64
	both := func(x []float64) {
		if cacheX != nil && floatsEqual(cacheX, x) {
			return
		}
		cacheX = append(cacheX[:0], x...)
		if cacheG == nil {
			cacheG = make([]float64, len(x))
		}
		cacheF = eval(x, cacheG)
	}
	prob := optimize.Problem{
		Func: func(x []float64) float64 { both(x); return cacheF },
		Grad: func(grad, x []float64) { both(x); copy(grad, cacheG) },
	}
	settings := &optimize.Settings{GradientThreshold: o.GradTol, MajorIterations: o.MaxIter}
	if o.FuncTol > 0 {
		settings.Converger = &relativeDecrease{tol: o.FuncTol}
	} else {
		settings.Converger = optimize.NeverTerminate{}
	}
	method := &optimize.LBFGS{Store: 10, Linesearcher: &optimize.MoreThuente{}}
	res, err := optimize.Minimize(prob, make([]float64, nParam), settings, method)
	if err != nil && res == nil {
		return nil, fmt.Errorf("detect: fit: %w", err)
	}
	m := &LogReg{Classes: classes, D: D, C: o.C, B: append([]float64(nil), res.X[K*D:]...), Iter: res.Stats.MajorIterations}
	for k := range K {
		m.W = append(m.W, append([]float64(nil), res.X[k*D:(k+1)*D]...))
	}
	return m, nil
}

// scores returns the linear score W_k·x + b_k of every class; features
// beyond the model's dimension (unseen at training) are ignored.
func (m *LogReg) scores(row Sparse) []float64 {
	out := make([]float64, len(m.Classes))
	for k := range m.Classes {
		s := m.B[k]
		for j, idx := range row.Idx {
			if int(idx) < m.D {
				s += m.W[k][idx] * row.Val[j]
			}
		}
		out[k] = s
	}
	return out
}

// Proba returns the class probabilities of a row (softmax of the scores), in
// the order of Classes, like scikit-learn's predict_proba.
func (m *LogReg) Proba(row Sparse) []float64 {
	p := m.scores(row)
	mx := math.Inf(-1)
	for _, s := range p {
		mx = math.Max(mx, s)
	}
	sum := 0.0
	for k := range p {
		p[k] = math.Exp(p[k] - mx)
		sum += p[k]
	}
	for k := range p {
		p[k] /= sum
	}
	return p
}

// Predict returns the most probable class of a row (the first on ties).
func (m *LogReg) Predict(row Sparse) string {
	best, bestK := math.Inf(-1), 0
	for k, s := range m.scores(row) {
		if s > best {
			best, bestK = s, k
		}
	}
	return m.Classes[bestK]
}

func floatsEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// relativeDecrease is L-BFGS-B's function test: stop when an iteration
// lowers f by no more than tol·max(|f_k|, |f_k+1|, 1). gonum's own
// FunctionConverge measures the decrease against the best value seen over a
// window of iterations, which is not the same test.
type relativeDecrease struct {
	tol  float64
	last float64
	seen bool
}

func (r *relativeDecrease) Init(int) { r.seen = false }

func (r *relativeDecrease) Converged(loc *optimize.Location) optimize.Status {
	f := loc.F
	if !r.seen {
		r.last, r.seen = f, true
		return optimize.NotTerminated
	}
	prev := r.last
	r.last = f
	if prev-f <= r.tol*math.Max(math.Max(math.Abs(prev), math.Abs(f)), 1) {
		return optimize.FunctionConvergence
	}
	return optimize.NotTerminated
}
