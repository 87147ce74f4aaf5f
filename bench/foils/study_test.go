package foils_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/fallacylab/fallacylab/bench/foils"
	"github.com/fallacylab/fallacylab/study"
	"github.com/fallacylab/fallacylab/study/studytest"
)

// c8Refs are the reference values ../../study/testdata/make_refs.py
// computed with scikit-learn and statsmodels (and loops for AC1 and α) for
// SPEC C.8, kept with the study package's.
type c8Refs struct {
	C8Native struct {
		Table                                          [3][3]int `json:"table"`
		Raw, CohenKappa, FleissKappa, AC1, Alpha, PsaA float64
	}
	C8Validity struct {
		Precision, PrecisionLo, PrecisionHi, FPR, FPRLo, FPRHi, AC1Binary, AC1ThreeWay float64
	}
}

func loadRefs(t *testing.T) c8Refs {
	var r c8Refs
	get := func(sec, key string, into any) { studytest.Ref(t, sec, key, into) }
	n := &r.C8Native
	get("c8_native", "table", &n.Table)
	for k, p := range map[string]*float64{"raw": &n.Raw, "cohen_kappa": &n.CohenKappa, "fleiss_kappa": &n.FleissKappa, "ac1": &n.AC1, "alpha": &n.Alpha, "psa_A": &n.PsaA} {
		get("c8_native", k, p)
	}
	v := &r.C8Validity
	for k, p := range map[string]*float64{"precision": &v.Precision, "precision_lo": &v.PrecisionLo, "precision_hi": &v.PrecisionHi, "fpr": &v.FPR,
		"fpr_lo": &v.FPRLo, "fpr_hi": &v.FPRHi, "ac1_binary": &v.AC1Binary, "ac1_three_way": &v.AC1ThreeWay} {
		get("c8_validity", k, p)
	}
	return r
}

