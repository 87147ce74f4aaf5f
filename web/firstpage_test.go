package web

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/fallacylab/fallacylab/bench/deflect"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/sqlite"
)

// TestFirstPageFromTheStore: while a run loads, its plain generations pages
// come straight from the store, and they are the very pages the loaded run
// shows (same rows, judges, pager), API errors and unjudged generations
// left out alike.
func TestFirstPageFromTheStore(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	d, _, err := deflect.Synthesize(deflect.SynthOptions{Models: []string{"m-a", "m-b"}, Samples: 1, Seed: 6, ErrorRate: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	d.Evals = d.Evals[:len(d.Evals)-300] // some generations no judge scored
	id, _ := st.StartRun(ctx, store.Run{Name: "r", Benchmark: "deflect", Version: "test"})
	if err := deflect.SaveRecords(ctx, st, id, d.Gens, d.Evals); err != nil {
		t.Fatal(err)
	}
	if err := st.EndRun(ctx, id, store.RunDone, ""); err != nil {
		t.Fatal(err)
	}
	page := func(s *Server, n int) string {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", fmt.Sprintf("/runs/%d/generations?page=%d", id, n), nil)
		req.Host = "127.0.0.1"
		s.Handler().ServeHTTP(rec, req)
		b, _ := io.ReadAll(rec.Body)
		if rec.Code != 200 {
			t.Fatalf("page %d: %d", n, rec.Code)
		}
		return string(b)
	}
	loading, _ := New(st)
	loading.hold = make(chan struct{}) // the run stays loading
	loaded, _ := New(st)
	if _, err := loaded.load(ctx, id); err != nil { // the full path
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 37} {
		fast := page(loading, n)
		if loading.cache[id].isReady() {
			t.Fatal("the run loaded: the fast path was not tested")
		}
		if full := page(loaded, n); fast != full {
			t.Fatalf("page %d differs from the loaded run's:\n%.2000s\n----\n%.2000s", n, fast, full)
		}
	}
	close(loading.hold)
}
