// Package mafalda is MAFALDA's span task (Helwe et al., NAACL 2024;
// ChadiHelwe/MAFALDA): a model is asked about each sentence of a text
// whether it is part of a fallacious argument and, if so, of which
// fallacy; consecutive sentences given one label make a predicted span,
// scored against a gold standard whose spans may carry several
// acceptable labels (a disjunction) at three levels — fallacy or not
// (0), emotion / logic / credibility (1), and 23 fallacies (2).
//
// Upstream's prompts, answer parsing, segmentation and metric
// (src/evaluate.py, src/new_metrics.py, src/metrics.py) are ported
// exactly: the tests score upstream's released prediction files as its
// own code does, and its published table (testdata/make_reference.py).
//
// It is one Task (bench.Task) and one line of bench/all. The gold standard
// states no licence: it is read from the data folder, never embedded.
package mafalda

import (
	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/engine"
)

// Name is the Task's one name: the store's, the command's.
const Name = "mafalda"

// Record kinds, in the store.
const (
	// KindText is one text: its gold spans and the model's answer about
	// each of its sentences.
	KindText = Name + "/text"
	// KindSetup is the run's options and how many texts it covers.
	KindSetup = Name + "/setup"
)

// Definition is the registered benchmark.
var Definition = &bench.Benchmark{
	Name:    Name,
	Title:   "MAFALDA",
	Summary: "a model labels each sentence of a text with the fallacy it is part of (if any): span precision, recall and F1 at three levels, as upstream scores them",
	Phases: []bench.Phase{{Name: "sentences",
		Hint: "the answers name no fallacy and do not say none — does the model answer with fallacy names, as the prompt asks?",
		Usable: func(r engine.Result) bool {
			m, ok := r.Job.Meta.(meta)
			return !ok || !unknownOnly(Labels(r.Response.Text, m.Level), m.Level)
		}}},
}

// Task is the benchmark as the registry holds it.
type Task struct{}

// Definition implements bench.Task.
func (Task) Definition() *bench.Benchmark { return Definition }

var (
	_ bench.Runs    = Task{}
	_ bench.Reports = Task{}
	_ bench.Lists   = Task{}
)

var _ = bench.RegisterTask(Task{})

// unknownOnly says whether labels are the unknown label alone (the answer
// named nothing upstream reads).
func unknownOnly(labels []int, level int) bool {
	return len(labels) == 1 && labels[0] == Unknown(level)
}
