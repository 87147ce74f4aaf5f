package cachedir

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestDir(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "/tmp/xdg")
	t.Setenv(ChecksEnv, "")
	if got := Dir(ChecksEnv, "checked"); got != filepath.Join("/tmp/xdg", "fallacylab", "checked") {
		t.Fatalf("unset: %q", got)
	}
	t.Setenv(ChecksEnv, "off")
	if got := Dir(ChecksEnv, "checked"); got != "" {
		t.Fatalf("off: %q", got)
	}
	t.Setenv(ChecksEnv, "/elsewhere")
	if got := Dir(ChecksEnv, "checked"); got != "/elsewhere" {
		t.Fatalf("set: %q", got)
	}
}

// TestPrune removes only old entries with the suffix.
func TestPrune(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-48 * time.Hour)
	for _, n := range []string{"a.stamp", "b.stamp", "c.other"} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o644)
	}
	os.Chtimes(filepath.Join(dir, "a.stamp"), old, old)
	os.Chtimes(filepath.Join(dir, "c.other"), old, old)
	Prune(dir, ".stamp", 24*time.Hour)
	for n, want := range map[string]bool{"a.stamp": false, "b.stamp": true, "c.other": true} {
		if _, err := os.Stat(filepath.Join(dir, n)); (err == nil) != want {
			t.Fatalf("%s kept: %v, want %v", n, err == nil, want)
		}
	}
}

// TestIsolate: both caches go to new folders, which done removes; a
// variable set already is left alone.
func TestIsolate(t *testing.T) {
	t.Setenv(ReportsEnv, "")
	t.Setenv(ChecksEnv, "/kept")
	done := Isolate()
	dir := os.Getenv(ReportsEnv)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || os.Getenv(ChecksEnv) != "/kept" {
		t.Fatalf("reports in %q (%v), checks in %q", dir, err, os.Getenv(ChecksEnv))
	}
	done()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("%s left behind", dir)
	}
}
