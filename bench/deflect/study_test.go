package deflect_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/bench/deflect"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/study"
)

// judgeRefs are a judge's labels, the humans' and their scores as
// scikit-learn computes them (../../study/testdata/make_refs.py).
type judgeRefs struct {
	Human, Judge                 []string
	Precision, Recall, F1, Kappa float64
}

func loadJudgeRefs(t *testing.T) judgeRefs {
	b, err := os.ReadFile("../../study/testdata/refs.json")
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	var r judgeRefs
	for k, p := range map[string]any{"human": &r.Human, "judge": &r.Judge, "precision": &r.Precision, "recall": &r.Recall, "f1": &r.F1, "kappa": &r.Kappa} {
		if err := json.Unmarshal(raw["judge"][k], p); err != nil {
			t.Fatalf("judge.%s: %v", k, err)
		}
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

var _ = fmt.Sprint

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
	s, anns := handStudy(deflect.RubricStudy.Kind, qs, []string{"h"}, items, answers)
	rep, err := study.Analyze(s, anns, study.AnalyzeOptions{Resamples: 50, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range table(t, rep, "judge_validity").Rows { // j1, then the consensus of j1 alone
		near(t, row[1].Text+" precision", row[3].Value, r.Precision)
		near(t, row[1].Text+" recall", row[4].Value, r.Recall)
		near(t, row[1].Text+" F1", row[5].Value, r.F1)
		near(t, row[1].Text+" κ", row[6].Value, r.Kappa)
	}
}
