// Package bench is the registry of benchmarks. Each benchmark package
// (bench/deflect, bench/foils, bench/missci, bench/prompts) declares itself
// once — its name as stored with runs, its title, its phases and how each
// phase tells a usable answer from one that cannot be parsed — and the CLI,
// the lifecycle and the viewer look it up here instead of switching on
// benchmark names. Package bench/all imports every benchmark: adding a
// benchmark is one package plus one line there.
package bench

import (
	"fmt"
	"sort"
	"sync"

	"github.com/fallacylab/fallacylab/engine"
)

// Phase is one plan of a benchmark's run.
type Phase struct {
	Name string
	// Hint is the likely cause when many answers of the phase are unusable.
	Hint string
	// Usable reports whether an answer (a result with a response) can be
	// parsed into the benchmark's record; nil: every answer is usable.
	Usable func(engine.Result) bool
}

// Benchmark is a registered benchmark.
type Benchmark struct {
	// Name identifies the benchmark in the store (runs.benchmark) and on
	// the command line.
	Name string
	// Title names it for people ("DeflectBench").
	Title string
	// Summary is one line on what it measures.
	Summary string
	// Phases are its plans, in the order a run executes them.
	Phases []Phase
}

// Phase returns the benchmark's phase of that name; it panics on a name the
// benchmark does not declare, which is a programming error.
func (b *Benchmark) Phase(name string) Phase {
	for _, p := range b.Phases {
		if p.Name == name {
			return p
		}
	}
	panic(fmt.Sprintf("bench: %s has no phase %q", b.Name, name))
}

var (
	mu       sync.RWMutex
	registry = map[string]*Benchmark{}
)

// Register adds a benchmark and returns it, for a package-level
// `var Definition = bench.Register(&bench.Benchmark{…})`. A second benchmark
// with the same name panics.
func Register(b *Benchmark) *Benchmark {
	mu.Lock()
	defer mu.Unlock()
	if b.Name == "" {
		panic("bench: a benchmark needs a name")
	}
	if _, dup := registry[b.Name]; dup {
		panic("bench: " + b.Name + " registered twice")
	}
	registry[b.Name] = b
	return b
}

// Lookup returns the benchmark of that name.
func Lookup(name string) (*Benchmark, bool) {
	mu.RLock()
	defer mu.RUnlock()
	b, ok := registry[name]
	return b, ok
}

// Title is the registered title of a benchmark name, or the name itself for
// runs of commands that are not benchmarks (ask, selftest).
func Title(name string) string {
	if b, ok := Lookup(name); ok {
		return b.Title
	}
	return name
}

// All returns every registered benchmark, by name.
func All() []*Benchmark {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]*Benchmark, 0, len(registry))
	for _, b := range registry {
		out = append(out, b)
	}
	sort.Slice(out, func(i, k int) bool { return out[i].Name < out[k].Name })
	return out
}
