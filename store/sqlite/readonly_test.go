package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/store"
)

// TestReadOnlyPaths opens a store the way a read-only file or folder is
// opened (mode=ro), reads it, and refuses every write.
func TestReadOnlyPaths(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "r.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := st.StartRun(ctx, store.Run{Name: "n", Benchmark: "b"})
	st.Close()
	canWrite = func(string) bool { return false }
	defer func() { canWrite = CanWrite }()
	ro, err := OpenWith(ctx, path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if runs, err := ro.Runs(ctx); err != nil || len(runs) != 1 || runs[0].ID != id {
		t.Fatalf("runs of a read-only store: %+v %v", runs, err)
	}
	if _, err := ro.StartRun(ctx, store.Run{Name: "x", Benchmark: "b"}); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("a write to a read-only store: %v", err)
	}
	if _, err := OpenWith(ctx, filepath.Join(t.TempDir(), "none.db"), Options{ReadOnly: true}); !errors.Is(err, ErrNoStore) {
		t.Fatalf("a missing store: %v", err)
	}
	if _, err := OpenWith(ctx, t.TempDir(), Options{ReadOnly: true}); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("a directory: %v", err)
	}
}
