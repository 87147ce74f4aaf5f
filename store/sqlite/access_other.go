//go:build !unix

package sqlite

import "os"

// accessWrite reports whether the file at path is not marked read-only
// (where advisory locks are not POSIX's, opening it would be harmless, but
// the mode bits are enough).
func accessWrite(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().Perm()&0o200 != 0
}
