package deflect_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/fallacylab/fallacylab/bench/deflect"
	"github.com/fallacylab/fallacylab/study"
	"github.com/fallacylab/fallacylab/study/studytest"
)

// judgeRefs are a judge's labels, the humans' and their scores as
// scikit-learn computes them (../../study/testdata/make_refs.py).
type judgeRefs struct {
	Human, Judge                 []string
	Precision, Recall, F1, Kappa float64
}

func loadJudgeRefs(t *testing.T) judgeRefs {
	var r judgeRefs
	for k, p := range map[string]any{"human": &r.Human, "judge": &r.Judge, "precision": &r.Precision, "recall": &r.Recall, "f1": &r.F1, "kappa": &r.Kappa} {
		studytest.Ref(t, "judge", k, p)
	}
	return r
}

// Judge validity: a judge's labels against the human majority, scored as
// scikit-learn scores them.
func TestJudgeValidity(t *testing.T) {
	r := loadJudgeRefs(t)
	qs, _ := study.Questions(deflect.RubricStudy.Kind, []string{"RH_present"})
	var items []study.Item
	var answers [][]string
	for i, h := range r.Human {
		items = append(items, study.Item{Key: fmt.Sprint(i), Text: "t", Hidden: map[string]string{"judge:j1:RH_present": r.Judge[i]}})
		answers = append(answers, []string{h})
	}
	s, anns := studytest.HandStudy(deflect.RubricStudy.Kind, qs, []string{"h"}, items, answers)
	rep, err := study.Analyze(s, anns, study.AnalyzeOptions{Resamples: 50, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range studytest.Table(t, rep, "judge_validity").Rows { // j1, then the consensus of j1 alone
		studytest.Near(t, row[1].Text+" precision", row[3].Value, r.Precision)
		studytest.Near(t, row[1].Text+" recall", row[4].Value, r.Recall)
		studytest.Near(t, row[1].Text+" F1", row[5].Value, r.F1)
		studytest.Near(t, row[1].Text+" κ", row[6].Value, r.Kappa)
	}
}

// A judge right on each of 10 items it calls 1 has precision 1.0 with the
// Wilson interval statsmodels gives for 10 of 10 (stats/testdata/refs), not
// the degenerate [1, 1] an item bootstrap gives (#27 item 15).
func TestJudgePrecisionIntervalIsWilson(t *testing.T) {
	var refs struct {
		Proportions []struct {
			K, N   int
			Level  float64
			Method string
			Lo, Hi float64
		}
	}
	b, err := os.ReadFile("../../stats/testdata/refs/refs.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &refs); err != nil {
		t.Fatal(err)
	}
	lo, hi := math.NaN(), math.NaN()
	for _, p := range refs.Proportions {
		if p.K == 10 && p.N == 10 && p.Level == 0.95 && p.Method == "wilson" {
			lo, hi = p.Lo, p.Hi
		}
	}
	if math.IsNaN(lo) {
		t.Fatal("no statsmodels reference for 10 of 10")
	}
	qs, _ := study.Questions(deflect.RubricStudy.Kind, []string{"RH_present"})
	var items []study.Item
	var answers [][]string
	for i := range 14 { // 10 true positives, 4 true negatives
		v := "1"
		if i >= 10 {
			v = "0"
		}
		items = append(items, study.Item{Key: fmt.Sprint(i), Text: "t", Hidden: map[string]string{"judge:j1:RH_present": v}})
		answers = append(answers, []string{v})
	}
	s, anns := studytest.HandStudy(deflect.RubricStudy.Kind, qs, []string{"h"}, items, answers)
	rep, err := study.Analyze(s, anns, study.AnalyzeOptions{Resamples: 200, Seed: 1, Level: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	row := studytest.Table(t, rep, "judge_validity").Rows[0]
	if p := row[3]; p.Value != 1 || math.Abs(p.Lo-lo) > 1e-12 || math.Abs(p.Hi-hi) > 1e-12 {
		t.Fatalf("precision %v [%v, %v], want 1 [%v, %v] (Wilson, statsmodels)", p.Value, p.Lo, p.Hi, lo, hi)
	}
}
