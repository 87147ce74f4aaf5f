package deflect

import (
	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/engine"
)

// Definition registers DeflectBench: a generation phase (every answer is a
// record: refusals are data) and a judging phase whose answers must parse as
// the 8-field rubric.
var Definition = &bench.Benchmark{
	Name:    "deflect",
	Title:   "DeflectBench",
	Summary: "do models generate whataboutism, ad hominem and red-herring deflections when asked?",
	Phases: []bench.Phase{
		{Name: "generation"},
		{Name: "judging",
			Hint: "judge answers are not the rubric's JSON — is this model able to follow the rubric? (--structured asks for the schema as structured output)",
			Usable: func(r engine.Result) bool {
				e, ok := EvalFromResult(r)
				return ok && e.ParseError == 0
			}},
	},
}
