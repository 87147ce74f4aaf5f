package cli_test

import (
	"database/sql"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/bench/missci"
	"github.com/fallacylab/fallacylab/llm/llmtest"
)

var updateGolden = flag.Bool("update", false, "rewrite internal/cli/testdata/golden")

// golden compares a produced file with testdata/golden/name after replacing
// the temporary directory by $WORK and the build version by (version).
func golden(t *testing.T, dir, produced, name string) {
	t.Helper()
	data, err := os.ReadFile(produced)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(string(data), dir, "$WORK")
	got = versionLine.ReplaceAllString(got, "${1}(version)")
	path := filepath.Join("testdata", "golden", name)
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./internal/cli -run TestGoldenReports -update creates it)", err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("%s differs from %s at line %d:\n got: %.300s\nwant: %.300s", produced, path, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s differs from %s: %d lines, want %d", produced, path, len(gl), len(wl))
	}
}

// missciScripted answers every reconstruction prompt of the dev split with
// the first gold class for even-numbered arguments and unparseable text for
// the others, and classifies gold premises correctly.
func missciScripted(t *testing.T) func(llmtest.Call) llmtest.Reply {
	args, err := missci.Load("dev")
	if err != nil {
		t.Fatal(err)
	}
	gen, _ := missci.Template("gen_cls/p4-connect-D")
	cls, _ := missci.Template("cls_with_premise/classify-D")
	answer := map[string]string{}
	for i, a := range args {
		for _, l := range a.Lines {
			p, err := missci.Fill("gen_cls/p4-connect-D", gen, a.Claim, l.Context, a.P0, "")
			if err != nil {
				t.Fatal(err)
			}
			if i%2 == 0 {
				answer[p] = "1. Fallacious Premise: \"the study's sample speaks for everyone\"; Applied Fallacy Class: " + promptName(l.Fallacies[0].Class) + ".\n" +
					"2. Fallacious Premise: \"correlation is cause\"; Applied Fallacy Class: False Equivalence."
			} else {
				answer[p] = "I am not sure."
			}
		}
	}
	for _, u := range missci.GoldPremiseUnits(args) {
		for _, a := range args {
			for _, l := range a.Lines {
				if l.ID == u.LineID {
					p, _ := missci.Fill("cls_with_premise/classify-D", cls, a.Claim, l.Context, a.P0, u.Premise)
					answer[p] = "Fallacy: " + promptName(u.Gold)
				}
			}
		}
	}
	return func(c llmtest.Call) llmtest.Reply {
		if a, ok := answer[c.Prompt]; ok {
			return llmtest.Reply{Text: a}
		}
		return scripted(c)
	}
}

