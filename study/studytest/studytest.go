// Package studytest holds what the tests of study kinds share: a study
// made by hand with given answers, and checks of its report's figures.
package studytest

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/study"
)

// HandStudy is a study whose every item every annotator sees, with the
// given answers to its first question (item i → one answer per
// annotator, "" = none).
func HandStudy(kind study.Kind, qs []study.Question, annotators []string, items []study.Item, answers [][]string) (study.Study, []study.Annotation) {
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

// Table is the report's table of that id; a report without it fails the
// test.
func Table(t *testing.T, rep *report.Report, id string) *report.Table {
	t.Helper()
	tb := rep.Table(id)
	if tb == nil {
		t.Fatalf("no table %s", id)
	}
	return tb
}

// Near checks a figure against its reference value to 1e-9.
func Near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("%s = %.12g, reference %.12g", what, got, want)
	}
}

// Ref reads one reference value of study/testdata/refs.json (what
// study/testdata/make_refs.py computed with scikit-learn and statsmodels)
// into into: the value of key in section.
func Ref(t *testing.T, section, key string, into any) {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "testdata", "refs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw[section][key], into); err != nil {
		t.Fatalf("refs.json %s.%s: %v", section, key, err)
	}
}
