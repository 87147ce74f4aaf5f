package stats

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// TestRoganGladen: the corrected rate, its delta-method standard error and
// interval equal the formulas written out in make_correct_refs.py to
// 1e−12; a rater no better than chance leaves the rate undefined, and
// says why.
func TestRoganGladen(t *testing.T) {
	b, err := os.ReadFile("testdata/refs/correct_refs.json")
	if err != nil {
		t.Fatal(err)
	}
	var refs []struct {
		P, Se, Sp, Level float64
		VarP             float64 `json:"varP"`
		NPos             int     `json:"nPos"`
		NNeg             int     `json:"nNeg"`
		Defined          bool
		Rate, Lo, Hi     float64
		SeOut            float64 `json:"seOut"`
	}
	if err := json.Unmarshal(b, &refs); err != nil {
		t.Fatal(err)
	}
	undefined := 0
	for i, r := range refs {
		c := RoganGladen(r.P, r.VarP, r.Se, r.NPos, r.Sp, r.NNeg, r.Level)
		if c.Defined != r.Defined {
			t.Fatalf("case %d: defined %v, want %v (%s)", i, c.Defined, r.Defined, c.Reason)
		}
		if !r.Defined {
			undefined++
			if c.Reason == "" || !math.IsNaN(c.Rate) {
				t.Fatalf("case %d: %+v", i, c)
			}
			continue
		}
		for _, x := range [][2]float64{{c.Rate, r.Rate}, {c.SE, r.SeOut}, {c.Lo, r.Lo}, {c.Hi, r.Hi}} {
			if math.Abs(x[0]-x[1]) > 1e-12 {
				t.Fatalf("case %d: %+v, want rate %v se %v [%v, %v]", i, c, r.Rate, r.SeOut, r.Lo, r.Hi)
			}
		}
	}
	if undefined == 0 || len(refs) < 10 {
		t.Fatalf("%d cases, %d undefined", len(refs), undefined)
	}
}
