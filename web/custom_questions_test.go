package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/study"
)

// TestStudioAsksCustomQuestions (#27 item 18): a text question is a text
// box, a likert one a scale of choices, and one asked only when another
// has an answer says so; a save needs the text only when its condition
// holds (the draft kept, the page saying what is open), and stores it.
func TestStudioAsksCustomQuestions(t *testing.T) {
	st, runID, _ := seed(t, []string{"model-a"}, 1)
	ctx := context.Background()
	c, err := study.ParseCustom([]byte(`questions:
  - {id: on_topic, text: "On topic?", choices: [{key: "1", label: "yes"}, {key: "0", label: "no"}]}
  - {id: quality, text: "How good?", type: likert, scale: 3, low: poor, high: fine}
  - {id: why, text: "What is off topic?", type: text, when: {question: on_topic, is: "0"}}
`), "q.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := study.Study{RunID: runID, Kind: study.RecordsKind, Name: "custom", Questions: c.Questions, Created: time.Now(),
		Items:      []study.Item{{Key: "r1", Text: "an answer"}, {Key: "r2", Text: "another"}},
		Annotators: []study.Annotator{{Name: "ana", Token: "ana-token", Order: []string{"r1", "r2"}}}}
	id, err := st.PutStudy(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	h := viewer(t, st)
	do := visitor(h)
	do("GET", "/annotate/login/ana-token", nil)
	page := do("GET", "/annotate/1", nil).Body.String()
	for _, want := range []string{`<textarea name="q_why"`, "only if “On topic?” is answered “no”", `value="3"`, "3 — fine"} {
		if !strings.Contains(page, want) {
			t.Fatalf("the item page lacks %q:\n%s", want, page)
		}
	}
	tok := regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`).FindStringSubmatch(page)[1]
	if got := do("POST", "/annotate/1", url.Values{"csrf": {tok}, "q_on_topic": {"0"}, "q_quality": {"2"}, "q_why": {"  "}}); got.Code != 422 || !strings.Contains(got.Body.String(), "“What is off topic?”") {
		t.Fatalf("off topic without saying why: %d\n%s", got.Code, got.Body.String())
	}
	if got := do("POST", "/annotate/1", url.Values{"csrf": {tok}, "q_on_topic": {"0"}, "q_quality": {"2"}, "q_why": {" it talks of cats "}}); got.Code != http.StatusSeeOther {
		t.Fatalf("a full answer: %d\n%s", got.Code, got.Body.String())
	}
	if got := do("POST", "/annotate/2", url.Values{"csrf": {tok}, "q_on_topic": {"1"}, "q_quality": {"3"}}); got.Code != http.StatusSeeOther {
		t.Fatalf("on topic, why not asked: %d\n%s", got.Code, got.Body.String())
	}
	anns, _ := st.Annotations(ctx, id)
	got := map[string]map[string]string{}
	for _, a := range anns {
		got[a.Item] = a.Answers
	}
	if got["r1"]["why"] != "it talks of cats" || got["r1"]["quality"] != "2" || got["r2"]["why"] != "" || got["r2"]["on_topic"] != "1" {
		t.Fatalf("stored %v", got)
	}
}

// TestStudioAsksMultiQuestions (#27 item 18): a multi question is a set of
// check boxes; the boxes ticked are stored in the choices' order, a save
// with none ticked keeps the draft and says what is open, and the page
// shows the ticked boxes again.
func TestStudioAsksMultiQuestions(t *testing.T) {
	st, runID, _ := seed(t, []string{"model-a"}, 1)
	ctx := context.Background()
	c, err := study.ParseCustom([]byte(`questions:
  - {id: flaws, text: "Which flaws?", type: multi, choices: [{key: h, label: hedging}, {key: a, label: attack}, {key: s, label: strawman}]}
`), "q.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := study.Study{RunID: runID, Kind: study.RecordsKind, Name: "multi", Questions: c.Questions, Created: time.Now(),
		Items:      []study.Item{{Key: "r1", Text: "an answer"}},
		Annotators: []study.Annotator{{Name: "ana", Token: "ana-token", Order: []string{"r1"}}}}
	id, err := st.PutStudy(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	do := visitor(viewer(t, st))
	do("GET", "/annotate/login/ana-token", nil)
	page := do("GET", "/annotate/1", nil).Body.String()
	if n := strings.Count(page, `type="checkbox" name="q_flaws"`); n != 3 {
		t.Fatalf("%d check boxes:\n%s", n, page)
	}
	tok := regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`).FindStringSubmatch(page)[1]
	if got := do("POST", "/annotate/1", url.Values{"csrf": {tok}}); got.Code != 422 || !strings.Contains(got.Body.String(), "“Which flaws?”") {
		t.Fatalf("nothing ticked: %d", got.Code)
	}
	if got := do("POST", "/annotate/1", url.Values{"csrf": {tok}, "q_flaws": {"s", "h"}}); got.Code != http.StatusSeeOther {
		t.Fatalf("two ticked: %d\n%s", got.Code, got.Body.String())
	}
	anns, _ := st.Annotations(ctx, id)
	if len(anns) != 1 || anns[0].Answers["flaws"] != "h,s" {
		t.Fatalf("stored %+v", anns)
	}
	page = do("GET", "/annotate/1", nil).Body.String()
	if n := strings.Count(page, `checked>`); n != 2 {
		t.Fatalf("%d boxes shown ticked, want 2", n)
	}
}
