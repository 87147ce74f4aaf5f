package stats

import (
	"fmt"
	"testing"
)

func checkReport(t *testing.T, name string, r Report, per struct {
	Precision, Recall, F1 []num
	Support               []int
}, micro, macro, weighted []num) {
	t.Helper()
	for i, c := range r.Classes {
		close9(t, fmt.Sprintf("%s %s P", name, c.Label), c.Precision, float64(per.Precision[i]))
		close9(t, fmt.Sprintf("%s %s R", name, c.Label), c.Recall, float64(per.Recall[i]))
		close9(t, fmt.Sprintf("%s %s F1", name, c.Label), c.F1, float64(per.F1[i]))
		if c.Support != per.Support[i] {
			t.Errorf("%s %s support %d want %d", name, c.Label, c.Support, per.Support[i])
		}
	}
	for _, a := range []struct {
		n    string
		got  Averages
		want []num
	}{{"micro", r.Micro, micro}, {"macro", r.Macro, macro}, {"weighted", r.Weighted, weighted}} {
		close9(t, name+" "+a.n+" P", a.got.Precision, float64(a.want[0]))
		close9(t, name+" "+a.n+" R", a.got.Recall, float64(a.want[1]))
		close9(t, name+" "+a.n+" F1", a.got.F1, float64(a.want[2]))
	}
}

func TestClassifyAgainstSklearn(t *testing.T) {
	c := refs.Classification
	r, err := Classify(c.YTrue, c.YPred, c.Labels)
	if err != nil {
		t.Fatal(err)
	}
	close9(t, "accuracy", r.Accuracy, float64(c.Accuracy))
	checkReport(t, "single", r, c.PerClass, c.Micro, c.Macro, c.Weighted)
	cm, err := ConfusionMatrix(c.YTrue, c.YPred, c.Labels)
	if err != nil {
		t.Fatal(err)
	}
	for i := range cm {
		for j := range cm[i] {
			if cm[i][j] != c.Confusion[i][j] {
				t.Errorf("confusion[%d][%d] = %d want %d", i, j, cm[i][j], c.Confusion[i][j])
			}
		}
	}
}

func TestClassifyMultiAgainstSklearn(t *testing.T) {
	m := refs.Multilabel
	r, err := ClassifyMulti(m.YTrue, m.YPred, m.Labels)
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, "multi", r, m.PerClass, m.Micro, m.Macro, m.Weighted)
	close9(t, "samples P", r.Samples.Precision, float64(m.Samples[0]))
	close9(t, "samples R", r.Samples.Recall, float64(m.Samples[1]))
	close9(t, "samples F1", r.Samples.F1, float64(m.Samples[2]))
}

func TestClassifyEdges(t *testing.T) {
	if _, err := Classify([]string{"a"}, []string{"a", "b"}, []string{"a"}); err != ErrLength {
		t.Error("length mismatch accepted")
	}
	if _, err := Classify([]string{"a"}, []string{"a"}, []string{"a", "a"}); err == nil {
		t.Error("duplicate label accepted")
	}
	// A label never predicted nor true: zero_division = 0.
	r, _ := Classify([]string{"a", "a"}, []string{"a", "a"}, []string{"a", "b"})
	if r.Classes[1].Precision != 0 || r.Classes[1].F1 != 0 || r.Macro.F1 != 0.5 {
		t.Errorf("zero division: %+v", r)
	}
}
