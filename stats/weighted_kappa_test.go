package stats

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// TestWeightedKappaMatchesSklearn checks linear and quadratic weighted κ
// against sklearn.metrics.cohen_kappa_score(labels=scale, weights=…)
// (testdata/refs/make_weighted_kappa_refs.py).
func TestWeightedKappaMatchesSklearn(t *testing.T) {
	data, err := os.ReadFile("testdata/refs/weighted_kappa_refs.json")
	if err != nil {
		t.Fatal(err)
	}
	var refs struct {
		Cases []struct {
			Name              string
			A, B, Scale       []string
			Linear, Quadratic float64
		}
	}
	if err := json.Unmarshal(data, &refs); err != nil {
		t.Fatal(err)
	}
	if len(refs.Cases) < 4 {
		t.Fatalf("%d cases", len(refs.Cases))
	}
	for _, c := range refs.Cases {
		for w, want := range map[Weighting]float64{Linear: c.Linear, Quadratic: c.Quadratic} {
			got, err := WeightedKappa(c.A, c.B, c.Scale, w)
			if err != nil {
				t.Fatalf("%s %s: %v", c.Name, w, err)
			}
			if math.Abs(got.Kappa-want) > 1e-12 {
				t.Errorf("%s %s: κ_w = %.15f, sklearn %.15f", c.Name, w, got.Kappa, want)
			}
		}
	}
}

func TestWeightedKappaRefusesWhatItCannotWeigh(t *testing.T) {
	if _, err := WeightedKappa([]string{"1", "6"}, []string{"1", "2"}, []string{"1", "2", "3"}, Linear); err == nil {
		t.Error("a label off the scale was taken")
	}
	if _, err := WeightedKappa([]string{"1"}, []string{"1"}, []string{"1", "2"}, "cubic"); err == nil {
		t.Error("an unknown weighting was taken")
	}
	k, err := WeightedKappa([]string{"2", "2"}, []string{"2", "2"}, []string{"1", "2", "3"}, Quadratic)
	if err != nil || !math.IsNaN(k.Kappa) || k.Reason == "" {
		t.Errorf("one point used: %+v, %v; want NaN with a reason", k, err)
	}
}
