package web_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/bench/deflect"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/sqlite"
	"github.com/fallacylab/fallacylab/web"
)

// fullRun stores the full-scale synthetic DeflectBench run (4 models ×
// 6,000 generations, two judges) as a finished run.
func fullRun(b *testing.B) (*sqlite.Store, int64) {
	b.Helper()
	st, err := sqlite.Open(filepath.Join(b.TempDir(), "full.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	d, _, err := deflect.Synthesize(deflect.SynthOptions{Models: []string{"claude-opus-4-7", "deepseek-v4-pro", "gpt-5.5", "grok-4.3"}, Seed: 1, SoftFlip: 0.05})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	id, err := st.StartRun(ctx, store.Run{Name: "full", Benchmark: "deflect", Version: "test"})
	if err != nil {
		b.Fatal(err)
	}
	if err := deflect.SaveRecords(ctx, st, id, d.Gens, d.Evals); err != nil {
		b.Fatal(err)
	}
	if err := st.EndRun(ctx, id, store.RunDone, ""); err != nil {
		b.Fatal(err)
	}
	return st, id
}

// BenchmarkViewerFullRun is the figure: a fresh viewer over a
// 24,000-generation run — the first generations page (cold), when the
// whole run is loaded, a later page and a filtered page after that, and the
// run page with the full report (1,000 resamples, analysed in the
// background once the run is loaded).
func BenchmarkViewerFullRun(b *testing.B) {
	st, id := fullRun(b)
	b.ResetTimer()
	for range b.N {
		v, err := web.New(st)
		if err != nil {
			b.Fatal(err)
		}
		h := v.Handler()
		timed := func(path string) time.Duration {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest("GET", path, nil)
			req.Host = "127.0.0.1:7411"
			start := time.Now()
			h.ServeHTTP(rec, req)
			if rec.Code != 200 {
				b.Fatalf("%s: %d", path, rec.Code)
			}
			return time.Since(start)
		}
		start := time.Now()
		first := timed(fmt.Sprintf("/runs/%d/generations", id))
		timed(fmt.Sprintf("/runs/%d/generations?model=", id)) // waits for the whole run
		loaded := time.Since(start)
		later := timed(fmt.Sprintf("/runs/%d/generations?page=200", id))
		filtered := timed(fmt.Sprintf("/runs/%d/generations?model=gpt-5.5&outcome=refusal&page=3", id))
		runPage := timed(fmt.Sprintf("/runs/%d", id))
		again := timed(fmt.Sprintf("/runs/%d", id))
		b.ReportMetric(float64(first.Milliseconds()), "first-page-ms")
		b.ReportMetric(float64(loaded.Milliseconds()), "whole-run-loaded-ms")
		b.ReportMetric(float64(later.Microseconds())/1000, "later-page-ms")
		b.ReportMetric(float64(filtered.Microseconds())/1000, "filtered-page-ms")
		b.ReportMetric(float64(runPage.Milliseconds()), "run-page-ms")
		b.ReportMetric(float64(again.Microseconds())/1000, "run-page-again-ms")
	}
}
