// Package cachedir is where fallacylab keeps what it may throw away: the
// reports analysed from stored runs and the stores' remembered integrity
// checks, each in a folder of the user's cache that an environment
// variable can move or switch off.
package cachedir

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The variables that name the folders ("off": nothing is kept).
const (
	ReportsEnv = "FALLACYLAB_REPORT_CACHE"
	ChecksEnv  = "FALLACYLAB_CHECK_CACHE"
	// UnwrittenEnv names where paid answers a store refused (a full disk)
	// wait for the store's next open; they are not thrown away.
	UnwrittenEnv = "FALLACYLAB_UNWRITTEN"
)

// Dir is the folder the variable env names, or sub of fallacylab's folder
// in the user's cache when it is unset; "" when it is "off" or the user has
// no cache folder.
func Dir(env, sub string) string {
	switch v := os.Getenv(env); v {
	case "off":
		return ""
	case "":
		base, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		return filepath.Join(base, "fallacylab", sub)
	default:
		return v
	}
}

// Prune removes the entries of dir named …suffix that were not written for
// age.
func Prune(dir, suffix string, age time.Duration) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), suffix) {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > age {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// Run runs a test binary's tests (m.Run) with the caches isolated: a
// TestMain is os.Exit(cachedir.Run(m)).
func Run(m interface{ Run() int }) int {
	done := Isolate()
	defer done()
	return m.Run()
}

// Isolate points every cache variable not set already at a new temporary
// folder, for a test binary's TestMain, so that tests leave nothing in the
// user's cache; done removes the folders it made.
func Isolate() (done func()) {
	var made []string
	for _, env := range []string{ReportsEnv, ChecksEnv, UnwrittenEnv} {
		if os.Getenv(env) != "" {
			continue
		}
		dir, err := os.MkdirTemp("", "fallacylab-cache-")
		if err != nil {
			os.Setenv(env, "off")
			continue
		}
		os.Setenv(env, dir)
		made = append(made, dir)
	}
	return func() {
		for _, d := range made {
			os.RemoveAll(d)
		}
	}
}
