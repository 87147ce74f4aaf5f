package deflect

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store"
)

// TestKeptReport: a finished run keeps its report with the default options
// beside its records, and the report is read from there (a report the
// test marks is the one shown) while the run's records are the ones it
// analysed: a later write of the records, or other options, analyse
// again, and the report then equals a fresh analysis. The report cache is
// off: the kept report needs none.
func TestKeptReport(t *testing.T) {
	t.Setenv("FALLACYLAB_REPORT_CACHE", "off")
	ctx := context.Background()
	st := openStore(t)
	d, _, err := Synthesize(SynthOptions{Models: []string{"model-a"}, Samples: 1, Seed: 3})
	must(t, err)
	id, err := st.StartRun(ctx, store.Run{Name: "kept", Benchmark: Definition.Name, Version: "test"})
	must(t, err)
	must(t, SaveRecords(ctx, st, id, d.Gens, d.Evals))
	must(t, st.EndRun(ctx, id, store.RunDone, ""))
	env := bench.Env{Records: st, Store: st.Path(), Stderr: io.Discard}
	keepReport(ctx, env, id)
	run := func() store.Run {
		r, ok, err := st.Run(ctx, id)
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		return r
	}
	opts := DefaultAnalysis()
	kept, ok := readKept(ctx, st, run(), opts)
	if !ok {
		t.Fatal("no report kept")
	}
	fresh, err := Analyze(d, opts)
	must(t, err)
	if !sameReport(t, kept, fresh) {
		t.Fatal("the kept report is not the run's analysis")
	}
	// Keep a marked report of the records the run holds (as if analysed
	// so): it is the one read.
	marked := *fresh
	marked.Title = "kept, not analysed"
	must(t, putKept(ctx, st, run(), opts, &marked))
	got, err := analysedReport(ctx, env, run(), opts, nil)
	must(t, err)
	if got.Title != marked.Title {
		t.Fatalf("the report was analysed again (%q), not read back", got.Title)
	}
	// Other options: analysed.
	other := opts
	other.Resamples = 50
	if got, err := analysedReport(ctx, env, run(), other, nil); err != nil || got.Title == marked.Title {
		t.Fatalf("other options read the kept report: %v", err)
	}
	// The run's records written again: analysed, equal to a fresh analysis.
	must(t, SaveEvals(ctx, st, id, d.Evals))
	got, err = analysedReport(ctx, env, run(), opts, nil)
	must(t, err)
	if got.Title == marked.Title || !sameReport(t, got, fresh) {
		t.Fatalf("after new records: %q", got.Title)
	}
}

// sameReport reports whether a and b render the same JSON.
func sameReport(t *testing.T, a, b *report.Report) bool {
	t.Helper()
	var x, y bytes.Buffer
	must(t, report.Render(&x, a, report.JSON))
	must(t, report.Render(&y, b, report.JSON))
	return bytes.Equal(x.Bytes(), y.Bytes())
}
