package stats

import (
	"math"
	"testing"
)

func TestKappaAC1FleissAgainstReferences(t *testing.T) {
	for _, r := range refs.Kappa {
		k, err := CohenKappa(r.A, r.B)
		if err != nil {
			t.Fatal(err)
		}
		close9(t, r.Name+" kappa", k.Kappa, float64(r.Kappa))
		pairs, _ := Pairs(r.A, r.B)
		ac, err := GwetAC1(pairs, r.Q)
		if err != nil {
			t.Fatal(err)
		}
		close9(t, r.Name+" ac1", ac.AC1, float64(r.Ac1))
		close9(t, r.Name+" pa", ac.Pa, float64(r.Ac1Pa))
		close9(t, r.Name+" pe", ac.Pe, float64(r.Ac1Pe))
		fk, err := FleissKappa(pairs)
		if err != nil {
			t.Fatal(err)
		}
		close9(t, r.Name+" fleiss", fk, float64(r.Fleiss))
	}
}

// The DeflectBench soft-refusal shape: at prevalence ≈ 0.05 κ is low, AC1 high.
func TestLowPrevalenceParadox(t *testing.T) {
	for _, r := range refs.Kappa {
		if r.Name != "binary_low_prevalence_2000" {
			continue
		}
		k, _ := CohenKappa(r.A, r.B)
		pairs, _ := Pairs(r.A, r.B)
		ac, _ := GwetAC1(pairs, 2)
		prev, _ := Prevalence(pairs, "1")
		if !(k.Kappa < 0.5 && ac.AC1 > 0.9 && math.Abs(prev-0.055) < 1e-12) {
			t.Fatalf("κ %.3f AC1 %.3f prevalence %.3f", k.Kappa, ac.AC1, prev)
		}
		if math.Abs(ac.Pi["1"]-prev) > 1e-12 {
			t.Fatalf("π₁ %v ≠ prevalence %v", ac.Pi["1"], prev)
		}
		return
	}
	t.Fatal("fixture missing")
}

func TestKappaUndefined(t *testing.T) {
	k, err := CohenKappa(refs.KappaUndefined.A, refs.KappaUndefined.B)
	if err != nil || !math.IsNaN(k.Kappa) || !math.IsNaN(float64(refs.KappaUndefined.Kappa)) || k.Reason == "" {
		t.Fatalf("%+v %v", k, err)
	}
	if _, err := CohenKappa([]string{"a"}, []string{"a", "b"}); err != ErrLength {
		t.Fatal("length mismatch accepted")
	}
	if _, err := CohenKappa(nil, nil); err != ErrEmpty {
		t.Fatal("empty accepted")
	}
}

func TestMultiRater(t *testing.T) {
	m := refs.MultiRater
	fk, err := FleissKappa(m.Complete)
	if err != nil {
		t.Fatal(err)
	}
	close9(t, "fleiss 3 raters", fk, float64(m.Fleiss))
	for q, want := range map[int]num{3: m.Ac1CompleteQ3, 4: m.Ac1CompleteQ4} {
		ac, err := GwetAC1(m.Complete, q)
		if err != nil {
			t.Fatal(err)
		}
		close9(t, "ac1 complete", ac.AC1, float64(want))
	}
	ac, err := GwetAC1(m.Missing, 3)
	if err != nil {
		t.Fatal(err)
	}
	close9(t, "ac1 missing", ac.AC1, float64(m.Ac1MissingQ3))
	if _, err := FleissKappa(m.Missing); err == nil {
		t.Fatal("Fleiss with unequal raters accepted")
	}
	if _, err := GwetAC1(m.Complete, 2); err == nil {
		t.Fatal("q below the observed categories accepted")
	}
}

func TestKrippendorff(t *testing.T) {
	kr := refs.Krippendorff
	units := make([][]float64, len(kr.Units))
	for i, u := range kr.Units {
		units[i] = fl(u)
	}
	for lvl, want := range map[Level]num{Nominal: kr.Nominal, Ordinal: kr.Ordinal, Interval: kr.Interval, Ratio: kr.Ratio} {
		a, err := KrippendorffAlpha(units, lvl)
		if err != nil {
			t.Fatal(err)
		}
		close9(t, string(lvl), a, float64(want))
		if pub := kr.Published[string(lvl)]; math.Round(a*1000)/1000 != pub {
			t.Errorf("%s α = %.4f, published %.3f", lvl, a, pub)
		}
	}
	if _, err := KrippendorffAlpha([][]float64{{1, 1}, {1, 1}}, Nominal); err == nil {
		t.Error("single value accepted")
	}
	if _, err := KrippendorffAlpha([][]float64{{1, math.NaN()}}, Nominal); err == nil {
		t.Error("no pairable unit accepted")
	}
}

func TestRawAndSpecificAgreement(t *testing.T) {
	// SPEC C.8 shape: PSA_A = 2 n_AA/(n_A· + n_·A).
	a := []string{"A", "A", "B", "N", "N", "B", "A"}
	b := []string{"A", "B", "B", "N", "B", "B", "N"}
	ag, err := RawAgreement(a, b)
	if err != nil {
		t.Fatal(err)
	}
	close9(t, "raw", ag.Raw, 4.0/7)
	close9(t, "psa A", ag.Specific["A"], 2*1.0/(3+1))
	close9(t, "psa B", ag.Specific["B"], 2*2.0/(2+4))
}

// TestTwoRatersEqualsItemwise: AC1 and prevalence read off the two-rater
// table equal, to the last bit, GwetAC1 and Prevalence over the items, on
// every reference case and with missing ("") labels on either side.
func TestTwoRatersEqualsItemwise(t *testing.T) {
	cases := [][2][]string{}
	for _, r := range refs.Kappa {
		cases = append(cases, [2][]string{r.A, r.B})
	}
	cases = append(cases, [2][]string{{"1", "", "0", "1", "", "0", "1"}, {"1", "0", "", "1", "", "1", "1"}})
	for n, c := range cases {
		tab, err := NewTwoRaters(c[0], c[1])
		if err != nil {
			t.Fatal(err)
		}
		pairs, _ := Pairs(c[0], c[1])
		want, err := GwetAC1(pairs, 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := tab.AC1(0)
		if err != nil {
			t.Fatal(err)
		}
		if got.AC1 != want.AC1 || got.Pa != want.Pa || got.Pe != want.Pe || got.Items != want.Items || len(got.Pi) != len(want.Pi) {
			t.Fatalf("case %d: %+v, want %+v", n, got, want)
		}
		for k, v := range want.Pi {
			if got.Pi[k] != v {
				t.Fatalf("case %d π[%s] %v, want %v", n, k, got.Pi[k], v)
			}
		}
		for _, lab := range tab.Cats {
			wp, _ := Prevalence(pairs, lab)
			if gp := tab.Prevalence(lab); gp != wp && !(math.IsNaN(gp) && math.IsNaN(wp)) {
				t.Fatalf("case %d prevalence %s: %v, want %v", n, lab, gp, wp)
			}
		}
	}
}
