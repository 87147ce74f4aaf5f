package deflect

import (
	"testing"

	"github.com/fallacylab/fallacylab/stats"
)

// TestChiNote: a χ² test's note names the outcomes and models it leaves
// out, says when one outcome is all there is, and warns where more than
// a fifth of the expected counts are below 5 (Cochran's rule).
func TestChiNote(t *testing.T) {
	models := []string{"m1", "m2", "m3"}
	for _, c := range []struct {
		name string
		tab  [][]float64
		cols []string
		want string
	}{
		{"a model with nothing judged, an outcome nobody has", [][]float64{{40, 0, 60}, {0, 0, 0}, {55, 0, 45}}, []string{"a", "b", "c"},
			"left out, as no generation has it: b; left out, with no generation judged: m2"},
		{"one outcome left", [][]float64{{0, 30}, {0, 20}, {0, 10}}, []string{"f = 0", "f = 1"},
			"every judged generation has f = 1: nothing to test"},
		// Expected counts: column totals 3 and 57 over 60, so each model's
		// first cell expects 1: 3 of 6 below 5.
		{"small expected counts", [][]float64{{3, 17}, {0, 20}, {0, 20}}, []string{"f = 0", "f = 1"},
			"3 of 6 expected counts below 5: the χ² approximation is rough here"},
		{"large counts, nothing to say", [][]float64{{30, 70}, {50, 50}, {40, 60}}, []string{"f = 0", "f = 1"}, ""},
	} {
		r, _ := stats.ChiSquare(c.tab, false)
		if got := chiNote(r, models, c.cols); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
