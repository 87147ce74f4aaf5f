package foils_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/bench/foils"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/study"
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
	b, err := os.ReadFile("../../study/testdata/refs.json")
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	var r c8Refs
	get := func(sec, key string, into any) {
		if err := json.Unmarshal(raw[sec][key], into); err != nil {
			t.Fatalf("%s.%s: %v", sec, key, err)
		}
	}
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

// handStudy is a study whose every item every annotator sees, with the
// given answers (item i → one answer per annotator, "" = none).
func handStudy(kind study.Kind, qs []study.Question, annotators []string, items []study.Item, answers [][]string) (study.Study, []study.Annotation) {
	s := study.Study{ID: 1, Kind: kind, Name: "t", Questions: qs, Items: items, Overlap: len(items)}
	for _, a := range annotators {
		var order []string
		for _, it := range items {
			order = append(order, it.Key)
		}
		s.Annotators = append(s.Annotators, study.Annotator{Name: a, Token: a + "-tok", Order: order})
	}
	var anns []study.Annotation
	at := time.Unix(1700000000, 0)
	for i, row := range answers {
		for j, v := range row {
			if v != "" {
				anns = append(anns, study.Annotation{StudyID: 1, Annotator: annotators[j], Item: items[i].Key, Answers: map[string]string{qs[0].ID: v}, At: at})
			}
		}
	}
	return s, anns
}

func table(t *testing.T, rep *report.Report, id string) *report.Table {
	t.Helper()
	tb := rep.Table(id)
	if tb == nil {
		t.Fatalf("no table %s", id)
	}
	return tb
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("%s = %.12g, reference %.12g", what, got, want)
	}
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
	s, anns := handStudy(foils.NativeStudy.Kind, qs, []string{"a", "b"}, items, answers)
	rep, err := study.Analyze(s, anns, study.AnalyzeOptions{Resamples: 50, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	row := table(t, rep, "agreement").Rows[0]
	if row[1].Value != 183 {
		t.Fatalf("%v items", row[1].Value)
	}
	near(t, "raw agreement", row[2].Value, r.C8Native.Raw)
	near(t, "AC1", row[3].Value, r.C8Native.AC1)
	near(t, "Fleiss κ", row[4].Value, r.C8Native.FleissKappa)
	near(t, "Krippendorff α", row[5].Value, r.C8Native.Alpha)
	near(t, "PSA_A", row[6].Value, r.C8Native.PsaA)
	near(t, "Cohen κ", row[7].Value, r.C8Native.CohenKappa)
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
	s, anns := handStudy(foils.ValidityStudy.Kind, qs, []string{"a", "b", "c"}, items, answers)
	rep, err := study.Analyze(s, anns, study.AnalyzeOptions{Resamples: 50, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	all := table(t, rep, "validity").Rows[0]
	if all[1].Value != 72 || all[2].Value != 67 {
		t.Fatalf("validity: %v of %v", all[2].Value, all[1].Value)
	}
	near(t, "precision", all[3].Value, r.C8Validity.Precision)
	near(t, "precision lo", all[3].Lo, r.C8Validity.PrecisionLo)
	near(t, "precision hi", all[3].Hi, r.C8Validity.PrecisionHi)
	fpr := table(t, rep, "confirmed_fpr").Rows[1]
	if fpr[1].Value != 53 || fpr[2].Value != 30 {
		t.Fatalf("confirmed: %v flagged of %v", fpr[2].Value, fpr[1].Value)
	}
	near(t, "FPR", fpr[3].Value, r.C8Validity.FPR)
	near(t, "FPR lo", fpr[3].Lo, r.C8Validity.FPRLo)
	near(t, "FPR hi", fpr[3].Hi, r.C8Validity.FPRHi)
	if got := fmt.Sprintf("%.1f / [%.1f, %.1f]", 100*fpr[3].Value, 100*fpr[3].Lo, 100*fpr[3].Hi); got != "56.6 / [43.3, 69.0]" {
		t.Errorf("FPR %s, SPEC C.8 has 56.6 %% with Wilson [43.3, 69.0]", got)
	}
	near(t, "AC1 binary", table(t, rep, "validity_binary").Rows[0][1].Value, r.C8Validity.AC1Binary)
	near(t, "AC1 three-way", table(t, rep, "agreement").Rows[0][3].Value, r.C8Validity.AC1ThreeWay)
}
