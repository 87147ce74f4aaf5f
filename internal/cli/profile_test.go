package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRecordingsNameTheirProcess: FALLACYLAB_CPUPROFILE's and
// FALLACYLAB_TRACE's files take the process id for %p and hold what they
// recorded once stopped; a file that cannot be made is an error that
// names the variable.
func TestRecordingsNameTheirProcess(t *testing.T) {
	dir := t.TempDir()
	for name, start := range map[string]func(string) (func(), error){"FALLACYLAB_CPUPROFILE": startCPUProfile, "FALLACYLAB_TRACE": startTrace} {
		stop, err := start(filepath.Join(dir, name+".%p"))
		if err != nil {
			t.Fatal(err)
		}
		stop()
		info, err := os.Stat(filepath.Join(dir, name+"."+strconv.Itoa(os.Getpid())))
		if err != nil || info.Size() == 0 {
			t.Fatalf("%s: no recording under the process id (%v)", name, err)
		}
		if _, err := start(filepath.Join(dir, "missing", "x")); err == nil || !strings.Contains(err.Error(), name) {
			t.Fatalf("%s into a missing folder: %v", name, err)
		}
	}
}
