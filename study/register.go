package study

import (
	"context"
	"fmt"
	"io/fs"
	"sort"
	"sync"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store"
)

// KindSpec is a kind of study a benchmark's own package declares
// (RegisterKind), so that `study create`, the studio and `study report`
// serve it with no line of theirs naming it: what it asks, how its items
// are drawn from a stored run, and the figures of its own it adds to the
// report beside agreement and decoys.
type KindSpec struct {
	// Kind names it (study create --kind); Benchmark is the runs it
	// samples; Summary says what people are asked, for help.
	Kind      Kind
	Benchmark string
	Summary   string
	// Questions are what each item asks; Fields, when set, chooses them
	// from what --fields names instead (nil: --fields is refused).
	Questions []Question
	Fields    func(fields []string) ([]Question, error)
	// Strata are the keys --stratify takes (the first: the default).
	Strata []string
	// Items are a run's candidates and its decoys (items with a known
	// answer), drawn from its records. Facts are figures of the whole run
	// the analysis needs beside the sample (nil: none), kept with the
	// study.
	Items func(ctx context.Context, d Draw) (cands, decoys []Item, facts map[string]string, err error)
	// Corpus says the kind takes --corpus (which of a run's corpora).
	Corpus bool
	// LatestRun is the run `study create` studies when --run is not
	// given: the newest of the store's runs (newest first) that the kind
	// can sample, of the corpus when one is named ("": any). Nil: --run
	// is required.
	LatestRun func(ctx context.Context, rs Records, runs []store.Run, corpus string) (int64, error)
	// Analyze adds the kind's own sections to the study's report (nil:
	// none).
	Analyze func(rep *report.Report, s Study, anns []Annotation, o AnalyzeOptions) error
	// Report adds sections that read the studied run's records too (the
	// run's audit made again on the items people confirmed; nil: none).
	Report func(ctx context.Context, rs Records, rep *report.Report, s Study, anns []Annotation) error
	// Corrects adds to the studied run's own report what the study's
	// answers correct in it (its judged rates, bias-corrected; nil:
	// nothing). It is called only for a study with answers.
	Corrects func(ctx context.Context, rs Records, rep *report.Report, s Study, anns []Annotation) error
	// Judged reports whether a run has judged figures Corrects would
	// correct (nil: every run of the benchmark has): a run without a
	// study is told how to get them corrected only then.
	Judged func(ctx context.Context, rs Records, runID int64) bool
}

// Draw is what a kind draws a study's items from.
type Draw struct {
	// Records are the store's records; Run the run studied; Questions
	// what the study asks.
	Records   Records
	Run       store.Run
	Questions []Question
	// Data is the user's data folder (nil: none).
	Data fs.FS
	// Stratify names the Hidden fields to sample across (--stratify);
	// Corpus is --corpus ("" : the run's only one).
	Stratify []string
	Corpus   string
	// Show are the columns a records study shows (its YAML's show);
	// Decoys, the rules that make its records decoys (its YAML's decoys).
	Show   []string
	Decoys []DecoyRule
}

// Records is how a study kind reads a run's records.
type Records = bench.RecordReader

var (
	kindsMu    sync.RWMutex
	registered = map[Kind]KindSpec{}
)

// RegisterKind registers a kind of study declared by a benchmark's package
// and returns it; a kind registered twice panics.
func RegisterKind(k KindSpec) KindSpec {
	kindsMu.Lock()
	defer kindsMu.Unlock()
	if _, dup := registered[k.Kind]; dup || k.Kind == "" {
		panic(fmt.Sprintf("study: kind %q registered twice (or built in)", k.Kind))
	}
	registered[k.Kind] = k
	return k
}

// SpecOf is the registered kind of that name (ok false: none).
func SpecOf(k Kind) (KindSpec, bool) {
	kindsMu.RLock()
	defer kindsMu.RUnlock()
	s, ok := registered[k]
	return s, ok
}

// Registered are the kinds benchmarks' packages declared, by name.
func Registered() []KindSpec {
	var out []KindSpec
	for _, k := range registeredKinds() {
		s, _ := SpecOf(k)
		out = append(out, s)
	}
	return out
}

func registeredKinds() []Kind {
	kindsMu.RLock()
	defer kindsMu.RUnlock()
	out := make([]Kind, 0, len(registered))
	for k := range registered {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Majorities are the human majority's answers to question q, by item key:
// the choice more than half of an item's annotators gave (ties and items
// nobody answered are left out), decoys included.
func Majorities(s Study, anns []Annotation, q string) map[string]string {
	ans := index(anns)
	out := map[string]string{}
	for _, it := range s.Items {
		if h, n := majority(ans, it.Key, q); n > 0 && h != "" {
			out[it.Key] = h
		}
	}
	return out
}
