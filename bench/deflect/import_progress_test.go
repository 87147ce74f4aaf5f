package deflect

import (
	"strings"
	"testing"
	"time"
)

// TestImportSaysHowFarItIs (#41 item 20): an import says every
// importSayEvery how many records it has read (before, it printed nothing
// until it finished); on a fake clock.
func TestImportSaysHowFarItIs(t *testing.T) {
	var out strings.Builder
	now := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	im := importer{progress: &out, clock: func() time.Time { return now }}
	for i := range 10 {
		im.gens = i + 1
		im.tick()
		now = now.Add(time.Second)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || lines[0] != "10:00:02 import: 3 generations and 0 judgements read" {
		t.Fatalf("an import over 10 s said:\n%s", out.String())
	}
	quiet := importer{clock: func() time.Time { return now }}
	quiet.tick() // no writer: --quiet
}
