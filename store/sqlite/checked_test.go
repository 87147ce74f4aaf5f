package sqlite_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/cachedir"
	"github.com/fallacylab/fallacylab/store/sqlite"
)

// TestMain keeps the checks the tests remember out of the user's cache.
func TestMain(m *testing.M) { os.Exit(cachedir.Run(m)) }

// TestCheckRemembered: a store whose bytes were checked is opened again
// without the check, and any change to its bytes — even one that keeps its
// size and modification time — is checked again, and a damaged store
// refused.
func TestCheckRemembered(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	s, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutCall(t.Context(), call("k1", "ok", strings.Repeat("answer ", 2000))); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if !sqlite.CheckedBefore(path) {
		t.Fatal("a store closed after its writes is not remembered as checked")
	}
	r, err := sqlite.OpenWith(t.Context(), path, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	if !sqlite.CheckedBefore(path) {
		t.Fatal("reading a store forgot its check")
	}
	// Damage in the middle of the file, at the start of a page (a new
	// store's pages are 16 KB: the unused middle of an empty page is no
	// damage any check can see), size and times kept.
	fi, _ := os.Stat(path)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt(bytes.Repeat([]byte{0xA5}, 4096), fi.Size()/2/16384*16384)
	f.Close()
	os.Chtimes(path, fi.ModTime(), fi.ModTime())
	if sqlite.CheckedBefore(path) {
		t.Fatal("changed bytes pass as checked")
	}
	for _, ro := range []bool{true, false} {
		if _, err := sqlite.OpenWith(t.Context(), path, sqlite.Options{ReadOnly: ro, LockTimeout: time.Second}); err == nil || !strings.Contains(err.Error(), "damaged") {
			t.Fatalf("read-only %v: a damaged store opened: %v", ro, err)
		}
	}
}
