package all_test

import (
	"reflect"
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

// TestTasksImplementWhatTheirMethodsSay: a Task with a method of an
// optional interface implements that interface — a method whose signature
// drifted from the contract (BindRun taking another flag set, Arms
// returning another type) would otherwise be silently not called, the
// Task losing its command or page without a word. The compile-time guards
// each Task declares (var _ bench.Runs = Task{}) catch it in the Task's
// package; this catches a Task that forgot its guard.
func TestTasksImplementWhatTheirMethodsSay(t *testing.T) {
	optional := []reflect.Type{
		reflect.TypeFor[bench.Runs](), reflect.TypeFor[bench.Reports](), reflect.TypeFor[bench.TakesArgs](),
		reflect.TypeFor[bench.ShowsReport](), reflect.TypeFor[bench.Sweeps](), reflect.TypeFor[bench.SweepTables](),
		reflect.TypeFor[bench.RunVerb](), reflect.TypeFor[bench.ReportsFiles](), reflect.TypeFor[bench.HoldsRuns](),
		reflect.TypeFor[bench.OwnInput](), reflect.TypeFor[bench.Helps](), reflect.TypeFor[bench.Lists](),
		reflect.TypeFor[bench.Views](), reflect.TypeFor[bench.Previews](), reflect.TypeFor[bench.Compares](),
		reflect.TypeFor[bench.Imports](), reflect.TypeFor[bench.Commands](),
	}
	task := reflect.TypeFor[bench.Task]()
	for _, tk := range bench.Tasks() {
		tt := reflect.TypeOf(tk)
		for _, it := range optional {
			for i := range it.NumMethod() {
				m := it.Method(i)
				if _, inTask := task.MethodByName(m.Name); inTask || inherited(it, m.Name, optional) {
					continue
				}
				if _, has := tt.MethodByName(m.Name); has && !tt.Implements(it) {
					t.Errorf("%s has %s but does not implement %s: its signature is not the contract's", tk.Definition().Name, m.Name, it)
				}
			}
		}
	}
}

// inherited says whether method name of interface it comes from another of
// the interfaces that it embeds (RunVerb's BindRun is Runs').
func inherited(it reflect.Type, name string, all []reflect.Type) bool {
	for _, o := range all {
		if o != it && it.Implements(o) {
			if _, ok := o.MethodByName(name); ok {
				return true
			}
		}
	}
	return false
}
