package cli_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fallacylab/fallacylab/lifecycle"
	"github.com/fallacylab/fallacylab/llm/llmtest"
)

// A budget is the most a run may ever cost: with answers ten times longer
// than any estimate, across both phases and five resumes, the run pays no
// more than its budget; a resume keeps the run's budget, and one that
// raises it says so and is held to the new one.
func TestBudgetIsACeiling(t *testing.T) {
	var mu sync.Mutex
	billed := 0.0 // what the provider charged, at the config's prices
	srv := llmtest.New(llmtest.Options{APIKey: "test-key", Respond: func(c llmtest.Call) llmtest.Reply {
		out := 5000
		if c.MaxTokens > 0 {
			out = min(out, c.MaxTokens)
		}
		mu.Lock()
		billed += (100*1 + float64(out)*100) / 1e6
		mu.Unlock()
		r := llmtest.Reply{InputTokens: 100, OutputTokens: 5000, Text: "A long deflection " + strings.Repeat("and more ", 20)}
		if strings.HasPrefix(c.System, judgeSystemStart) {
			r.Text = scripted(c).Text
		}
		return r
	}})
	defer srv.Close()
	dir := t.TempDir()
	cfg := fmt.Sprintf("endpoints:\n  openai:\n    base_url: %s/v1\nprices:\n  openai:b1: {input: 1, output: 100}\n  openai:b2: {input: 1, output: 100}\n  openai:bj: {input: 1, output: 100}\n", srv.URL)
	os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), []byte(cfg), 0o644)
	t.Setenv("OPENAI_API_KEY", "test-key")
	run := func(budget string) (string, error) {
		args := []string{"deflect", "run", "--models", "openai:b1,openai:b2", "--judges", "openai:bj", "--samples", "1", "--limit", "10", "--max-unusable", "-1"}
		if budget != "" {
			args = append([]string{"--budget", budget}, args...)
		}
		_, stderr, err := runCLI(t, dir, args...)
		return stderr, err
	}
	spent := func() float64 {
		mu.Lock()
		defer mu.Unlock()
		return billed
	}
	stderr, err := run("2")
	var ee *lifecycle.ExitError
	if !errors.As(err, &ee) || ee.Code != lifecycle.ExitBudget {
		t.Fatalf("the run at its budget: %v (want exit %d)\n%s", err, lifecycle.ExitBudget, stderr)
	}
	if s := spent(); s > 2 || s == 0 {
		t.Fatalf("a $2 budget paid $%.4f", s)
	}
	for i := range 5 {
		stderr, err := run("")
		if !errors.As(err, &ee) || ee.Code != lifecycle.ExitBudget || !strings.Contains(stderr, "keeps its budget of $2.0000") {
			t.Fatalf("resume %d: %v\n%s", i+1, err, stderr)
		}
		if s := spent(); s > 2 {
			t.Fatalf("after resume %d a $2 budget paid $%.4f", i+1, s)
		}
	}
	stderr, _ = run("3")
	if !strings.Contains(stderr, "budget raised from $2.0000 to $3.0000") {
		t.Fatalf("a raise is not said:\n%s", stderr)
	}
	if s := spent(); s > 3 || s <= 2 {
		t.Fatalf("raised to $3, the run paid $%.4f", s)
	}
	for range 3 {
		run("3")
	}
	if s := spent(); s > 3 {
		t.Fatalf("resumed at $3 four times, the run paid $%.4f", s)
	}
	runs, _, _ := runCLI(t, dir, "runs")
	if strings.Count(strings.TrimSpace(runs), "\n") != 1 {
		t.Fatalf("the resumes made new runs:\n%s", runs)
	}
}
