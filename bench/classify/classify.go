// Package classify is fallacy classification on the labelled corpora — the
// evaluation most fallacy-detection papers report (LOGIC and LogicClimate,
// Jin et al. 2022; CoCoLoFa; MAFALDA at the text level; Argotario; the
// Reddit corpus of Sahai et al. 2021): a model names the fallacy of each
// text of a split, one call each, under a zero-shot, definitions or
// few-shot prompt; the report gives accuracy and macro-F1 with bootstrap
// intervals over texts, per-class precision, recall and F1, the confusion
// matrix and the answers that named no label.
//
// It is one Task (bench.Task) and one line of bench/all: the runner runs
// it, the store keeps its records by kind, and the commands
// `fallacylab classify run|report` are made from what it declares here.
package classify

import (
	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/engine"
)

// Name is the Task's one name: the store's, the command's.
const Name = "classify"

// Record kinds, in the store.
const (
	// KindPrediction is one text's gold and predicted label.
	KindPrediction = Name + "/prediction"
	// KindSetup is the run's corpus, split, template, model and label set.
	KindSetup = Name + "/setup"
)

// Definition is the registered benchmark.
var Definition = &bench.Benchmark{
	Name:    Name,
	Title:   "Fallacy classification",
	Summary: "a model names the fallacy of each text of a labelled corpus: accuracy, macro-F1, per-class scores, confusion",
	Phases: []bench.Phase{{Name: "classification",
		Hint:   "the answers name none of the corpus's labels — does the model answer with the label alone, as the prompt asks?",
		Usable: func(r engine.Result) bool { _, ok := labelsOfJob(r.Job).Parse(r.Response.Text); return ok }}},
}

// Task is the benchmark as the registry holds it.
type Task struct{}

// Definition implements bench.Task.
func (Task) Definition() *bench.Benchmark { return Definition }

// What the Task implements, checked by the compiler (Caddy's interface
// guards).
var (
	_ bench.Runs    = Task{}
	_ bench.Reports = Task{}
	_ bench.Lists   = Task{}
)

var _ = bench.RegisterTask(Task{})
