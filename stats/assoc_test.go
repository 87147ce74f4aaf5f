package stats

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

func TestFixturesLoaded(t *testing.T) {
	for name, n := range map[string]int{"proportions": len(refs.Proportions), "cohens_h": len(refs.CohensH),
		"descriptives": len(refs.Descriptives), "kappa": len(refs.Kappa), "fleiss": len(refs.MultiRater.Complete),
		"kripp": len(refs.Krippendorff.Units), "chi2": len(refs.Chi2), "fisher": len(refs.Fisher), "mcnemar": len(refs.Mcnemar),
		"correlation": len(refs.Correlation), "logistic": len(refs.Logistic.Y), "firth": len(refs.Firth),
		"classification": len(refs.Classification.YTrue), "multilabel": len(refs.Multilabel.YTrue)} {
		if n == 0 {
			t.Errorf("fixture section %s is empty: the test would check nothing", name)
		}
	}
}

func TestChiSquareAgainstScipy(t *testing.T) {
	for _, r := range refs.Chi2 {
		res, err := ChiSquare(r.Table, r.Yates)
		if err != nil {
			t.Fatal(r.Name, err)
		}
		close9(t, r.Name+" stat", res.Stat, float64(r.Stat))
		close9(t, r.Name+" p", res.P, float64(r.P))
		if res.DF != r.Df {
			t.Errorf("%s df %d want %d", r.Name, res.DF, r.Df)
		}
		for i := range r.Expected {
			for j := range r.Expected[i] {
				close9(t, fmt.Sprintf("%s E[%d][%d]", r.Name, i, j), res.Expected[i][j], float64(r.Expected[i][j]))
			}
		}
		if r.Name == "zero_column_dropped" && len(res.Notes) != 1 {
			t.Errorf("dropped column not noted: %v", res.Notes)
		}
	}
}

func TestChiSquareEdges(t *testing.T) {
	if _, err := ChiSquare(nil, false); err == nil {
		t.Error("empty table accepted")
	}
	if _, err := ChiSquare([][]float64{{1, 2}, {3}}, false); err == nil {
		t.Error("ragged table accepted")
	}
	if _, err := ChiSquare([][]float64{{1, 0}, {3, 0}}, false); err == nil {
		t.Error("single usable column accepted")
	}
	if _, err := ChiSquare([][]float64{{1, math.NaN()}, {3, 4}}, false); err == nil {
		t.Error("NaN accepted")
	}
	r, err := ChiSquare([][]float64{{5, 5}, {5, 5}}, true)
	if err != nil || r.Stat != 0 || r.P != 1 {
		t.Errorf("independent table: %+v %v", r, err)
	}
}

func TestFisherAgainstScipy(t *testing.T) {
	for _, r := range refs.Fisher {
		or, p, err := FisherExact(r.Table[0][0], r.Table[0][1], r.Table[1][0], r.Table[1][1])
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprint(r.Table)
		close9(t, name+" p", p, float64(r.P))
		close9(t, name+" OR", or, float64(r.OddsRatio))
	}
}

func TestMcNemarAgainstStatsmodels(t *testing.T) {
	for _, r := range refs.Mcnemar {
		name := fmt.Sprintf("b=%d c=%d", r.B, r.C)
		ex, _ := McNemar(r.B, r.C, true, false)
		close9(t, name+" exact p", ex.P, float64(r.ExactP))
		close9(t, name+" exact stat", ex.Stat, float64(r.ExactStat))
		cc, _ := McNemar(r.B, r.C, false, true)
		close9(t, name+" cc stat", cc.Stat, float64(r.CcStat))
		close9(t, name+" cc p", cc.P, float64(r.CcP))
		nc, _ := McNemar(r.B, r.C, false, false)
		close9(t, name+" stat", nc.Stat, float64(r.NoccStat))
		close9(t, name+" p", nc.P, float64(r.NoccP))
	}
}

func TestCorrelationAgainstScipy(t *testing.T) {
	for i, r := range refs.Correlation {
		x, y := fl(r.X), fl(r.Y)
		p, err := Pearson(x, y)
		if err != nil {
			t.Fatal(err)
		}
		close9(t, fmt.Sprint("pearson r ", i), p.R, float64(r.PearsonR))
		close9(t, fmt.Sprint("pearson p ", i), p.P, float64(r.PearsonP))
		s, err := Spearman(x, y)
		if err != nil {
			t.Fatal(err)
		}
		close9(t, fmt.Sprint("spearman r ", i), s.R, float64(r.SpearmanR))
		close9(t, fmt.Sprint("spearman p ", i), s.P, float64(r.SpearmanP))
	}
	c, err := Pearson([]float64{1, 1, 1}, []float64{1, 2, 3})
	if err != nil || !math.IsNaN(c.R) || c.Reason == "" {
		t.Fatalf("constant input: %+v %v", c, err)
	}
	if _, err := Pearson([]float64{1, math.NaN()}, []float64{1, 2}); err != ErrNaN {
		t.Fatal("NaN accepted")
	}
}

// PearsonAt is Pearson's r of the gathered pairs, to the last bit, with
// indices repeated (a bootstrap's resample), and NaN where Pearson's is.
func TestPearsonAtIsPearsonOfTheGatheredPairs(t *testing.T) {
	x := []float64{0.2, 0.4, 0.4, 1, 0, 0.6, 0.8, 0.2}
	y := []float64{0, 0.2, 0.6, 0.8, 0.2, 0.4, 1, 0}
	for _, idx := range [][]int{{0, 1, 2, 3, 4, 5, 6, 7}, {3, 3, 1, 7, 0, 0, 6}, {5, 2, 2, 2, 4}, {1, 1}, {4}, {0, 7}} {
		var xs, ys []float64
		for _, i := range idx {
			xs, ys = append(xs, x[i]), append(ys, y[i])
		}
		want, err := Pearson(xs, ys)
		if err != nil {
			t.Fatal(err)
		}
		got := PearsonAt(x, y, idx)
		if math.Float64bits(got) != math.Float64bits(want.R) && !(math.IsNaN(got) && math.IsNaN(want.R)) {
			t.Fatalf("%v: PearsonAt %v, Pearson %v", idx, got, want.R)
		}
	}
}

// TestChiSquareSaysWhatItDropsAndWhereItIsRough: the rows and columns
// left out for a zero total are named by index, and the expected counts
// below 5 are counted (Cochran's rule reads them).
func TestChiSquareSaysWhatItDropsAndWhereItIsRough(t *testing.T) {
	r, err := ChiSquare([][]float64{{0, 0, 0}, {10, 0, 2}, {30, 0, 8}}, false)
	if err != nil {
		t.Fatal(err)
	}
	// Tested: {{10, 2}, {30, 8}}, N 50; expected 2·10/50·… : E = {{9.6, 2.4}, {30.4, 7.6}}.
	if !slices.Equal(r.DroppedRows, []int{0}) || !slices.Equal(r.DroppedCols, []int{1}) || r.SmallExpected != 1 {
		t.Fatalf("dropped rows %v, columns %v, expected counts below 5: %d; want [0], [1], 1 (E = %v)", r.DroppedRows, r.DroppedCols, r.SmallExpected, r.Expected)
	}
}
