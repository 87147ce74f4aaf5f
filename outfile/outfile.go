// Package outfile writes a command's --out destination whole or not at
// all, and checks before any work that it can be made.
package outfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fallacylab/fallacylab/procstate"
)

// Write writes an --out destination whole or not at all. "-" is
// stdout. A path that exists and is not a regular file (a device such as
// /dev/null, a FIFO, /dev/stdout, or a symlink to one) is written straight
// through: replacing it would replace the device for the whole machine.
// Anything else is written to a temporary file in the same folder and
// renamed into place (onto a symlink's target, keeping the link), so a crash
// or Ctrl-C never leaves half a file.
func Write(stdout io.Writer, path string, fill func(io.Writer) error) error {
	if path == "-" {
		return fill(stdout)
	}
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		if st.IsDir() {
			return fmt.Errorf("write %s: it is a directory", path)
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		if err := fill(f); err != nil {
			f.Close()
			return fmt.Errorf("write %s: %w", path, err)
		}
		return f.Close()
	}
	for range 16 { // follow symlinks, even to a file not made yet
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			break
		}
		target, err := os.Readlink(path)
		if err != nil {
			break
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		path = target
	}
	removeStale(path)
	tmp, err := os.CreateTemp(filepath.Dir(path), tempPrefix(path, os.Getpid())+"*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := fill(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// tempPrefix is how the temporary files of path's writers start: the
// writer's process id in it, so a later writer knows whose it is.
func tempPrefix(path string, pid int) string {
	return "." + filepath.Base(path) + ".tmp-" + strconv.Itoa(pid) + "-"
}

// removeStale removes the temporary files of path that writers killed
// mid-write left (kill -9: no deferred removal ran), those of a process
// no longer alive; a live writer's is its own.
func removeStale(path string) {
	olds, _ := filepath.Glob(filepath.Join(filepath.Dir(path), globEscape("."+filepath.Base(path)+".tmp-")+"*"))
	for _, old := range olds {
		rest := strings.TrimPrefix(filepath.Base(old), "."+filepath.Base(path)+".tmp-")
		pid, err := strconv.Atoi(rest[:max(0, strings.IndexByte(rest, '-'))])
		if err == nil && !procstate.Alive(pid) {
			os.Remove(old)
		}
	}
}

// globEscape escapes the glob metacharacters of a file name.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Check fails before any work when an --out file cannot be made: its
// folder does not exist. A trailing separator names a folder to create.
func Check(flag, path string) error {
	if path == "" || path == "-" || strings.HasSuffix(path, string(filepath.Separator)) {
		return nil
	}
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("--%s %s: directory %s does not exist: create it first, or write elsewhere", flag, path, dir)
	}
	return nil
}
