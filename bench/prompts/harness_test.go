package prompts_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/bench/benchtest"
)

// TestRunThroughTheHarness: a prompt set run as a user runs it writes
// every answer, and the same command again pays for nothing.
func TestRunThroughTheHarness(t *testing.T) {
	h := benchtest.New(t, nil)
	in, out := filepath.Join(h.Dir, "set.jsonl"), filepath.Join(h.Dir, "answers.jsonl")
	if err := os.WriteFile(in, []byte(`{"id": "a", "prompt": "first"}
{"id": "b", "prompt": "second"}
{"id": "c", "prompt": "third"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	h.Run("prompts", "run", in, "--models", "openai:gpt-4.1-mini,anthropic:claude-haiku-4-5", "--out", out)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(b), "\n"); lines != 6 || !strings.Contains(string(b), "echo: second") {
		t.Fatalf("%d answers, want 3 prompts × 2 models:\n%s", lines, b)
	}
	calls := h.Calls()
	h.Run("prompts", "run", in, "--models", "openai:gpt-4.1-mini,anthropic:claude-haiku-4-5", "--out", out)
	if h.Calls() != calls {
		t.Fatalf("the same command again made %d calls", h.Calls()-calls)
	}
}
