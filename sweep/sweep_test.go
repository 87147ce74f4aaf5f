package sweep

import (
	"reflect"
	"strings"
	"testing"
)

// TestExpand: every combination of the swept flags, the first slowest,
// after the global flags and the entry's own options; lists joined by
// commas; arguments last.
func TestExpand(t *testing.T) {
	p, err := Parse("p.yaml", []byte(`store: runs.db
flags: {concurrency: 4}
runs:
  - benchmark: classify
    options: {limit: 40, models: [a, b]}
    sweep:
      model: [m1, m2]
      seed: [1, 2, 3]
  - benchmark: prompts
    command: run
    args: [set.jsonl]
`))
	if err != nil {
		t.Fatal(err)
	}
	runs := p.Expand()
	if len(runs) != 7 {
		t.Fatalf("%d runs, want 2 × 3 + 1", len(runs))
	}
	want := []string{"--db", "runs.db", "--concurrency=4", "classify", "run", "--limit=40", "--models=a,b", "--model=m1", "--seed=2"}
	if !reflect.DeepEqual(runs[1].Command, want) || runs[3].Swept[0].Value != "m2" || runs[3].Swept[1].Value != "1" {
		t.Fatalf("runs[1] %q, runs[3] swept %v", runs[1].Command, runs[3].Swept)
	}
	if last := runs[6].Command; last[len(last)-1] != "set.jsonl" || runs[6].Entry != 1 {
		t.Fatalf("last run %q", last)
	}
}

// TestParseRefuses: each mistake is named by its line and field.
func TestParseRefuses(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{"", "p.yaml:1: the file is empty"},
		{"- a\n", "p.yaml:1: the file must be a mapping"},
		{"runs: []\n", "p.yaml:1: runs: a list of at least one run"},
		{"stor: x\nruns: [{benchmark: a}]\n", "p.yaml:1: stor: unknown key"},
		{"runs:\n  - options: {limit: 1}\n", "p.yaml:2: runs[0].benchmark: missing"},
		{"runs:\n  - benchmark: a\n    sweep: {model: m}\n", "p.yaml:3: runs[0].sweep.model: a list of the values"},
		{"runs:\n  - benchmark: a\n    options: {x: {y: 1}}\n", "p.yaml:3: runs[0].options.x: a value, or a list"},
		{"runs:\n  - benchmark: a\n    options: {seed: 1}\n    sweep: {seed: [1, 2]}\n", "p.yaml:4: runs[0].sweep.seed: also given under options"},
		{"runs:\n  - benchmark: a\n    models: [x]\n", "p.yaml:3: runs[0].models: unknown key"},
	} {
		_, err := Parse("p.yaml", []byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.doc, err, c.want)
		}
	}
}

// TestWriteReadsBack: what Write writes parses back to the same runs,
// values with quotes, colons and spaces included.
func TestWriteReadsBack(t *testing.T) {
	e := Entry{Benchmark: "foils", Command: "audit", Args: []string{"a file.jsonl"},
		Options: []Option{{Name: "detector", Value: "llm:openai:gpt-4.1:typed"}, {Name: "note", Value: `say "hi": # not a comment`}}}
	b := Write("postgres://u@h/db", map[string]string{"concurrency": "8"}, []Entry{e})
	p, err := Parse("w.yaml", b)
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	got := p.Expand()[0].Command
	want := []string{"--db", "postgres://u@h/db", "--concurrency=8", "foils", "audit", "--detector=llm:openai:gpt-4.1:typed", `--note=say "hi": # not a comment`, "a file.jsonl"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read back %q, want %q\n%s", got, want, b)
	}
}
