package cli

import (
	"github.com/spf13/cobra"

	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"

	"github.com/fallacylab/fallacylab/bench"
)

// startCPUProfile writes a CPU profile of the whole command to path
// (FALLACYLAB_CPUPROFILE=path; read it with `go tool pprof`), so that a slow
// command can say where its time went. A "%p" in path is the process id:
// several processes started with one environment (a team's workers and
// the command that queued their run) each write their own.
func startCPUProfile(path string) (func(), error) {
	return startRecording("FALLACYLAB_CPUPROFILE", path, pprof.StartCPUProfile, pprof.StopCPUProfile)
}

// startTrace writes an execution trace of the whole command to path
// (FALLACYLAB_TRACE=path; read it with `go tool trace`): where a profile
// says what the command computed, the trace says where it waited (the
// store, the network, a lock). "%p" in path is the process id, as for
// the CPU profile.
func startTrace(path string) (func(), error) {
	return startRecording("FALLACYLAB_TRACE", path, trace.Start, trace.Stop)
}

// startRecording starts a recording of the whole command into the file at
// path (%p: the process id), named in errors by the variable that asked
// for it; the function returned stops it and closes the file.
func startRecording(name, path string, start func(io.Writer) error, stop func()) (func(), error) {
	f, err := os.Create(profilePath(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := start(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return func() {
		stop()
		f.Close()
	}, nil
}

// profilePath is path with each "%p" replaced by the process id.
func profilePath(path string) string {
	return strings.ReplaceAll(path, "%p", strconv.Itoa(os.Getpid()))
}

// writeMemProfile writes the command's allocations (and what is still in
// use at its end) to path (FALLACYLAB_MEMPROFILE=path; `go tool pprof
// -sample_index=alloc_space`), so that a command that grows can say what
// it allocated.
func writeMemProfile(path string) {
	f, err := os.Create(profilePath(path))
	if err == nil {
		err = pprof.Lookup("allocs").WriteTo(f, 0)
		f.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fallacylab: FALLACYLAB_MEMPROFILE:", err)
	}
}

// gcPercent is the collector's target for the commands that hold a whole
// run (bench.HoldsRun), where the user sets no GOGC: they hold a run's
// records (a few hundred bytes a generation) while they make much
// short-lived garbage (parse buffers, bootstrap tallies), and at Go's
// default of 100 the heap grows to twice what is live before it is
// collected; at 50, by half. Measured on the 4× synthetic DeflectBench
// run (96,000 generations): `deflect report` from the store peaks at about
// 234 MB rather than 280, `deflect import` at 185 rather than 215, for
// 2–7 % more time. Commands with little live data keep Go's default: for
// them a lower target only means more collections (a Scheme Foils report
// takes a third longer at 50).
const gcPercent = 50

// setGCPercent sets gcPercent for cmd if it holds a run, unless GOGC is
// set (the user's word wins).
func setGCPercent(cmd *cobra.Command) {
	if _, set := os.LookupEnv("GOGC"); !set && cmd.Annotations[bench.HoldsRunKey] != "" {
		debug.SetGCPercent(gcPercent)
	}
}
