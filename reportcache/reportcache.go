// Package reportcache keeps reports analysed from a stored run's records
// outside the store — browsing commands never write to a store — in the
// user's cache folder, so the same report again, or in another format, is
// read back instead of analysed again (a full DeflectBench analysis reads
// 72,000 records and draws 1,000 resamples).
//
// An entry's key holds everything the report depends on: the store file,
// the run (id, start and records version, which every write of its records
// moves on), the analysis options, and the running program itself (its
// executable's path, size and modification time), so new records, a run id
// used again or a changed fallacylab never meet an old entry.
// FALLACYLAB_REPORT_CACHE names another folder, or "off".
package reportcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	"github.com/fallacylab/fallacylab/cachedir"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store"
)

// Env names the cache folder, or "off".
const Env = cachedir.ReportsEnv

// maxAge is how long an unused entry is kept.
const maxAge = 30 * 24 * time.Hour

// dir is the cache folder ("" when off).
func dir() string { return cachedir.Dir(Env, "reports") }

var (
	exeOnce sync.Once
	exeHash string
)

// Enabled reports whether reports are cached (FALLACYLAB_REPORT_CACHE is
// not "off" and a cache folder exists for this user).
func Enabled() bool { return dir() != "" }

// program identifies the running executable: its path, size and
// modification time ("" when it cannot be read: then nothing is cached).
// Any new build of fallacylab is a new file (a new time, whatever its path
// or size); hashing its contents instead cost a tenth of a second per
// command, most of a cached report's read.
func program() string {
	exeOnce.Do(func() {
		path, err := os.Executable()
		if err != nil {
			return
		}
		fi, err := os.Stat(path)
		if err != nil {
			return
		}
		exeHash = fmt.Sprintf("%s\x00%d\x00%d", path, fi.Size(), fi.ModTime().UnixNano())
	})
	return exeHash
}

// Program identifies the running fallacylab for a report kept beside a
// run in the store, which other machines of a team read: its module
// version and revision when it was built from a clean checkout (the same
// code wherever it runs), its released version when it was installed as
// one, and otherwise this executable file, as the cache's keys ("" when
// none can be told: then nothing is kept).
func Program() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		var rev string
		modified := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		switch v := bi.Main.Version; {
		case rev != "" && !modified:
			return "fallacylab " + v + " " + rev
		case v != "" && v != "(devel)" && rev == "":
			return "fallacylab " + v
		}
	}
	if p := program(); p != "" {
		return "executable " + p
	}
	return ""
}

// Key is the entry key of a report made from parts ("" when caching is off).
func Key(parts ...any) string {
	if dir() == "" || program() == "" {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "v1\x00%s", program())
	for _, p := range parts {
		fmt.Fprintf(h, "\x00%v", p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Get returns the report stored under key, if any. A damaged entry is a
// miss (and removed).
func Get(key string) (*report.Report, bool) {
	if key == "" {
		return nil, false
	}
	path := filepath.Join(dir(), key+".gob")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	var r report.Report
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&r); err != nil {
		os.Remove(path)
		return nil, false
	}
	now := time.Now()
	os.Chtimes(path, now, now) // recently used: kept
	return &r, true
}

// Put stores a report under key, atomically; failing to is not an error
// of the command (the report was made), so it is only returned.
func Put(key string, r *report.Report) error {
	if key == "" {
		return nil
	}
	d := dir()
	if err := os.MkdirAll(d, 0o700); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(r); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(d, ".put-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), filepath.Join(d, key+".gob")); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	cachedir.Prune(d, ".gob", maxAge)
	return nil
}

// RunKey is the key of a report analysed from a stored run with the
// options parts name (the benchmark's own: deflect.Options.Identity): the
// report command and the viewer ask with the same key, so one analysis
// serves both, and any new records (the run's records version) make a new
// key.
func RunKey(storePath string, run store.Run, parts ...any) string {
	abs, err := filepath.Abs(storePath)
	if err != nil {
		abs = storePath
	}
	return Key(append([]any{run.Benchmark, abs, run.ID, run.Started.UnixNano(), run.RecordsVersion}, parts...)...)
}

// GetOrMake returns the report stored under key, or analyses and stores it.
// A failed store does not fail the report: it goes to putFailed (may be nil).
func GetOrMake(key string, analyse func() (*report.Report, error), putFailed func(error)) (*report.Report, error) {
	if rep, ok := Get(key); ok {
		return rep, nil
	}
	rep, err := analyse()
	if err != nil {
		return nil, err
	}
	if err := Put(key, rep); err != nil && putFailed != nil {
		putFailed(err)
	}
	return rep, nil
}