// TestGoldenReports pins the reports of every benchmark, from model runs,
// the store and files, byte for byte: a redesign must leave them unchanged.
func TestGoldenReports(t *testing.T) {
	_, dir := guaranteeEnv(t, missciScripted(t))
	os.WriteFile(filepath.Join(dir, "claims.jsonl"), []byte(fourClaims), 0o644)
	prompts := `{"id": "p1", "prompt": "Name a fallacy."}
{"id": "p2", "prompt": "Define red herring.", "temperature": 0}
`
	os.WriteFile(filepath.Join(dir, "prompts.jsonl"), []byte(prompts), 0o644)
	p := func(name string) string { return filepath.Join(dir, name) }
	steps := []struct {
		args   []string
		out    string // file the step writes, compared with testdata/golden/<golden>
		golden string
	}{
		{[]string{"deflect", "run", "--models", "openai:model-a,openai:model-b", "--judges", "anthropic:judge-a,gemini:judge-b", "--samples", "2", "--claims", p("claims.jsonl")}, "", ""},
		{[]string{"deflect", "report", "--format", "md", "--resamples", "200", "--out", p("deflect-run.md")}, p("deflect-run.md"), "deflect-run.md"},
		{[]string{"deflect", "report", "--format", "json", "--resamples", "200", "--out", p("deflect-run.json")}, p("deflect-run.json"), "deflect-run.json"},
		{[]string{"deflect", "report", "--format", "html", "--resamples", "100", "--out", p("deflect-run.html")}, p("deflect-run.html"), "deflect-run.html"},
		{[]string{"deflect", "synth", "--models", "m-one,m-two", "--samples", "1", "--out", p("syn")}, "", ""},
		{[]string{"deflect", "report", "--generations", p("syn/generations.jsonl"), "--evals", p("syn/evals.jsonl"), "--format", "md", "--resamples", "100", "--out", p("deflect-files.md")}, p("deflect-files.md"), "deflect-files.md"},
		{[]string{"deflect", "import", "--generations", p("syn/generations.jsonl"), "--evals", p("syn/evals.jsonl")}, "", ""},
		{[]string{"deflect", "report", "--format", "md", "--resamples", "100", "--compat", "deflectbench-code", "--out", p("deflect-import.md")}, p("deflect-import.md"), "deflect-import.md"},
		{[]string{"foils", "audit", "--resamples", "300", "--permutations", "300", "--out", p("foils.md")}, p("foils.md"), "foils.md"},
		{[]string{"foils", "audit", "--resamples", "300", "--permutations", "300", "--format", "json", "--out", p("foils.json")}, p("foils.json"), "foils.json"},
		{[]string{"missci", "run", "--model", "openai:gpt-4.1", "--split", "dev", "--max-unusable", "0.6", "--out", p("missci-run.md")}, p("missci-run.md"), "missci-run.md"},
		{[]string{"missci", "report", "--k", "all", "--out", p("missci-report.md")}, p("missci-report.md"), "missci-report.md"},
		{[]string{"missci", "run", "--task", "classify-gold", "--model", "openai:gpt-4.1", "--split", "dev", "--out", p("missci-cls.md")}, p("missci-cls.md"), "missci-cls.md"},
		{[]string{"missci", "baseline", "random", "--premise", "p0", "--split", "dev", "--out", p("missci-random.md")}, p("missci-random.md"), "missci-random.md"},
		{[]string{"missci", "human-eval", "--p-at-1", "GPT 4/definition=0.317", "--format", "json", "--out", p("missci-human.json")}, p("missci-human.json"), "missci-human.json"},
		{[]string{"prompts", "run", p("prompts.jsonl"), "--models", "openai:gpt-4.1-mini,anthropic:claude-haiku-4-5", "--samples", "2", "--out", p("prompts.jsonl.out")}, p("prompts.jsonl.out"), "prompts.jsonl"},
	}
	for _, s := range steps {
		if _, stderr, err := runCLI(t, dir, s.args...); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(s.args, " "), err, stderr)
		}
		if s.out != "" {
			golden(t, dir, s.out, s.golden)
		}
	}
	// Records name their calls; answers made by calls are stored once, in calls.
	db, err := sql.Open("sqlite", filepath.Join(dir, "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []struct{ name, query string }{
		{"generations referencing their call", `SELECT COUNT(*) FROM records WHERE run_id = 1 AND kind = 'deflect/generation' AND call_key IS NOT NULL AND json_extract(body, '$.response') = ''`},
		{"judgements referencing their call", `SELECT COUNT(*) FROM records WHERE run_id = 1 AND kind = 'deflect/eval' AND call_key IS NOT NULL AND json_extract(body, '$.raw') IS NULL`},
		{"reconstructions referencing their call", `SELECT COUNT(*) FROM records r JOIN runs ON runs.id = r.run_id WHERE runs.benchmark = 'missci' AND r.kind = 'missci/line' AND call_key IS NOT NULL`},
		{"imported generations keeping their text", `SELECT COUNT(*) FROM records WHERE run_id = 2 AND kind = 'deflect/generation' AND call_key IS NULL AND json_extract(body, '$.response') <> ''`},
	} {
		var n int
		if err := db.QueryRow(q.query).Scan(&n); err != nil || n == 0 {
			t.Fatalf("%s: %d (%v)", q.name, n, err)
		}
	}
	for _, q := range []string{`SELECT COUNT(*) FROM records WHERE kind = 'deflect/generation' AND call_key IS NOT NULL AND json_extract(body, '$.response') <> ''`,
		`SELECT COUNT(*) FROM records WHERE kind = 'deflect/eval' AND call_key IS NOT NULL AND json_extract(body, '$.raw') IS NOT NULL`, `SELECT COUNT(*) FROM labels`} {
		var n int
		if err := db.QueryRow(q).Scan(&n); err != nil || n != 0 {
			t.Fatalf("%s: %d (%v), want 0: an answer is stored twice, or records are still labels", q, n, err)
		}
	}
}
