package study

import (
	"math"
	"strings"
	"testing"
	"time"
)

// TestMultiQuestions (#27 item 18): a multi question takes one or more of
// its choices, stored in the choices' order; a sheet may list them by key
// or label in any order; agreement is measured choice by choice.
func TestMultiQuestions(t *testing.T) {
	c, err := ParseCustom([]byte(`questions:
  - id: flaws
    text: Which flaws?
    type: multi
    choices: [{key: h, label: hedging}, {key: a, label: attack}]
  - id: why
    text: Why the attack?
    type: text
    when: {question: flaws, is: a}
  - id: quality
    text: How good?
    type: likert
    scale: 4
`), "q.yaml")
	if err != nil {
		t.Fatal(err)
	}
	q := c.Questions[0]
	for v, ok := range map[string]bool{"h": true, "h,a": true, "a,h": false, "h,h": false, "": false, "x": false, "h,x": false} {
		if q.Accepts(v) != ok {
			t.Errorf("Accepts(%q) = %v", v, !ok)
		}
	}
	for in, want := range map[string]string{"attack; hedging": "h,a", "A|h": "h,a", " h ": "h", "h, nope": "h, nope"} {
		if got := q.Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
	why := c.Questions[1]
	if !why.Needed(map[string]string{"flaws": "h,a"}) || why.Needed(map[string]string{"flaws": "h"}) {
		t.Error("a question asked when attack is picked")
	}
	for _, bad := range []string{
		"questions:\n  - id: a\n    text: t\n    type: multi\n    positive: x\n    choices: [{key: x, label: x}, {key: y, label: y}]\n",
		"questions:\n  - id: a\n    text: t\n    type: multi\n    choices: [{key: 'x,y', label: x}, {key: y, label: y}]\n",
	} {
		if _, err := ParseCustom([]byte(bad), "q.yaml"); err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("%q: %v", bad, err)
		}
	}

	s := Study{ID: 1, Kind: RecordsKind, Questions: c.Questions, Overlap: 4}
	for _, k := range []string{"i0", "i1", "i2", "i3"} {
		s.Items = append(s.Items, Item{Key: k, Text: "t"})
	}
	order := []string{"i0", "i1", "i2", "i3"}
	s.Annotators = []Annotator{{Name: "ana", Order: order}, {Name: "ben", Order: order}}
	picks := map[string][]string{"ana": {"h", "h,a", "a", "a"}, "ben": {"h", "h", "a", "h,a"}}
	scale := map[string][]string{"ana": {"1", "2", "4", "3"}, "ben": {"1", "3", "4", "1"}}
	var anns []Annotation
	for _, who := range []string{"ana", "ben"} {
		for i, k := range order {
			a := Annotation{StudyID: 1, Annotator: who, Item: k, Answers: map[string]string{"flaws": picks[who][i], "quality": scale[who][i]}, At: time.Unix(int64(i), 0)}
			if strings.Contains(picks[who][i], "a") {
				a.Answers["why"] = "rude"
			}
			if err := s.Validate(a); err != nil {
				t.Fatal(err)
			}
			anns = append(anns, a)
		}
	}
	rep, err := Analyze(s, anns, AnalyzeOptions{Resamples: 50})
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]float64{}
	for _, r := range rep.Table("agreement").Rows {
		rows[r[0].Text] = []float64{r[1].Value, r[2].Value, r[7].Value}
	}
	// hedging: ana 1 1 0 0, ben 1 1 0 1 — raw 3/4, κ (0.75 − 0.5)/(1 − 0.5).
	// attack:  ana 0 1 1 1, ben 0 0 1 1 — raw 3/4, κ (0.75 − 0.5)/(1 − 0.5).
	for _, id := range []string{"flaws=h", "flaws=a"} {
		if r := rows[id]; r == nil || r[0] != 4 || math.Abs(r[1]-0.75) > 1e-12 || math.Abs(r[2]-0.5) > 1e-12 {
			t.Errorf("%s: items, raw, κ = %v; want 4, 0.75, 0.5", id, r)
		}
	}
	if _, ok := rows["flaws"]; ok {
		t.Error("the multi question is measured whole as well as choice by choice")
	}
	wk := rep.Table("weighted_kappa")
	if wk == nil || len(wk.Rows) != 1 {
		t.Fatalf("weighted κ table: %+v", wk)
	}
	// ana 1 2 4 3, ben 1 3 4 1 on a 4-point scale: linear weights give
	// Σ w O = 0 + 1 + 0 + 2 = 3 and Σ w E = (5 + 5 + 5 + 7)/4 = 5.5, so
	// κ = 1 − 3/5.5 (scikit-learn: 0.4545…).
	if got := wk.Rows[0][3].Value; math.Abs(got-(1-3/5.5)) > 1e-12 {
		t.Errorf("linear weighted κ %v, want 1 − 3/5.5", got)
	}
	if rep.Table("ordinal_agreement").Rows[0][1].Value != 4 {
		t.Errorf("ordinal agreement: %+v", rep.Table("ordinal_agreement").Rows[0])
	}
}
