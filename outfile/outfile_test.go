package outfile

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestWriteRemovesWhatKilledWritersLeft (#41 item 12): a writer killed
// mid-write (kill -9) leaves its temporary file; the next write of the
// same destination removes it, and keeps a live writer's.
func TestWriteRemovesWhatKilledWritersLeft(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "runs [1].jsonl")
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true(1) to make a dead process id")
	}
	stale := filepath.Join(dir, tempPrefix(out, dead.Process.Pid)+"123")
	live := filepath.Join(dir, tempPrefix(out, os.Getpid())+"456")
	for _, p := range []string{stale, live} {
		if err := os.WriteFile(p, []byte("half a file"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := Write(io.Discard, out, func(w io.Writer) error { _, err := io.WriteString(w, "whole\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != "whole\n" {
		t.Fatalf("the destination: %q %v", b, err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("the killed writer's temporary file is still there: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Fatalf("a live writer's temporary file was removed: %v", err)
	}
}
