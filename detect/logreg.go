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
// solver="lbfgs"): minimise (1/n)·Σ_i −log softmax(W x_i + b)[y_i] +
// ‖W‖²/(2·C·n) (the intercept b is not penalised; the same optimum as
// C·Σ loss + ½‖W‖², on sklearn's scale so its gtol means the same), here with
// gonum's L-BFGS, stopping when the largest gradient component is below
// GradTol (sklearn's tol).
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
	GradTol float64 // stop when the max-norm of the gradient is below (default 1e-4)
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
					row := X[i]
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
					p.f += -(math.Log(scores[y[i]] / sum))
					if grad == nil {
						continue
					}
					for k := range K {
						g := scores[k] / sum
						if k == y[i] {
							g--
						}
						if g == 0 {
							continue
						}
						gk := p.grad[k*D : (k+1)*D]
						for j, idx := range row.Idx {
							gk[idx] += g * row.Val[j]
						}
						p.grad[K*D+k] += g
					}
				}
			}(w)
		}
		wg.Wait()
		n := float64(len(X))
		lam := 1 / (o.C * n)
		f := 0.0
		for w := range parts {
			f += parts[w].f
		}
		f /= n
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
			for i := range grad {
				grad[i] /= n
				if i < K*D {
					grad[i] += lam * x[i]
				}
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
	res, err := optimize.Minimize(prob, make([]float64, nParam), settings, &optimize.LBFGS{})
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
