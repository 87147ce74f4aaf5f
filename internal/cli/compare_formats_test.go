package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/llm/llmtest"
)

// TestCompareEveryBenchmarkInEveryFormat (#44): two runs of Scheme Foils,
// Missci and MissciPlus, and two models inside one DeflectBench run,
// compare in every format, each naming its metric and test.
func TestCompareEveryBenchmarkInEveryFormat(t *testing.T) {
	_, dir := guaranteeEnv(t, func(c llmtest.Call) llmtest.Reply {
		switch {
		case strings.HasPrefix(c.Model, "judge"), strings.HasPrefix(c.Model, "model-"):
			return scripted(c)
		case strings.Contains(c.Prompt, "Fallacious Premise"):
			cls := map[string]string{"gpt-4.1": "Hasty Generalization", "gpt-4.1-mini": "Causal Oversimplification"}[c.Model]
			return llmtest.Reply{Text: "Fallacious Premise: the study proves it for everyone; Applied Fallacy Class: " + cls}
		}
		return llmtest.Reply{Text: "appeal to authority"}
	})
	os.WriteFile(filepath.Join(dir, "claims.jsonl"), []byte(fourClaims), 0o644)
	for _, r := range [][]string{
		{"foils", "audit", "--limit", "30", "--resamples", "50", "--permutations", "50"},                                                                                                  // 1
		{"foils", "audit", "--limit", "30", "--detector", "llm:openai:detector-model:typed", "--resamples", "50", "--permutations", "50"},                                                 // 2
		{"missci", "run", "--model", "openai:gpt-4.1", "--split", "dev", "--max-unusable", "0.6"},                                                                                         // 3
		{"missci", "run", "--model", "openai:gpt-4.1-mini", "--split", "dev", "--max-unusable", "0.6"},                                                                                    // 4
		{"missciplus", "run", "--subtask", "2", "--ranker", "random", "--seeds", "1"},                                                                                                     // 5
		{"missciplus", "run", "--subtask", "2", "--ranker", "random", "--seeds", "2"},                                                                                                     // 6
		{"deflect", "run", "--models", "openai:model-a,openai:model-b", "--judges", "anthropic:judge-a,gemini:judge-b", "--samples", "2", "--claims", filepath.Join(dir, "claims.jsonl")}, // 7
	} {
		if _, stderr, err := runCLI(t, dir, r...); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(r, " "), err, stderr)
		}
	}
	for _, c := range []struct {
		arms   []string
		metric string
	}{
		{[]string{"1", "2"}, "native FPR"},
		{[]string{"3", "4"}, "P@1"},
		{[]string{"5", "6"}, "P@1"},
		{[]string{"7:openai:model-a", "7:openai:model-b"}, "refusal"},
	} {
		for _, f := range []string{"md", "csv", "json", "tex", "html"} {
			out, stderr, err := runCLI(t, dir, append(append([]string{"compare"}, c.arms...), "--format", f, "--resamples", "50")...)
			if err != nil || !strings.Contains(out, c.metric) || !strings.Contains(out, "McNemar") && !strings.Contains(out, "sign-flip") {
				t.Fatalf("compare %v --format %s: %v\n%s\n%.1500s", c.arms, f, err, stderr, out)
			}
		}
	}
}
