package backend_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/backend"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/sqlite"
)

// TestCopyOfARunningRun (#26 item 9): a run still running is copied as
// interrupted, with what it holds so far, and the copy says so; copied
// again once it has finished, the partial copy is replaced by the whole
// run (before, it was skipped as "already there" and stayed partial).
func TestCopyOfARunningRun(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func(name string) backend.Store {
		st, err := sqlite.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	src, dst := open("src.db"), open("dst.db")
	id, err := src.StartRun(ctx, store.Run{Name: "long", Benchmark: "prompts"})
	if err != nil {
		t.Fatal(err)
	}
	put := func(k string) {
		t.Helper()
		if err := src.PutCall(ctx, store.Call{Key: k, Namespace: "n", Provider: "openai", Model: "m", Request: []byte(`{}`), Status: store.StatusOK}); err != nil {
			t.Fatal(err)
		}
		if err := src.LinkRun(ctx, id, k, k, false); err != nil {
			t.Fatal(err)
		}
	}
	put("a")
	var notes []string
	note := func(s string) { notes = append(notes, s) }
	if _, err := backend.Copy(ctx, src, dst, note); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "is still running: copied as interrupted") {
		t.Fatalf("the copy does not say the run was running: %q", notes)
	}
	runs, _ := dst.Runs(ctx)
	if len(runs) != 1 || runs[0].Status != store.RunInterrupted || !strings.Contains(runs[0].Reason, "while it was running") || runs[0].Calls != 1 {
		t.Fatalf("the copy of a running run: %+v", runs)
	}
	put("b")
	if err := src.FinishRun(ctx, id, store.RunDone); err != nil {
		t.Fatal(err)
	}
	notes = nil
	n, err := backend.Copy(ctx, src, dst, note)
	if err != nil {
		t.Fatal(err)
	}
	runs, _ = dst.Runs(ctx)
	if n.Runs != 1 || len(runs) != 1 || runs[0].Status != store.RunDone || runs[0].Calls != 2 {
		t.Fatalf("copied again once finished: %+v (%+v, %q)", runs, n, notes)
	}
	n, _ = backend.Copy(ctx, src, dst, note)
	if n.Runs != 0 || n.SkippedRuns != 1 {
		t.Fatalf("a finished run copied a third time: %+v", n)
	}
}
