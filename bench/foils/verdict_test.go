package foils

import (
	"testing"

	"github.com/fallacylab/fallacylab/stats"
)

// TestVerdictFiguresFollowTheirSigns: the verdict says a negative
// separation is "less often", a negative margin follows the source type,
// and an FPR that stays or falls does not "rise" (a --limit 8 audit said
// "-12.5 pp more often", "follows the new scheme τ′" at a margin of
// -12.5 pp and "rises from 0.0 % … to 0.0 %").
func TestVerdictFiguresFollowTheirSigns(t *testing.T) {
	fpr := func(n, m float64) (stats.Proportion, stats.Proportion) {
		return stats.Proportion{Estimate: n}, stats.Proportion{Estimate: m}
	}
	for _, c := range []struct {
		sep, margin, native, matched float64
		want                         string
	}{
		{0.073, 0.2, 0.1, 0.3, "it calls scheme-matched valid arguments by their source type 7.3 pp more often than wrong-scheme controls (macro separation, 95 % CI [1.0, 2.0]), " +
			"and on wrong-scheme items it follows the new scheme τ′ rather than the source type τ (margin +20.0 pp, CI [3.0, 4.0]). " +
			"Its false-positive rate rises from 10.0 % on the corpus' own valid class to 30.0 % on scheme-matched valid arguments."},
		{-0.125, -0.125, 0, 0, "it calls scheme-matched valid arguments by their source type 12.5 pp less often than wrong-scheme controls (macro separation, 95 % CI [1.0, 2.0]), " +
			"and on wrong-scheme items it follows the source type τ rather than the new scheme τ′ (margin -12.5 pp, CI [3.0, 4.0]). " +
			"Its false-positive rate is 0.0 % both on the corpus' own valid class and on scheme-matched valid arguments."},
		{0, 0, 0.3, 0.1, "it calls scheme-matched valid arguments by their source type as often as wrong-scheme controls (macro separation, 95 % CI [1.0, 2.0]), " +
			"and on wrong-scheme items it follows the new scheme τ′ and the source type τ alike (margin +0.0 pp, CI [3.0, 4.0]). " +
			"Its false-positive rate falls from 30.0 % on the corpus' own valid class to 10.0 % on scheme-matched valid arguments."},
	} {
		s := Summary{Sep: c.sep, SepLo: 0.01, SepHi: 0.02, Margin: c.margin, MarginLo: 0.03, MarginHi: 0.04}
		s.NativeFPR, s.MatchedFPR = fpr(c.native, c.matched)
		if got := verdictFigures(s); got != c.want {
			t.Errorf("separation %g, margin %g:\n got %s\nwant %s", c.sep, c.margin, got, c.want)
		}
	}
	// Intervals that hold 0 show no direction: a --limit 10 audit
	// "follows the new scheme τ′" at a margin of +10.0 pp, CI [-20.0, 40.0].
	s := Summary{Sep: -0.125, SepLo: -0.333, SepHi: 0, Margin: 0.1, MarginLo: -0.2, MarginHi: 0.4}
	s.NativeFPR, s.MatchedFPR = fpr(1, 0.8)
	want := "it calls scheme-matched valid arguments by their source type 12.5 pp less often than wrong-scheme controls (macro separation, 95 % CI [-33.3, 0.0], which holds 0: no difference shown), " +
		"and on wrong-scheme items it leans to the new scheme τ′ rather than the source type τ, not clearly (margin +10.0 pp, CI [-20.0, 40.0], which holds 0). " +
		"Its false-positive rate falls from 100.0 % on the corpus' own valid class to 80.0 % on scheme-matched valid arguments."
	if got := verdictFigures(s); got != want {
		t.Errorf("intervals that hold 0:\n got %s\nwant %s", got, want)
	}
}
