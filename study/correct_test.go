package study

import (
	"math"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/stats"
)

// TestCorrect: the confusion counts the rater against people; the
// corrected rate is Rogan–Gladen's with its delta interval, the bootstrap
// interval brackets it, few validated items bring a warning, and no
// validated item on a side (or Se + Sp ≤ 1) gives NA with the reason.
func TestCorrect(t *testing.T) {
	var c Confusion
	for _, x := range [][2]string{{"1", "1"}, {"1", "1"}, {"1", "0"}, {"0", "0"}, {"0", "0"}, {"0", "1"}, {"0", "0"}} {
		c.Add(x[0], x[1])
	}
	if c != (Confusion{TP: 2, FN: 1, TN: 3, FP: 1}) {
		t.Fatalf("confusion %+v", c)
	}
	reps := make([]float64, 500)
	for i := range reps {
		reps[i] = 0.4 + 0.02*math.Sin(float64(i))
	}
	got := Correct(0.4, 0.0004, reps, c, 1)
	want := stats.RoganGladen(0.4, 0.0004, 2.0/3, 3, 0.75, 4, 0.95)
	if got.Rate.Value != want.Rate || got.Rate.Lo != want.Lo || got.Validated != "3 / 4" || !strings.Contains(got.Note, "few validated") {
		t.Fatalf("corrected %+v, want %+v", got, want)
	}
	if b := got.Bootstrap; !b.HasCI || b.Lo > want.Rate || b.Hi < want.Rate {
		t.Fatalf("bootstrap %+v around %v", b, want.Rate)
	}
	// The reason is the row's note too: a table shows an NA cell as "–".
	if none := Correct(0.4, 0.0004, reps, Confusion{TN: 5}, 1); none.Rate.Kind != "empty" || !strings.Contains(none.Rate.Note, "no validated item") || none.Note != none.Rate.Note {
		t.Fatalf("no positives: %+v", none.Rate)
	}
	if chance := Correct(0.4, 0.0004, reps, Confusion{TP: 1, FN: 1, TN: 1, FP: 1}, 1); chance.Rate.Kind != "empty" || !strings.Contains(chance.Rate.Note, "≤ 1") || !strings.Contains(chance.Note, "≤ 1") {
		t.Fatalf("Se + Sp = 1: %+v", chance.Rate)
	}
}
