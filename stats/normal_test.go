package stats

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// TestTwoSidedNormalP checks the Wald p-values' tail against scipy's
// norm.sf up to z = 38.5, at 1e-9 relative.
func TestTwoSidedNormalP(t *testing.T) {
	b, err := os.ReadFile("testdata/refs/normal_refs.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		TwoSided [][2]float64 `json:"two_sided"`
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	for _, r := range ref.TwoSided {
		z, want := r[0], r[1]
		for _, s := range []float64{1, -1} {
			got := TwoSidedNormalP(s * z)
			if want == 0 || math.Abs(got-want)/want > 1e-9 {
				t.Errorf("z = %v: %v, scipy %v", s*z, got, want)
			}
		}
	}
}
