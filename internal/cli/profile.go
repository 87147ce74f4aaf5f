package cli

import (
	"fmt"
	"os"
	"runtime/debug"
	"runtime/pprof"
)

// startCPUProfile writes a CPU profile of the whole command to path
// (FALLACYLAB_CPUPROFILE=path; read it with `go tool pprof`), so that a slow
// command can say where its time went.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("FALLACYLAB_CPUPROFILE: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("FALLACYLAB_CPUPROFILE: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// writeMemProfile writes the command's allocations (and what is still in
// use at its end) to path (FALLACYLAB_MEMPROFILE=path; `go tool pprof
// -sample_index=alloc_space`), so that a command that grows can say what
// it allocated.
func writeMemProfile(path string) {
	f, err := os.Create(path)
	if err == nil {
		err = pprof.Lookup("allocs").WriteTo(f, 0)
		f.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fallacylab: FALLACYLAB_MEMPROFILE:", err)
	}
}

// gcPercent is the collector's target, where the user sets no GOGC: the
// analyses hold a run's records (a few hundred bytes a generation) while
// they make much short-lived garbage (parse buffers, bootstrap tallies),
// and at Go's default of 100 the heap grows to twice what is live before
// it is collected. At 50 it grows by half: measured on the 4× synthetic
// run (96,000 generations) the peak of `deflect report` from the store
// falls from about 305 to 258 MB and of `deflect import` from 244 to
// 205 MB, for 2–8 % more time.
const gcPercent = 50

// setGCPercent sets gcPercent unless GOGC is set (the user's word wins).
func setGCPercent() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
}
