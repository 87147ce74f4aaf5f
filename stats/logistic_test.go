package stats

import (
	"fmt"
	"math"
	"testing"
)

func matrix(x [][]num) [][]float64 {
	out := make([][]float64, len(x))
	for i, r := range x {
		out[i] = fl(r)
	}
	return out
}

func TestLogisticAgainstStatsmodels(t *testing.T) {
	r := refs.Logistic
	f, err := Logistic(matrix(r.X), fl(r.Y))
	if err != nil {
		t.Fatal(err)
	}
	for j := range r.Coef {
		close9(t, fmt.Sprint("coef ", j), f.Coef[j], float64(r.Coef[j]))
		close9(t, fmt.Sprint("se ", j), f.SE[j], float64(r.Se[j]))
		close9(t, fmt.Sprint("p ", j), f.PWald[j], float64(r.P[j]))
	}
	close9(t, "llf", f.LogLik, float64(r.Llf))
}

func TestLogisticSeparation(t *testing.T) {
	X := [][]float64{{1, -2}, {1, -1}, {1, 1}, {1, 2}}
	if _, err := Logistic(X, []float64{0, 0, 1, 1}); err != ErrSeparation {
		t.Fatalf("want ErrSeparation, got %v", err)
	}
}

func TestFirthAgainstReference(t *testing.T) {
	for _, r := range refs.Firth {
		f, err := Firth(matrix(r.X), fl(r.Y), true)
		if err != nil {
			t.Fatal(r.Name, err)
		}
		for j := range r.Coef {
			closeTol(t, fmt.Sprintf("%s coef %d", r.Name, j), f.Coef[j], float64(r.Coef[j]), 1e-6)
			closeTol(t, fmt.Sprintf("%s se %d", r.Name, j), f.SE[j], float64(r.Se[j]), 1e-6)
			closeTol(t, fmt.Sprintf("%s wald p %d", r.Name, j), f.PWald[j], float64(r.PWald[j]), 1e-6)
			closeTol(t, fmt.Sprintf("%s PLR p %d", r.Name, j), f.PLR[j], float64(r.PPlr[j]), 1e-6)
		}
		closeTol(t, r.Name+" l*", f.LogLik, float64(r.Loglik), 1e-9)
	}
}

// SPEC C.7: the 2×2 case has the closed form exp(β) = (a+½)(d+½)/((b+½)(c+½)).
func TestFirthClosedForm2x2(t *testing.T) {
	a, b, c, d := 266, 389, 3, 735
	var X [][]float64
	var y []float64
	add := func(n int, cond, out float64) {
		for range n {
			X = append(X, []float64{1, cond})
			y = append(y, out)
		}
	}
	add(a, 1, 1)
	add(b, 1, 0)
	add(c, 0, 1)
	add(d, 0, 0)
	f, err := Firth(X, y, false)
	if err != nil {
		t.Fatal(err)
	}
	want := (float64(a) + 0.5) * (float64(d) + 0.5) / ((float64(b) + 0.5) * (float64(c) + 0.5))
	closeTol(t, "OR", f.OddsRatio[1], want, 1e-9)
	if math.Round(f.OddsRatio[1]*10)/10 != 143.8 {
		t.Fatalf("OR %.2f, SPEC says 143.8", f.OddsRatio[1])
	}
}

func TestRegressionInputErrors(t *testing.T) {
	if _, err := Firth(nil, nil, false); err == nil {
		t.Error("empty accepted")
	}
	if _, err := Firth([][]float64{{1, 2}, {1, 3}, {1, 4}}, []float64{0, 2, 1}, false); err == nil {
		t.Error("y = 2 accepted")
	}
	if _, err := Firth([][]float64{{1, math.NaN()}, {1, 3}, {1, 4}}, []float64{0, 1, 1}, false); err == nil {
		t.Error("NaN accepted")
	}
	if _, err := Logistic([][]float64{{1, 1}, {1, 1}, {1, 1}, {1, 1}}, []float64{0, 1, 0, 1}); err == nil {
		t.Error("collinear design accepted")
	}
}
