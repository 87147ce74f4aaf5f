package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/llm/llmtest"
)

// TestRecordsStudyWithCustomQuestions (#27 item 18): a prompt set's
// answers are studied with questions from a YAML file — a choice, a
// likert scale and a text question asked only when the answer is off
// topic. The items show the answer and nothing else (the model hidden);
// a sheet's answers go in (the text one only where asked); the report
// gives agreement on the coded questions and none on the free text. A
// --questions file for a built-in kind, or a records study without one,
// is refused.
func TestRecordsStudyWithCustomQuestions(t *testing.T) {
	dir := t.TempDir()
	testServer(t, dir, llmtest.Options{Respond: func(c llmtest.Call) llmtest.Reply { return llmtest.Reply{Text: "answer to " + c.Prompt} }})
	t.Setenv("OPENAI_API_KEY", "test-key")
	promptFile(t, dir, "plan.jsonl", 4, "records study prompt")
	if _, stderr, err := runCLI(t, dir, "prompts", "run", filepath.Join(dir, "plan.jsonl"), "--models", "openai:gpt-4.1-mini", "--out", filepath.Join(dir, "out.jsonl")); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	q := filepath.Join(dir, "q.yaml")
	os.WriteFile(q, []byte(`show: [answer]
questions:
  - id: on_topic
    text: Does the answer address the prompt?
    choices: [{key: "1", label: "yes"}, {key: "0", label: "no"}]
  - id: quality
    text: How good is it?
    type: likert
    scale: 3
  - id: why
    text: What is off-topic in it?
    type: text
    when: {question: on_topic, is: "0"}
`), 0o644)
	if _, _, err := runCLI(t, dir, "study", "create", "--run", "1", "--kind", "records", "--annotators", "ana,ben"); err == nil || !strings.Contains(err.Error(), "--questions") {
		t.Fatalf("a records study without --questions: %v", err)
	}
	if out, stderr, err := runCLI(t, dir, "study", "create", "--run", "1", "--kind", "records", "--questions", q, "--annotators", "ana,ben"); err != nil {
		t.Fatalf("%v %s\n%s", err, out, stderr)
	}
	_, recs := exportSheet(t, dir, "1")
	hdr := strings.Join(recs[0], ",")
	if !strings.Contains(hdr, "on_topic (1/0),quality (1/2/3),why") {
		t.Fatalf("sheet header %s", hdr)
	}
	for _, r := range recs[1:] {
		if !strings.HasPrefix(r[4], "answer to records study prompt") || strings.Contains(r[4], "gpt-4.1-mini") {
			t.Fatalf("an item shows %q", r[4])
		}
	}
	// ana: on topic, quality 3, everywhere; ben: the first two off topic
	// (with why), the rest on topic; quality 3 and 2.
	n := map[string]int{}
	for i, r := range recs[1:] {
		k := n[r[0]]
		n[r[0]]++
		r[5], r[6], r[7], r[9] = "1", "3", "", "answered"
		if r[0] == "ben" {
			r[6] = []string{"3", "2"}[k%2]
			if k < 2 {
				r[5], r[7] = "0", "it answers another question"
			}
		}
		recs[i+1] = r
	}
	if out, stderr, err := importRows(t, dir, "sheet.csv", recs); err != nil {
		t.Fatalf("%v %s\n%s", err, out, stderr)
	}
	// A sheet leaving why open where on_topic is 0 is refused.
	recs[1+4][7] = "" // ben's first row (ana has 4)
	if _, _, err := importRows(t, dir, "sheet.csv", recs, "--overwrite"); err == nil || !strings.Contains(err.Error(), "why") {
		t.Fatalf("a needed text answer left open: %v", err)
	}
	rep, _, err := runCLI(t, dir, "study", "report", "1", "--resamples", "50")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| on_topic | 4 | 0.500 ", "| quality | 4 | 0.500 ", "| why | 0 | – |"} {
		if !strings.Contains(rep, want) {
			t.Fatalf("the report lacks %q:\n%s", want, rep)
		}
	}
	if _, _, err := runCLI(t, dir, "study", "create", "--run", "1", "--kind", "deflect-rubric", "--fields", "refusal", "--questions", q, "--annotators", "ana"); err == nil {
		t.Fatal("--questions for a built-in kind accepted")
	}
}
