package reportcache_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/fallacylab/fallacylab/bench/deflect"
	"github.com/fallacylab/fallacylab/report"
	. "github.com/fallacylab/fallacylab/reportcache"
)

func render(t *testing.T, r *report.Report, f report.Format) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := report.Render(&b, r, f); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestRoundTripRendersTheSameBytes: a report read back from the cache
// renders to exactly the bytes of the report as analysed, in every format,
// including tables without rows and cells without a value.
func TestRoundTripRendersTheSameBytes(t *testing.T) {
	t.Setenv(Env, t.TempDir())
	d, _, err := deflect.Synthesize(deflect.SynthOptions{Models: []string{"m-a", "m-b"}, Samples: 1, Seed: 3, ErrorRate: 0.02})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := deflect.Analyze(d, deflect.Options{Seed: 1, Resamples: 50})
	if err != nil {
		t.Fatal(err)
	}
	empty := rep.AddSection("Empty", "")
	empty.Add(&report.Table{ID: "none", Title: "no rows", Columns: report.Cols("a"), Rows: [][]report.Cell{}})
	key := Key("test", 1)
	if key == "" {
		t.Fatal("caching is off")
	}
	if err := Put(key, rep); err != nil {
		t.Fatal(err)
	}
	got, ok := Get(key)
	if !ok {
		t.Fatal("no entry")
	}
	for _, f := range []report.Format{report.Markdown, report.CSV, report.JSON, report.LaTeX, report.HTML} {
		if !bytes.Equal(render(t, rep, f), render(t, got, f)) {
			t.Fatalf("%s differs after the cache", f)
		}
	}
}

// TestKeysAndOff: other parts are another entry; "off" caches nothing; a
// damaged entry is a miss.
func TestKeysAndOff(t *testing.T) {
	d := t.TempDir()
	t.Setenv(Env, d)
	first, again := Key("a", 1), Key("a", 1)
	if first == Key("a", 2) || first != again {
		t.Fatal("keys: other parts must differ, the same parts agree")
	}
	rep := &report.Report{Title: "t"}
	if err := Put(Key("a", 1), rep); err != nil {
		t.Fatal(err)
	}
	if _, ok := Get(Key("a", 2)); ok {
		t.Fatal("a hit for other parts")
	}
	os.WriteFile(filepath.Join(d, Key("a", 1)+".gob"), []byte("garbage"), 0o600)
	if _, ok := Get(Key("a", 1)); ok {
		t.Fatal("a damaged entry was a hit")
	}
	t.Setenv(Env, "off")
	if Key("a", 1) != "" {
		t.Fatal("off still keys")
	}
}
