package cli

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/fallacylab/fallacylab/backend"
	"github.com/fallacylab/fallacylab/cachedir"
	"github.com/fallacylab/fallacylab/store"
)

// Paid answers that a store refused to the end of a run (its disk was full)
// are kept in a file of the user's cache, one per store, and the next
// command that opens the store for writing takes them in: a re-run then
// finds them cached and pays only for what was never answered.

// unwrittenCall is one kept answer, with the run link the store's form
// leaves out of its JSON.
type unwrittenCall struct {
	Call  store.Call `json:"call"`
	RunID int64      `json:"run_id"`
	Job   string     `json:"job"`
}

// unwrittenFile is where the answers refused by the store at db wait.
func unwrittenFile(db string) string {
	dir := cachedir.Dir(cachedir.UnwrittenEnv, "unwritten")
	if dir == "" {
		return ""
	}
	name := backend.Redact(db)
	if !backend.IsURL(db) {
		if abs, err := filepath.Abs(db); err == nil {
			name = abs
		}
	}
	sum := sha256.Sum256([]byte(name))
	return filepath.Join(dir, hex.EncodeToString(sum[:12])+".jsonl")
}

// memoryDir is where answers go when the cache folder refuses them too
// (the usual layout has the store and the cache on one disk, and it is
// full): a memory file system, which a killed process leaves intact (a
// reboot does not).
const memoryDir = "/dev/shm"

// unwrittenFiles are where the answers refused by the store at db wait:
// the cache folder's file, then the memory file system's.
func unwrittenFiles(db string) []string {
	var out []string
	if p := unwrittenFile(db); p != "" {
		out = append(out, p)
		if fi, err := os.Stat(memoryDir); err == nil && fi.IsDir() {
			out = append(out, filepath.Join(memoryDir, "fallacylab-unwritten-"+filepath.Base(p)))
		}
	}
	return out
}

// spill appends calls to the store's unwritten file — the cache folder's,
// or the memory file system's when that one refuses them — and returns its
// path.
func (s *session) spill(calls []store.Call) (string, error) {
	paths := unwrittenFiles(s.g.DBPath)
	if len(paths) == 0 {
		return "", fmt.Errorf("no cache folder to keep them in (%s is off)", cachedir.UnwrittenEnv)
	}
	var errs []error
	for _, p := range paths {
		err := spillTo(p, calls)
		if err == nil {
			return p, nil
		}
		errs = append(errs, err)
	}
	return "", errors.Join(errs...)
}

// spillTo appends calls to the file at path, whole lines only: a line cut
// by a full disk is cut off again.
func spillTo(path string, calls []store.Call) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	start, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		f.Close()
		return err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, c := range calls {
		if err := enc.Encode(unwrittenCall{Call: c, RunID: c.RunID, Job: c.Job}); err != nil {
			f.Close()
			return err
		}
	}
	if _, err := f.Write(b.Bytes()); err != nil {
		f.Truncate(start) // no half line for the next reader
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// takeInUnwritten writes the answers kept for this store into it, and
// removes the file once every one is stored.
func takeInUnwritten(ctx context.Context, g *Global, st backend.Store) error {
	for _, path := range unwrittenFiles(g.DBPath) {
		if err := takeInFile(ctx, g, st, path); err != nil {
			return err
		}
	}
	return nil
}

// takeInFile takes in the answers kept in one file, and removes it.
func takeInFile(ctx context.Context, g *Global, st backend.Store, path string) error {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	n, unlinked := 0, 0
	// A run the answers name may be gone (deleted, or the store made anew
	// where it was): its answers are cached, linked to no run, rather
	// than refused by the store again at every command.
	runs := map[int64]bool{}
	for line := 1; sc.Scan(); line++ {
		var u unwrittenCall
		if err := json.Unmarshal(sc.Bytes(), &u); err != nil {
			return fmt.Errorf("%s line %d: %w (answers paid but not stored: move the file away to go on without them)", path, line, err)
		}
		if u.RunID != 0 {
			there, seen := runs[u.RunID]
			if !seen {
				if _, there, err = st.Run(ctx, u.RunID); err != nil {
					return fmt.Errorf("take in the %s answers the store refused before: %w", path, err)
				}
				runs[u.RunID] = there
			}
			if !there {
				u.RunID, u.Job = 0, ""
				unlinked++
			}
		}
		u.Call.RunID, u.Call.Job = u.RunID, u.Job
		if err := st.PutCall(ctx, u.Call); err != nil {
			return fmt.Errorf("take in the %s answers the store refused before: %w", path, err)
		}
		n++
	}
	if err := sc.Err(); err != nil {
		return err
	}
	f.Close()
	if err := os.Remove(path); err != nil {
		return err
	}
	if n > 0 {
		gone := ""
		if unlinked > 0 {
			gone = fmt.Sprintf(" (%d of them of runs no longer in this store: linked to no run)", unlinked)
		}
		fmt.Fprintf(g.Stderr, "took in %s this store could not hold before (kept in %s): cached now%s\n", plural(n, "paid answer", "paid answers"), path, gone)
	}
	return nil
}
