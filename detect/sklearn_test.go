package detect_test

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/fallacylab/fallacylab/detect"
)

// sklearnRefs is testdata/sklearn_refs.json, made by testdata/make_sklearn_refs.py
// with Debian's python3-sklearn.
type sklearnRefs struct {
	Train []struct{ Text, Label string }
	Test  []string
	Vecs  []struct {
		Name    string
		Options detect.VectorizerOptions
		Vocab   map[string]int
		IDF     []float64
		Rows    []struct {
			Text string
			Idx  []int32
			Val  []float64
		}
	} `json:"vectorizers"`
	LogReg []struct {
		Vectorizer string
		C          float64
		Classes    []string
		Coef       [][]float64
		Intercept  []float64
		Proba      [][]float64
		Predict    []string
		MaxGrad    float64 `json:"max_grad"`
	}
}

// objective is the multinomial objective both fits minimise:
// mean(−log p_y) + ‖W‖²/(2·C·n), the intercept unpenalised.
func objective(m *detect.LogReg, X []detect.Sparse, y []int) float64 {
	n := float64(len(X))
	f := 0.0
	for i, row := range X {
		f -= math.Log(m.Proba(row)[y[i]])
	}
	reg := 0.0
	for _, w := range m.W {
		for _, x := range w {
			reg += x * x
		}
	}
	return f/n + reg/(2*m.C*n)
}

func loadSklearn(t *testing.T) sklearnRefs {
	t.Helper()
	b, err := os.ReadFile("testdata/sklearn_refs.json")
	if err != nil {
		t.Fatal(err)
	}
	var r sklearnRefs
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestVectorizerMatchesSklearn(t *testing.T) {
	ref := loadSklearn(t)
	texts := make([]string, len(ref.Train))
	for i, e := range ref.Train {
		texts[i] = e.Text
	}
	for _, rv := range ref.Vecs {
		t.Run(rv.Name, func(t *testing.T) {
			v := detect.FitVectorizer(texts, rv.Options)
			if len(v.Vocab) != len(rv.Vocab) {
				t.Fatalf("vocabulary %d terms, sklearn %d", len(v.Vocab), len(rv.Vocab))
			}
			for term, i := range rv.Vocab {
				if got, ok := v.Vocab[term]; !ok || got != i {
					t.Fatalf("term %q: index %d (present %v), sklearn %d", term, got, ok, i)
				}
			}
			for i, x := range rv.IDF {
				if math.Abs(v.IDF[i]-x) > 1e-12 {
					t.Fatalf("idf[%d] %v, sklearn %v", i, v.IDF[i], x)
				}
			}
			for _, row := range rv.Rows {
				got := v.Transform(row.Text)
				if len(got.Idx) != len(row.Idx) {
					t.Fatalf("%q: %d non-zeros, sklearn %d", row.Text, len(got.Idx), len(row.Idx))
				}
				for j := range row.Idx {
					if got.Idx[j] != row.Idx[j] || math.Abs(got.Val[j]-row.Val[j]) > 1e-12 {
						t.Fatalf("%q entry %d: (%d, %v), sklearn (%d, %v)", row.Text, j, got.Idx[j], got.Val[j], row.Idx[j], row.Val[j])
					}
				}
			}
		})
	}
}

// TestLogRegMatchesSklearn fits the multinomial model to a tight tolerance:
// the optimum of the same objective, so coefficients agree closely.
func TestLogRegMatchesSklearn(t *testing.T) {
	ref := loadSklearn(t)
	texts := make([]string, len(ref.Train))
	for i, e := range ref.Train {
		texts[i] = e.Text
	}
	for _, rl := range ref.LogReg {
		var opts detect.VectorizerOptions
		for _, rv := range ref.Vecs {
			if rv.Name == rl.Vectorizer {
				opts = rv.Options
			}
		}
		v := detect.FitVectorizer(texts, opts)
		idx := map[string]int{}
		for i, c := range rl.Classes {
			idx[c] = i
		}
		X := make([]detect.Sparse, len(texts))
		y := make([]int, len(texts))
		for i, e := range ref.Train {
			X[i], y[i] = v.Transform(e.Text), idx[e.Label]
		}
		m, err := detect.TrainLogReg(X, y, rl.Classes, len(v.IDF), detect.TrainOptions{C: rl.C, GradTol: 1e-10, MaxIter: 100000})
		if err != nil {
			t.Fatal(err)
		}
		// sklearn stops at scipy's ftol with a gradient of about MaxGrad
		// (≈1e-6), so its coefficients are within ~MaxGrad·C·n of the optimum.
		// The Go fit must be at least as good on the shared objective, and
		// agree within that distance.
		sk := &detect.LogReg{Classes: rl.Classes, D: len(v.IDF), C: rl.C, W: rl.Coef, B: rl.Intercept}
		fGo, fSk := objective(m, X, y), objective(sk, X, y)
		if fGo > fSk+1e-12 {
			t.Fatalf("C=%g: Go objective %.15g is worse than sklearn's %.15g", rl.C, fGo, fSk)
		}
		tol := 10 * rl.MaxGrad * rl.C * float64(len(X))
		t.Logf("C=%g: objective Go %.12g, sklearn %.12g (gradient %.1e); coefficient tolerance %.1e", rl.C, fGo, fSk, rl.MaxGrad, tol)
		for k := range rl.Classes {
			for j := range rl.Coef[k] {
				got := m.W[k][j] - m.W[0][j]
				want := rl.Coef[k][j] - rl.Coef[0][j]
				if math.Abs(got-want) > tol {
					t.Fatalf("C=%g class %s coef %d: %v, sklearn %v", rl.C, rl.Classes[k], j, got, want)
				}
			}
			if got, want := m.B[k]-m.B[0], rl.Intercept[k]-rl.Intercept[0]; math.Abs(got-want) > tol {
				t.Fatalf("C=%g intercept %s: %v, sklearn %v", rl.C, rl.Classes[k], got, want)
			}
		}
		for i, text := range ref.Test {
			row := v.Transform(text)
			p := m.Proba(row)
			for k := range p {
				if math.Abs(p[k]-rl.Proba[i][k]) > tol {
					t.Fatalf("C=%g %q: P(%s) %v, sklearn %v", rl.C, text, rl.Classes[k], p[k], rl.Proba[i][k])
				}
			}
			if got := m.Predict(row); got != rl.Predict[i] {
				t.Fatalf("C=%g %q: predicted %s, sklearn %s", rl.C, text, got, rl.Predict[i])
			}
		}
	}
}
