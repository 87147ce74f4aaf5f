package compare

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/stats"
)

// binaryArm is an arm whose items 0..n-1 are right where right(i).
func binaryArm(label string, n int, right func(int) bool) Arm {
	m := Metric{Name: "accuracy", Binary: true, Unit: "text"}
	for i := range n {
		v := 0.0
		if right(i) {
			v = 1
		}
		m.Items = append(m.Items, Item{ID: fmt.Sprint(i), Cluster: fmt.Sprint(i), Value: v})
	}
	return Arm{Label: label, Metrics: []Metric{m}}
}

// Two arms on one item each per cluster: McNemar's exact test on the
// discordant items, Cohen's h on the two rates, the difference of the
// rates with an interval around it; only the shared items count.
func TestPairBinary(t *testing.T) {
	a := binaryArm("A", 100, func(i int) bool { return i%3 != 0 })
	b := binaryArm("B", 90, func(i int) bool { return i%2 == 0 })
	ps, err := Compare([]Arm{a, b}, Options{Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	p := ps[0]
	var ka, kb, onlyA, onlyB int
	for i := range 90 {
		x, y := i%3 != 0, i%2 == 0
		ka, kb = ka+b2i(x), kb+b2i(y)
		if x && !y {
			onlyA++
		}
		if y && !x {
			onlyB++
		}
	}
	m, _ := stats.McNemar(onlyA, onlyB, true, false)
	if p.Shared != 90 || p.NA != 100 || p.NB != 90 || p.Discordant != [2]int{onlyA, onlyB} || p.P != m.P || p.MidP != stats.McNemarMidP(onlyA, onlyB) {
		t.Fatalf("%+v", p)
	}
	if math.Abs(p.EstA-float64(ka)/90) > 1e-12 || math.Abs(p.Diff-float64(ka-kb)/90) > 1e-12 || !(p.DiffLo < p.Diff && p.Diff < p.DiffHi) {
		t.Fatalf("estimates %+v", p)
	}
	if math.Abs(p.H-stats.CohensH(p.EstA, p.EstB)) > 1e-12 || p.Test != "McNemar exact" || p.Family != 1 || p.PHolm != p.P {
		t.Fatalf("%+v", p)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Items clustered (samples of a claim): the test is the sign-flip over
// the clusters' mean differences, exact for few clusters.
func TestPairClustered(t *testing.T) {
	mk := func(label string, shift float64) Arm {
		m := Metric{Name: "F1", Unit: "claim"}
		for c := range 6 {
			for s := range 3 {
				m.Items = append(m.Items, Item{ID: fmt.Sprintf("%d/%d", c, s), Cluster: fmt.Sprint(c), Value: float64(c%3)/4 + shift + float64(s)/100})
			}
		}
		return Arm{Label: label, Metrics: []Metric{m}}
	}
	ps, err := Compare([]Arm{mk("A", 0.2), mk("B", 0)}, Options{Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	p := ps[0]
	// Every cluster's difference is +0.2: of the 64 flips only the
	// identity and its mirror reach |0.2|.
	if p.Clusters != 6 || p.Shared != 18 || math.Abs(p.Diff-0.2) > 1e-12 || math.Abs(p.P-2.0/64) > 1e-12 || p.Test != "sign-flip over claims" || !math.IsNaN(p.H) {
		t.Fatalf("%+v", p)
	}
}

// Three arms: every pair, Holm and BH over the three, a verdict each; arms
// that share nothing are refused.
func TestThreeArmsAndNoSharedItems(t *testing.T) {
	a := binaryArm("A", 200, func(i int) bool { return i%10 != 0 })
	b := binaryArm("B", 200, func(i int) bool { return i%2 == 0 })
	c := binaryArm("C", 200, func(i int) bool { return i%2 == 1 })
	ps, err := Compare([]Arm{a, b, c}, Options{Resamples: 100})
	if err != nil || len(ps) != 3 {
		t.Fatalf("%v %d", err, len(ps))
	}
	raw := []float64{ps[0].P, ps[1].P, ps[2].P}
	holm, bh := stats.Holm(raw), stats.BenjaminiHochberg(raw)
	for i, p := range ps {
		if p.Family != 3 || p.PHolm != holm[i] || p.PBH != bh[i] || p.Verdict == "" {
			t.Fatalf("pair %d: %+v", i, p)
		}
	}
	if !strings.HasPrefix(ps[0].Verdict, "A is higher than B") || !strings.HasPrefix(ps[2].Verdict, "no difference shown") {
		t.Fatalf("verdicts: %q / %q", ps[0].Verdict, ps[2].Verdict)
	}
	d := binaryArm("D", 5, func(int) bool { return true })
	for i := range d.Metrics[0].Items {
		d.Metrics[0].Items[i].ID = "other-" + d.Metrics[0].Items[i].ID
	}
	if _, err := Compare([]Arm{a, d}, Options{}); !errors.Is(err, ErrNoSharedItems) {
		t.Fatalf("no shared items: %v", err)
	}
}

// TestVerdictTooFewToShow: where no outcome of the items could give a p
// below the level — five texts, or four discordant items — the verdict
// says the comparison is too small, not that no difference was shown;
// with one more, the same one-sided outcome shows it; identical arms
// agree.
func TestVerdictTooFewToShow(t *testing.T) {
	clustered := func(k int, shift float64) []Arm {
		mk := func(label string, s float64) Arm {
			m := Metric{Name: "F1", Unit: "text"}
			for c := range k {
				for i := range 2 {
					m.Items = append(m.Items, Item{ID: fmt.Sprintf("%d/%d", c, i), Cluster: fmt.Sprint(c), Value: float64(c)/10 + s*float64(i+1)})
				}
			}
			return Arm{Label: label, Metrics: []Metric{m}}
		}
		return []Arm{mk("A", shift), mk("B", 0)}
	}
	for _, c := range []struct {
		arms    []Arm
		minP    float64
		verdict string
	}{
		{clustered(5, 0.1), 0.0625, "too few to show a difference at α = 0.05: 5 texts with a difference, where the smallest p the test can give is 0.0625 (p = 0.0625)"},
		{clustered(6, 0.1), 0.03125, "A is higher than B at α = 0.05 (p = 0.0312)"},
		{clustered(5, 0), 1, "no difference: each text's mean difference is 0 (p = 1)"},
		{[]Arm{binaryArm("A", 20, func(i int) bool { return i < 14 }), binaryArm("B", 20, func(i int) bool { return i < 10 })}, 0.125,
			"too few to show a difference at α = 0.05: 4 texts differ, where the smallest p the test can give is 0.125 (p = 0.125)"},
		{[]Arm{binaryArm("A", 20, func(i int) bool { return i < 16 }), binaryArm("B", 20, func(i int) bool { return i < 10 })}, 0.03125,
			"A is higher than B at α = 0.05 (p = 0.0313)"}, // McNemar's p is 0.03125 plus rounding
		{[]Arm{binaryArm("A", 20, func(i int) bool { return i < 9 }), binaryArm("B", 20, func(i int) bool { return i < 9 })}, 1,
			"no difference: the arms agree on every text (p = 1)"},
	} {
		ps, err := Compare(c.arms, Options{Resamples: 200})
		if err != nil {
			t.Fatal(err)
		}
		if p := ps[0]; math.Abs(p.MinP-c.minP) > 1e-12 || p.Verdict != c.verdict {
			t.Errorf("%s: min p %g, verdict %q; want %g, %q", p.Test, p.MinP, p.Verdict, c.minP, c.verdict)
		}
	}
}

// TestReportWarnsOfFewClusters: a pair on fewer than FewClusters clusters
// is named in the report's meta; one on more is not.
func TestReportWarnsOfFewClusters(t *testing.T) {
	few := []Arm{binaryArm("A", 8, func(i int) bool { return i < 6 }), binaryArm("B", 8, func(i int) bool { return i < 2 })}
	many := []Arm{binaryArm("A", 40, func(i int) bool { return i < 30 }), binaryArm("B", 40, func(i int) bool { return i < 12 })}
	three := append(slices.Clone(few), binaryArm("C", 8, func(i int) bool { return i < 4 }))
	for _, c := range []struct {
		arms []Arm
		want string
	}{{few, "the pair rests on fewer than 10 clusters: "}, {three, "3 of the 3 pairs rest on fewer than 10 clusters: "}, {many, ""}} {
		ps, err := Compare(c.arms, Options{Resamples: 200})
		if err != nil {
			t.Fatal(err)
		}
		var warned string
		for _, m := range Report("t", "b", ps, Options{}).Meta {
			if m[0] == "few clusters" {
				warned = m[1]
			}
		}
		if !strings.HasPrefix(warned, c.want) || (c.want == "") != (warned == "") {
			t.Errorf("%d arms of %d clusters: warned %q, want %q…", len(c.arms), ps[0].Clusters, warned, c.want)
		}
	}
}
