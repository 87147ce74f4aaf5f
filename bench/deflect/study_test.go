package deflect_test

import (
	"fmt"
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
