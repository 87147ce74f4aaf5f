package teamtest_test

import (
	"testing"

	"github.com/fallacylab/fallacylab/bench/prompts"
	"github.com/fallacylab/fallacylab/internal/cli/clitest"
)

// promptFile writes a prompt set and returns each prompt by its call's
// cache key (clitest.PromptFile with the prompts benchmark's parser and plan).
func promptFile(t testing.TB, dir, name string, n int, text string) map[string]string {
	t.Helper()
	return clitest.PromptFile(t, dir, name, n, text, prompts.Parse, prompts.Plan)
}
