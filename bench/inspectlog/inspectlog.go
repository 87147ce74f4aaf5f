// Package inspectlog is the Task of runs imported from inspect_ai eval
// logs (fallacylab runs import --format inspect FILE): each sample of the
// log a record — its input, target, answer and scores — that the viewer
// lists, `fallacylab compare` compares item by item, and `fallacylab
// inspect-log report` reports. What a log holds beyond that (its events and
// model calls, tools, sandboxes, attachments) is not carried.
package inspectlog

import (
	"github.com/fallacylab/fallacylab/bench"
)

// Name is the benchmark's name.
const Name = "inspect-log"

// Record kinds.
const (
	// KindLog is the log's header: its task, model and scorers.
	KindLog = Name + "/log"
	// KindSample is one sample (one epoch of it).
	KindSample = Name + "/sample"
)

// Definition registers imported inspect logs.
var Definition = &bench.Benchmark{
	Name:    Name,
	Title:   "inspect_ai log (imported)",
	Summary: "an inspect_ai eval log imported as a run: its samples, answers and scores",
	Phases:  []bench.Phase{{Name: "import"}},
}

// Task is the benchmark as the registry holds it.
type Task struct{}

// Definition implements bench.Task.
func (Task) Definition() *bench.Benchmark { return Definition }

// What the Task implements, checked by the compiler (Caddy's interface
// guards).
var (
	_ bench.Imports  = Task{}
	_ bench.Lists    = Task{}
	_ bench.Compares = Task{}
	_ bench.Reports  = Task{}
)

var _ = bench.RegisterTask(Task{})

// Header is the log's header as a run keeps it.
type Header struct {
	File    string   `json:"file"`
	Task    string   `json:"task"`
	Model   string   `json:"model"`
	Status  string   `json:"status"`
	Created string   `json:"created"`
	Scorers []string `json:"scorers"`
	Samples int      `json:"samples"`
	// ClusterBy is the sample metadata field whose value clusters the
	// samples (the bootstrap and the tests resample clusters); "": each
	// sample id is its own cluster (its epochs move together).
	ClusterBy string `json:"cluster_by,omitempty"`
	// Unit is what a cluster is ("claim"), where the log says it
	// ("": ClusterBy names it, else "sample").
	Unit string `json:"unit,omitempty"`
	// Design and Judges are what a log fallacylab exported says of its
	// run: what its figures measure (bench.Arm's Design) and who judged
	// them; Of is the fallacylab benchmark it is a run of ("": none).
	Design string   `json:"design,omitempty"`
	Judges []string `json:"judges,omitempty"`
	Of     string   `json:"of,omitempty"`
	// NotRates are the scores a log fallacylab exported says are no rates
	// (a text's F1), though every value may be 0 or 1: shown as numbers
	// and compared with the sign-flip test, as their own runs are. Other
	// logs' scores are rates where every value is 0 or 1.
	NotRates []string `json:"not_rates,omitempty"`
	// Format is the file's format: "" (an inspect_ai log) or "eee".
	Format string `json:"format,omitempty"`
	// Dropped says what the log held that the run does not.
	Dropped []string `json:"dropped,omitempty"`
}

// Sample is one sample of the log (one epoch of it).
type Sample struct {
	ID     string `json:"id"`
	Epoch  int    `json:"epoch"`
	Input  string `json:"input"`
	Target string `json:"target"`
	Answer string `json:"answer"`
	// Scores are each scorer's value as a number (inspect's C, I, P, N
	// as 1, 0, 0.5, 0; a boolean as 1 or 0); Raw as the log wrote it.
	Scores map[string]float64 `json:"scores"`
	Raw    map[string]string  `json:"raw_scores,omitempty"`
	Error  string             `json:"error,omitempty"`
	// Cluster is the sample's value of the log's Header.ClusterBy field.
	Cluster string `json:"cluster,omitempty"`
}

// Key is the sample's item id: its id, and its epoch when the log has
// several.
func (s Sample) Key(epochs bool) string {
	if !epochs {
		return s.ID
	}
	return s.ID + "#" + itoa(s.Epoch)
}
