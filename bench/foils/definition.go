package foils

import (
	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/detect"
	"github.com/fallacylab/fallacylab/engine"
)

// Definition registers the Scheme Foils audit. Whether a detector's answer
// is usable depends on the detector (its label set, typed or binary), so the
// detection phase's Usable is the detector's own parser, given by the caller.
var Definition = &bench.Benchmark{
	Name:    "foils",
	Title:   "Scheme Foils",
	Summary: "audit a fallacy detector on valid arguments that use a fallacy's scheme",
	Phases: []bench.Phase{
		{Name: "detection", Hint: "the detector's labels are not the audit's (none or one of the eight types) — does its label set match, or its prompt's answer format?"},
	},
}

// GenerateDefinition registers the generation of new Scheme Foils negatives:
// a generator writes candidates, a judge of another lineage answers yes or no.
var GenerateDefinition = &bench.Benchmark{
	Name:    "foils-generate",
	Title:   "Scheme Foils generation",
	Summary: "write scheme-matched and wrong-scheme valid negatives and filter them with a cross-lineage judge",
	Phases: []bench.Phase{
		{Name: "generation"},
		{Name: "judging", Hint: "the judge does not answer yes or no — is this model able to follow the judging prompt?",
			Usable: func(r engine.Result) bool {
				_, ok := detect.ParseBinary(r.Response.Text)
				return ok
			}},
	},
}

// Task is Scheme Foils as the registry holds it.
type Task struct{}

// Definition implements bench.Task.
func (Task) Definition() *bench.Benchmark { return Definition }

// What the Task implements, checked by the compiler (Caddy's interface
// guards).
var (
	_ bench.Commands = Task{}
	_ bench.Runs     = Task{}
	_ bench.Reports  = Task{}
	_ bench.Helps    = Task{}
	_ bench.Views    = Task{}
)

var _ = bench.RegisterTask(Task{})
