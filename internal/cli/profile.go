package cli

import (
	"fmt"
	"os"
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
