package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/bench/foils"
	"github.com/fallacylab/fallacylab/llm/llmtest"
)

func TestFoilsGenerateEndToEnd(t *testing.T) {
	srv := llmtest.New(llmtest.Options{APIKey: "test-key", Respond: func(c llmtest.Call) llmtest.Reply {
		if strings.HasPrefix(c.System, "You are a careful judge") {
			// The judge rejects scheme fidelity for hasty generalization
			// only when the generated argument comes first (order matters),
			// and finds every register off.
			if strings.Contains(c.Prompt, "same argumentation scheme (argument from a sample") && strings.HasPrefix(c.Prompt, "Argument A: Generated") {
				return llmtest.Reply{Text: "No."}
			}
			if strings.Contains(c.Prompt, "online comment") {
				return llmtest.Reply{Text: "no"}
			}
			return llmtest.Reply{Text: "Yes"}
		}
		return llmtest.Reply{Text: "Generated valid argument " + c.Prompt[len(c.Prompt)-20:]}
	}})
	defer srv.Close()
	dir := t.TempDir()
	writeConfig(dir, srv)
	for _, k := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"} {
		t.Setenv(k, "test-key")
	}
	out := filepath.Join(dir, "gen")
	stdout, stderr, err := runCLI(t, dir, "foils", "generate", "--corpus", "argotario", "--generator", "gemini:gen", "--judge", "openai:judge", "--limit", "3", "--out-dir", out)
	if err != nil {
		t.Fatalf("%v\n%s\n%s", err, stdout, stderr)
	}
	// Argotario has two of the eight types: 2 × 3 source items.
	if !strings.Contains(stdout, "matched: candidates=6 dropped: scheme_fidelity=3 kept=3 needs_review: register=3") ||
		!strings.Contains(stdout, "wrong_scheme: candidates=6 kept=6 needs_review: register=6") {
		t.Fatalf("counts:\n%s", stdout)
	}
	for _, x := range []struct {
		file, cond string
		n          int
	}{{"matched.csv", foils.Matched, 3}, {"wrong.csv", foils.WrongScheme, 6}} {
		f, err := os.Open(filepath.Join(out, x.file))
		if err != nil {
			t.Fatal(err)
		}
		got, err := foils.ParseFoils(f, x.file, x.cond, "argotario")
		f.Close()
		if err != nil || len(got) != x.n {
			t.Fatalf("%s: %d rows, %v", x.file, len(got), err)
		}
	}
	// 12 generations + judge calls: matched 2+2+1+1, wrong 2+2+1 per item;
	// the scripted generator gives a source's matched and wrong-scheme items
	// the same text, so their 6 identical register questions are asked once.
	if n := len(srv.Ledger()); n != 12+6*6+6*5-6 {
		t.Fatalf("%d calls", n)
	}
	// Every candidate is stored with the run: its report counts them as
	// the run did, and the viewer's list shows them.
	rep, stderr, err := runCLI(t, dir, "foils", "generate", "report", "--format", "csv")
	if err != nil {
		t.Fatalf("foils generate report: %v\n%s", err, stderr)
	}
	for _, want := range []string{"matched,6,0.5,", ",6,3,3,scheme_fidelity 3", "wrong_scheme,6,1,"} {
		if !strings.Contains(rep, want) {
			t.Fatalf("the generation report lacks %q:\n%s", want, rep)
		}
	}
	if !strings.Contains(stdout, "fallacylab --db "+filepath.Join(dir, "f.db")+" foils generate report --run 1") {
		t.Fatalf("the run does not say how to report it:\n%s", stdout)
	}
	// The generated sets feed the audit.
	if _, stderr, err := runCLI(t, dir, "foils", "train", "--out", filepath.Join(dir, "m.json.gz")); err != nil {
		t.Fatal(err, stderr)
	}
	_, stderr, err = runCLI(t, dir, "foils", "audit", "--corpus", "argotario", "--detector", "model:"+filepath.Join(dir, "m.json.gz"),
		"--matched", filepath.Join(out, "matched.csv"), "--wrong", filepath.Join(out, "wrong.csv"), "--resamples", "50", "--permutations", "50")
	if err != nil || !strings.Contains(stderr, "dissociation:") {
		t.Fatalf("%v\n%s", err, stderr)
	}
}
