package stats

import (
	"encoding/json"
	"math"
	"math/rand/v2"
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

// TestRoganGladenBootstrapAgreesWithTheDelta: with large samples the
// bootstrap over both samples and the delta method give the same interval
// within Monte-Carlo error (5 % of its width here, 4,000 resamples); it
// is reproducible by its seed; Se + Sp ≤ 1 in every resample gives none.
func TestRoganGladenBootstrapAgreesWithTheDelta(t *testing.T) {
	p, sdP := 0.30, 0.02
	tp, nPos, tn, nNeg := 800, 1000, 1800, 2000 // Se 0.8, Sp 0.9
	rng := rand.New(rand.NewPCG(9, 9))
	reps := make([]float64, 4000)
	for i := range reps {
		reps[i] = p + sdP*rng.NormFloat64()
	}
	lo, hi, ok := RoganGladenBootstrap(reps, tp, nPos, tn, nNeg, 3, 0.95)
	d := RoganGladen(p, sdP*sdP, 0.8, nPos, 0.9, nNeg, 0.95)
	width := d.Hi - d.Lo
	if !ok || math.Abs(lo-d.Lo) > 0.05*width || math.Abs(hi-d.Hi) > 0.05*width {
		t.Fatalf("bootstrap [%v, %v], delta [%v, %v]", lo, hi, d.Lo, d.Hi)
	}
	lo2, hi2, _ := RoganGladenBootstrap(reps, tp, nPos, tn, nNeg, 3, 0.95)
	if lo2 != lo || hi2 != hi {
		t.Fatal("the same seed gave another interval")
	}
	if _, _, ok := RoganGladenBootstrap(reps, 1, 10, 1, 10, 3, 0.95); ok {
		t.Fatal("an interval where Se + Sp is near 0.2")
	}
	t.Logf("bootstrap [%.4f, %.4f], delta [%.4f, %.4f]", lo, hi, d.Lo, d.Hi)
}
