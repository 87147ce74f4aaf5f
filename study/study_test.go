package study

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/report"
)

// refs are the reference values testdata/make_refs.py computed with
// scikit-learn and statsmodels (and loops for AC1 and α).
type refs struct {
	C8Native struct {
		Table                                          [3][3]int `json:"table"`
		Raw, CohenKappa, FleissKappa, AC1, Alpha, PsaA float64
	} `json:"c8_native"`
	C8Validity struct {
		Precision, PrecisionLo, PrecisionHi, FPR, FPRLo, FPRHi, AC1Binary, AC1ThreeWay float64
	} `json:"c8_validity"`
	Judge struct {
		Human, Judge                 []string
		Precision, Recall, F1, Kappa float64
	} `json:"judge"`
}

func loadRefs(t *testing.T) refs {
	b, err := os.ReadFile(filepath.Join("testdata", "refs.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The script writes snake_case keys; map them onto the fields.
	var raw map[string]map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	var r refs
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
	j := &r.Judge
	get("judge", "human", &j.Human)
	get("judge", "judge", &j.Judge)
	for k, p := range map[string]*float64{"precision": &j.Precision, "recall": &j.Recall, "f1": &j.F1, "kappa": &j.Kappa} {
		get("judge", k, p)
	}
	return r
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

// handStudy is a study whose every item every annotator sees, with the
// given answers (item i → one answer per annotator, "" = none).
func handStudy(kind Kind, qs []Question, annotators []string, items []Item, answers [][]string) (Study, []Annotation) {
	s := Study{ID: 1, Kind: kind, Name: "t", Questions: qs, Items: items, Overlap: len(items)}
	for _, a := range annotators {
		var order []string
		for _, it := range items {
			order = append(order, it.Key)
		}
		s.Annotators = append(s.Annotators, Annotator{Name: a, Token: a + "-tok", Order: order})
	}
	var anns []Annotation
	at := time.Unix(1700000000, 0)
	for i, row := range answers {
		for j, v := range row {
			if v != "" {
				anns = append(anns, Annotation{StudyID: 1, Annotator: annotators[j], Item: items[i].Key, Answers: map[string]string{qs[0].ID: v}, At: at})
			}
		}
	}
	return s, anns
}

// Judge validity: a judge's labels against the human majority, scored as
// scikit-learn scores them.
func TestJudgeValidity(t *testing.T) {
	r := loadRefs(t)
	qs, _ := Questions(DeflectRubric, []string{"RH_present"})
	var items []Item
	var answers [][]string
	for i, h := range r.Judge.Human {
		items = append(items, Item{Key: fmt.Sprint(i), Text: "t", Hidden: map[string]string{"judge:j1:RH_present": r.Judge.Judge[i]}})
		answers = append(answers, []string{h})
	}
	s, anns := handStudy(DeflectRubric, qs, []string{"h"}, items, answers)
	rep, err := Analyze(s, anns, AnalyzeOptions{Resamples: 50, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range table(t, rep, "judge_validity").Rows { // j1, then the consensus of j1 alone
		near(t, row[1].Text+" precision", row[3].Value, r.Judge.Precision)
		near(t, row[1].Text+" recall", row[4].Value, r.Judge.Recall)
		near(t, row[1].Text+" F1", row[5].Value, r.Judge.F1)
		near(t, row[1].Text+" κ", row[6].Value, r.Judge.Kappa)
	}
}

// Plan: a stratified, seeded sample; the overlap set in every queue and the
// rest shared out; every decoy in every queue; the same seed, the same study.
func TestPlan(t *testing.T) {
	var cands, decoys []Item
	for i := range 90 {
		st := []string{"m1", "m2", "m3"}[i%3]
		if i >= 60 {
			st = "m3" // strata of 20, 20, 50
		}
		cands = append(cands, Item{Key: fmt.Sprintf("c%d", i), Stratum: st})
	}
	for i := range 6 {
		decoys = append(decoys, Item{Key: fmt.Sprintf("d%d", i), Known: map[string]string{"q": "1"}})
	}
	o := Options{N: 30, Overlap: 10, Decoys: 4, Annotators: []string{"ana", "ben"}, Seed: 5, Token: func() string { return "tok" }}
	s, err := Plan(DeflectRubric, nil, cands, decoys, o)
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	planted := 0
	for _, it := range s.Items {
		if it.Decoy {
			planted++
		} else {
			per[it.Stratum]++
		}
	}
	// 30 of 90 in proportion: 6.67, 6.67, 16.67 → 6, 6, 16 and two left
	// over, to equal remainders: the larger stratum first, then by name.
	if planted != 4 || per["m1"] != 7 || per["m2"] != 6 || per["m3"] != 17 {
		t.Fatalf("strata %v, %d decoys", per, planted)
	}
	seen := map[string]int{}
	for _, a := range s.Annotators {
		for _, k := range a.Order {
			seen[k]++
		}
		if len(a.Order) != 10+10+4 {
			t.Fatalf("%s has %d items, want 10 shared + 10 own + 4 decoys", a.Name, len(a.Order))
		}
	}
	twice := 0
	for _, it := range s.Items {
		switch {
		case it.Decoy && seen[it.Key] != 2:
			t.Fatalf("decoy %s in %d queues", it.Key, seen[it.Key])
		case !it.Decoy && seen[it.Key] == 2:
			twice++
		case !it.Decoy && seen[it.Key] != 1:
			t.Fatalf("item %s in %d queues", it.Key, seen[it.Key])
		}
	}
	if twice != 10 || slices.Equal(s.Annotators[0].Order, s.Annotators[1].Order) {
		t.Fatalf("%d items in both queues; orders differ: %v", twice, !slices.Equal(s.Annotators[0].Order, s.Annotators[1].Order))
	}
	again, _ := Plan(DeflectRubric, nil, cands, decoys, o)
	if !slices.EqualFunc(s.Items, again.Items, func(a, b Item) bool { return a.Key == b.Key }) || !slices.Equal(s.Annotators[1].Order, again.Annotators[1].Order) {
		t.Fatal("the same seed gave another study")
	}
	if _, err := Plan(DeflectRubric, nil, cands, decoys, Options{Decoys: 7, Annotators: []string{"a"}}); err == nil || !strings.Contains(err.Error(), "only 6") {
		t.Fatalf("too many decoys: %v", err)
	}
	if _, err := Plan(DeflectRubric, nil, cands, nil, Options{Annotators: []string{"a", "a"}}); err == nil {
		t.Fatal("two annotators of one name")
	}
}

// Validate refuses what the studio and the sheet import must not store.
func TestValidate(t *testing.T) {
	qs := []Question{{ID: "validity", Text: "valid?", Choices: []Choice{{Key: "V", Label: "valid"}, {Key: "I", Label: "invalid"}}}}
	s := Study{ID: 1, Questions: qs, Annotators: []Annotator{{Name: "a", Order: []string{"x"}}}}
	for _, c := range []struct {
		a    Annotation
		want string
	}{
		{Annotation{Annotator: "z", Item: "x"}, `no annotator "z"`},
		{Annotation{Annotator: "a", Item: "y"}, "not in a's queue"},
		{Annotation{Annotator: "a", Item: "x", Answers: map[string]string{}}, "has no answer"},
		{Annotation{Annotator: "a", Item: "x", Answers: map[string]string{"validity": "Q"}}, "not one of its choices"},
		{Annotation{Annotator: "a", Item: "x", Answers: map[string]string{"validity": "V", "extra": "1"}}, `no question "extra"`},
	} {
		if err := s.Validate(c.a); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.a, err, c.want)
		}
	}
	if err := s.Validate(Annotation{Annotator: "a", Item: "x", Skipped: true}); err != nil {
		t.Errorf("a skip: %v", err)
	}
}
