package cli_test

import (
	"strings"
	"testing"
)

// TestEngineFlagsOnlyWhereModelsAreCalled: a command that calls no model
// refuses the engine's flags and hides them from its help; a command that
// says it calls models (its annotation, no list elsewhere) takes them.
func TestEngineFlagsOnlyWhereModelsAreCalled(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := runCLI(t, dir, "runs", "--concurrency", "4"); err == nil || !strings.Contains(err.Error(), "does nothing for `fallacylab runs`") {
		t.Fatalf("runs --concurrency: %v", err)
	}
	out, _, err := runCLI(t, dir, "runs", "--help")
	if err != nil || strings.Contains(out, "--concurrency") {
		t.Fatalf("runs --help shows the engine's flags (%v):\n%s", err, out)
	}
	out, _, err = runCLI(t, dir, "deflect", "run", "--help")
	if err != nil || !strings.Contains(out, "--concurrency") {
		t.Fatalf("deflect run --help hides the engine's flags (%v):\n%s", err, out)
	}
	if _, _, err := runCLI(t, dir, "ask", "--dry-run", "--concurrency", "2", "openai:gpt-4.1", "hi"); err != nil && strings.Contains(err.Error(), "does nothing") {
		t.Fatalf("ask refused an engine flag: %v", err)
	}
}