// SPEC C.8 §6.2 through a study: two annotators, 183 native items coded
// A / B / N from a table that yields the paper's figures.
func TestC8NativeAgreement(t *testing.T) {
	r := loadRefs(t)
	qs, _ := study.Questions(foils.NativeStudy.Kind, nil)
	codes := []string{"A", "B", "N"}
	var items []study.Item
	var answers [][]string
	for i := range 3 {
		for j := range 3 {
			for range r.C8Native.Table[i][j] {
				items = append(items, study.Item{Key: fmt.Sprintf("native:%d", len(items)), Text: "t", Hidden: map[string]string{"pred": "none"}})
				answers = append(answers, []string{codes[i], codes[j]})
			}
		}
	}
	s, anns := studytest.HandStudy(foils.NativeStudy.Kind, qs, []string{"a", "b"}, items, answers)
	rep, err := study.Analyze(s, anns, study.AnalyzeOptions{Resamples: 50, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	row := studytest.Table(t, rep, "agreement").Rows[0]
	if row[1].Value != 183 {
		t.Fatalf("%v items", row[1].Value)
	}
	studytest.Near(t, "raw agreement", row[2].Value, r.C8Native.Raw)
	studytest.Near(t, "AC1", row[3].Value, r.C8Native.AC1)
	studytest.Near(t, "Fleiss κ", row[4].Value, r.C8Native.FleissKappa)
	studytest.Near(t, "Krippendorff α", row[5].Value, r.C8Native.Alpha)
	studytest.Near(t, "PSA_A", row[6].Value, r.C8Native.PsaA)
	studytest.Near(t, "Cohen κ", row[7].Value, r.C8Native.CohenKappa)
	// The published figures, as the paper rounds them.
	for _, c := range []struct {
		what      string
		got, want float64
		digits    int
	}{{"raw agreement %", 100 * row[2].Value, 86.3, 1}, {"κ", row[7].Value, 0.74, 2}, {"AC1", row[3].Value, 0.82, 2}, {"PSA_A", row[6].Value, 0.50, 2}} {
		p := math.Pow(10, float64(c.digits))
		if math.Round(c.got*p)/p != c.want {
			t.Errorf("%s = %.4f, the paper has %v", c.what, c.got, c.want)
		}
	}
	// Every interval holds its estimate.
	for j := 2; j <= 7; j++ {
		if c := row[j]; !c.HasCI || c.Lo > c.Value || c.Hi < c.Value {
			t.Errorf("column %d: %v not in [%v, %v]", j, c.Value, c.Lo, c.Hi)
		}
	}
}

// SPEC C.8 §6.7 through a study: 72 negatives rated by three annotators,
// valid when 2 of 3 say V (a V, I, B tie is not), precision 67/72, and the
// detector's FPR on the 53 confirmed matched items 30/53 (Wilson).
func TestC8Validity(t *testing.T) {
	r := loadRefs(t)
	qs, _ := study.Questions(foils.ValidityStudy.Kind, nil)
	var items []study.Item
	var answers [][]string
	for i := range 72 {
		cond, pred := "matched", "none"
		switch {
		case i < 53 && i < 30:
			pred = "appeal to authority" // flagged
		case i >= 53 && i < 67:
			cond = "wrong_scheme"
		}
		items = append(items, study.Item{Key: fmt.Sprintf("%s:%d", cond, i), Text: "t", Hidden: map[string]string{"condition": cond, "source": "appeal to authority", "pred": pred}})
		if i < 67 {
			answers = append(answers, []string{"V", "V", "I"})
		} else {
			answers = append(answers, []string{"V", "I", "B"})
		}
	}
	s, anns := studytest.HandStudy(foils.ValidityStudy.Kind, qs, []string{"a", "b", "c"}, items, answers)
	rep, err := study.Analyze(s, anns, study.AnalyzeOptions{Resamples: 50, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	all := studytest.Table(t, rep, "validity").Rows[0]
	if all[1].Value != 72 || all[2].Value != 67 {
		t.Fatalf("validity: %v of %v", all[2].Value, all[1].Value)
	}
	studytest.Near(t, "precision", all[3].Value, r.C8Validity.Precision)
	studytest.Near(t, "precision lo", all[3].Lo, r.C8Validity.PrecisionLo)
	studytest.Near(t, "precision hi", all[3].Hi, r.C8Validity.PrecisionHi)
	fpr := studytest.Table(t, rep, "confirmed_fpr").Rows[1]
	if fpr[1].Value != 53 || fpr[2].Value != 30 {
		t.Fatalf("confirmed: %v flagged of %v", fpr[2].Value, fpr[1].Value)
	}
	studytest.Near(t, "FPR", fpr[3].Value, r.C8Validity.FPR)
	studytest.Near(t, "FPR lo", fpr[3].Lo, r.C8Validity.FPRLo)
	studytest.Near(t, "FPR hi", fpr[3].Hi, r.C8Validity.FPRHi)
	if got := fmt.Sprintf("%.1f / [%.1f, %.1f]", 100*fpr[3].Value, 100*fpr[3].Lo, 100*fpr[3].Hi); got != "56.6 / [43.3, 69.0]" {
		t.Errorf("FPR %s, SPEC C.8 has 56.6 %% with Wilson [43.3, 69.0]", got)
	}
	studytest.Near(t, "AC1 binary", studytest.Table(t, rep, "validity_binary").Rows[0][1].Value, r.C8Validity.AC1Binary)
	studytest.Near(t, "AC1 three-way", studytest.Table(t, rep, "agreement").Rows[0][3].Value, r.C8Validity.AC1ThreeWay)
}

// Gwet's AC1 over items some annotators skipped follows Gwet's own irrCAC:
// the prevalences count every item answered, those one annotator answered
// too (the reference differs from the twice-answered-only figure).
func TestAC1CountsItemsAnsweredOnce(t *testing.T) {
	var ratings [][]string
	var want, pa, twiceOnly float64
	studytest.Ref(t, "ac1_singles", "ratings", &ratings)
	studytest.Ref(t, "ac1_singles", "ac1", &want)
	studytest.Ref(t, "ac1_singles", "pa", &pa)
	studytest.Ref(t, "ac1_singles", "ac1_twice_only", &twiceOnly)
	if math.Abs(want-twiceOnly) < 1e-3 {
		t.Fatalf("the reference case does not tell the conventions apart: %v, %v", want, twiceOnly)
	}
	qs, _ := study.Questions(foils.NativeStudy.Kind, nil)
	var items []study.Item
	for i := range ratings {
		items = append(items, study.Item{Key: fmt.Sprintf("native:%d", i), Text: "t", Hidden: map[string]string{"pred": "none"}})
	}
	s, anns := studytest.HandStudy(foils.NativeStudy.Kind, qs, []string{"a", "b", "c"}, items, ratings)
	rep, err := study.Analyze(s, anns, study.AnalyzeOptions{Resamples: 50, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	row := studytest.Table(t, rep, "agreement").Rows[0]
	if row[1].Value != 9 {
		t.Fatalf("%v items answered twice or more, want 9", row[1].Value)
	}
	studytest.Near(t, "raw agreement", row[2].Value, pa)
	studytest.Near(t, "AC1", row[3].Value, want)
}
