package missci

import (
	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/engine"
)

// Name is the Task's one name: the store's, the command's.
const Name = "missci"

const formatHint = "the answers do not follow the template's answer format (premise and fallacy class) — is this model able to follow it, or is --max-tokens too small?"

// Definition registers Missci: reconstruction answers must hold at least one
// premise and class the parser reads, classification answers a class.
var Definition = &bench.Benchmark{
	Name:    Name,
	Title:   "Missci",
	Summary: "reconstruct the fallacious premise behind misrepresented science, and name its fallacy class",
	Phases: []bench.Phase{
		{Name: "reconstruction", Hint: formatHint, Usable: func(r engine.Result) bool { return GenClsParsable(r.Response.Text) }},
		{Name: "classification", Hint: formatHint, Usable: func(r engine.Result) bool { return ClassifyParsable(r.Response.Text) }},
		{Name: "embedding", Hint: "the embeddings endpoint answered without one vector per text",
			Usable: func(r engine.Result) bool { return r.Response != nil && len(r.Response.Vectors) == 1 }},
		{Name: "scoring", Hint: "the scorer answered without one score per pair (docs/scorer-protocol.md)",
			Usable: func(r engine.Result) bool {
				return r.Response != nil && len(r.Response.Scores) == len(r.Job.Request.Score)
			}},
	},
}

// Task is Missci as the registry holds it.
type Task struct{}

// Definition implements bench.Task.
func (Task) Definition() *bench.Benchmark { return Definition }

// What the Task implements, checked by the compiler (Caddy's interface
// guards).
var (
	_ bench.Runs        = Task{}
	_ bench.ShowsReport = Task{}
	_ bench.Sweeps      = Task{}
	_ bench.Helps       = Task{}
	_ bench.Commands    = Task{}
	_ bench.Views       = Task{}
)

var _ = bench.RegisterTask(Task{})
