package stats

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// TestKappaSEMatchesStatsmodels: κ and its asymptotic standard error equal
// statsmodels' cohens_kappa (testdata/refs/make_kappa_se_refs.py) on 2×2
// and 3×3 tables, a low-prevalence one among them.
func TestKappaSEMatchesStatsmodels(t *testing.T) {
	b, err := os.ReadFile("testdata/refs/kappa_se_refs.json")
	if err != nil {
		t.Fatal(err)
	}
	var refs struct {
		Cases []struct {
			Table    [][]float64
			Kappa    float64
			StdKappa float64 `json:"std_kappa"`
		}
	}
	if err := json.Unmarshal(b, &refs); err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i, c := range refs.Cases {
		k, se, err := KappaSE(c.Table)
		if err != nil {
			t.Fatal(err)
		}
		d := math.Max(math.Abs(k-c.Kappa), math.Abs(se-c.StdKappa))
		worst = math.Max(worst, d)
		if d > 1e-12 {
			t.Fatalf("case %d %v: κ %v SE %v, statsmodels %v %v", i, c.Table, k, se, c.Kappa, c.StdKappa)
		}
	}
	t.Logf("%d tables, largest difference %.2g", len(refs.Cases), worst)
}
