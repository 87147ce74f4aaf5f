package sqlite

import (
	"os"
	"path/filepath"
	"sync"
)

// SQLite's locks on a store are POSIX advisory locks, and POSIX gives them
// to the process, not to the descriptor: closing any descriptor of the file
// drops every lock the process holds on it, SQLite's included. A process
// that lost its locks still believes it holds them, so the next process to
// close the store takes itself for the last one and deletes the
// write-ahead log under it: answers acknowledged since are lost.
//
// So fallacylab opens a store's files itself (to digest them, to probe
// that they can be written) only while this process has no connection to
// them: conns counts the open connections per file, and its lock is held
// across every such open, so that no connection starts meanwhile.
var conns = struct {
	sync.Mutex
	n map[string]int
}{n: map[string]int{}}

// fileKey names the file at path however it is spelt (relative, through a
// symbolic link).
func fileKey(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}

// connecting runs fn, which opens this process's connections to the store
// at path, with the file's raw access barred; idle (with conns' lock held)
// tells whether no other connection to it was open, and so whether fn may
// read the file itself before it connects. It returns the release to call
// once the connections are closed.
func connecting(path string, fn func(idle bool) error) (release func(last func()), err error) {
	key := fileKey(path)
	conns.Lock()
	defer conns.Unlock()
	if err := fn(conns.n[key] == 0); err != nil {
		return nil, err
	}
	conns.n[key]++
	var once sync.Once
	return func(last func()) {
		once.Do(func() {
			conns.Lock()
			defer conns.Unlock()
			if conns.n[key]--; conns.n[key] <= 0 {
				delete(conns.n, key)
				if last != nil {
					last() // no connection is open: the file may be read
				}
			}
		})
	}, nil
}

// inUse reports whether this process has a connection to the file at path
// open, holding the lock while fn runs.
func inUse(path string, fn func(busy bool)) {
	key := fileKey(path)
	conns.Lock()
	defer conns.Unlock()
	fn(conns.n[key] > 0)
}

// writableFile reports whether the file at path can be opened for writing,
// without opening it when this process has it open.
func writableFile(path string) (ok bool) {
	inUse(path, func(busy bool) {
		if busy {
			ok = accessWrite(path)
			return
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err == nil {
			f.Close()
			ok = true
		}
	})
	return ok
}
