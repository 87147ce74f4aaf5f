package all_test

import (
	"testing"

	"github.com/fallacylab/fallacylab/bench"
	_ "github.com/fallacylab/fallacylab/bench/all"
)

// TestEveryBenchmarkIsRegistered: bench/all registers at least these (a new
// benchmark adds itself with its line), and every registered benchmark has
// a title, a summary, phases, and a hint for each phase that parses.
func TestEveryBenchmarkIsRegistered(t *testing.T) {
	names := map[string]bool{}
	for _, b := range bench.All() {
		names[b.Name] = true
		if b.Title == "" || b.Summary == "" || len(b.Phases) == 0 {
			t.Fatalf("benchmark %+v: want a title, a summary and phases", b)
		}
		for _, p := range b.Phases {
			if p.Usable != nil && p.Hint == "" {
				t.Errorf("%s phase %s parses answers but gives no hint when they are unusable", b.Name, p.Name)
			}
		}
	}
	for _, n := range []string{"deflect", "foils", "foils-generate", "missci", "prompts"} {
		if !names[n] {
			t.Fatalf("%s is not registered (have %v)", n, names)
		}
	}
	for _, task := range bench.Tasks() {
		if b, ok := bench.Lookup(task.Definition().Name); !ok || b != task.Definition() {
			t.Fatalf("task %s is not its registered benchmark", task.Definition().Name)
		}
	}
	if bench.Title("deflect") != "DeflectBench" || bench.Title("ask") != "ask" {
		t.Fatal("Title")
	}
}

// TestTasksDoWhatTheyMeanTo: every registered Task can be run (Runs,
// commands of its own, or runs imported from files) and shown (Lists or Views), and one that runs
// through the runner reports through it too.
func TestTasksDoWhatTheyMeanTo(t *testing.T) {
	for _, task := range bench.Tasks() {
		name := task.Definition().Name
		_, runs := task.(bench.Runs)
		_, reports := task.(bench.Reports)
		_, commands := task.(bench.Commands)
		_, lists := task.(bench.Lists)
		_, views := task.(bench.Views)
		_, ownInput := task.(bench.OwnInput)
		_, imports := task.(bench.Imports)
		switch {
		case !runs && !commands && !imports:
			t.Errorf("%s: neither Runs nor Commands: it cannot be run", name)
		case !lists && !views:
			t.Errorf("%s: neither Lists nor Views: the viewer cannot show its records", name)
		case runs && !reports && !ownInput:
			t.Errorf("%s: Runs without Reports", name)
		}
	}
}
