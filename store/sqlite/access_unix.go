//go:build unix

package sqlite

import "golang.org/x/sys/unix"

// accessWrite asks the system whether the file at path can be written,
// with the effective user's rights, opening no descriptor of it.
func accessWrite(path string) bool {
	return unix.Faccessat(unix.AT_FDCWD, path, unix.W_OK, unix.AT_EACCESS) == nil
}
