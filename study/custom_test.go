package study

import (
	"strings"
	"testing"
)

// TestParseCustom (#27 item 18): a records study's YAML gives choice,
// likert and text questions, optional ones and ones asked only when
// another has an answer; a mistake is refused with the file and line.
func TestParseCustom(t *testing.T) {
	good := `show: [answer]
questions:
  - id: on_topic
    text: Does the answer address the prompt?
    choices: [{key: "1", label: "yes"}, {key: "0", label: "no"}]
    positive: "1"
  - id: quality
    text: How good is it?
    type: likert
    scale: 5
    low: poor
    high: excellent
  - id: why
    text: What is off-topic in it?
    type: text
    when: {question: on_topic, is: "0"}
`
	c, err := ParseCustom([]byte(good), "q.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Questions) != 3 || c.Show[0] != "answer" {
		t.Fatalf("%+v", c)
	}
	q := c.Questions[1]
	if q.Type != Likert || len(q.Choices) != 5 || q.Choices[0].Label != "1 — poor" || q.Choices[4].Label != "5 — excellent" || q.Choices[2].Key != "3" {
		t.Fatalf("likert: %+v", q)
	}
	why := c.Questions[2]
	if why.Coded() || !why.Accepts("too long") || why.Accepts("  ") {
		t.Fatalf("text question: %+v", why)
	}
	if why.Needed(map[string]string{"on_topic": "1"}) || !why.Needed(map[string]string{"on_topic": "0"}) {
		t.Fatal("a question asked when on_topic is 0 is needed otherwise too (or not then)")
	}
	for _, c := range []struct{ yaml, want string }{
		{"questions:\n  - id: a\n    text: t\n    choices: [{key: x, label: x}]\n", "q.yaml line 2: question \"a\": choices: give two or more"},
		{"questions:\n  - id: a\n    text: t\n    type: likert\n    scale: 5\n    choices: [{key: x, label: x}]\n", "line 2: question \"a\": a likert question has a scale"},
		{"questions:\n  - id: a\n    text: t\n    type: stars\n", "line 2: question \"a\": type \"stars\""},
		{"questions:\n  - id: a\n    text: t\n    type: text\n    when: {question: b, is: \"1\"}\n", "line 2: question \"a\": when: name an earlier choice question"},
		{"questions:\n  - id: a\n    txt: t\n", "line 3: field txt not found"},
		{"show: [answer]\n", "no questions"},
	} {
		if _, err := ParseCustom([]byte(c.yaml), "q.yaml"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.yaml, err, c.want)
		}
	}
}

// A choice may be a word alone, its key and its label (choices: [yes,
// no]); it was an unmarshal error naming a Go type.
func TestParseCustomShortChoices(t *testing.T) {
	c, err := ParseCustom([]byte("questions:\n  - id: ok\n    text: Is it right?\n    choices: [yes, no, {key: u, label: unsure, help: can't tell}]\n"), "q.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got := c.Questions[0].Choices
	if len(got) != 3 || got[0] != (Choice{Key: "yes", Label: "yes"}) || got[1].Key != "no" || got[2] != (Choice{Key: "u", Label: "unsure", Help: "can't tell"}) {
		t.Fatalf("%+v", got)
	}
	if _, err := ParseCustom([]byte("questions:\n  - id: ok\n    text: t\n    choices: [yes, yes]\n"), "q.yaml"); err == nil || !strings.Contains(err.Error(), "each needs a key of its own") {
		t.Fatal(err)
	}
}
