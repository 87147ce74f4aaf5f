package sqlite

import (
	"crypto/sha256"
	"encoding/hex"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/fallacylab/fallacylab/cachedir"
)

// PRAGMA quick_check reads and verifies every page of the store: a tenth of
// a second for a full DeflectBench run's 45 MB, more with every run, on
// every command. A store whose bytes passed it once is remembered in the
// user's cache folder by a digest of its contents (the file and its WAL,
// CRC-32C, which the CPU computes at several GB/s), so opening the same
// bytes again skips it; a writable store that closes cleanly is remembered
// as it was left (checked when opened, and written only by SQLite since).
// Any change to the bytes — a write, or damage — changes the digest, and
// the next open checks again. CheckCacheEnv = "off" checks on every open.

// CheckCacheEnv names the folder where checked stores are remembered, or
// "off".
const CheckCacheEnv = cachedir.ChecksEnv

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// digest is the store's contents digest ("" when a file cannot be read).
func digest(path string) string {
	h := crc32.New(castagnoli)
	var size int64
	for _, p := range []string{path, path + "-wal"} {
		f, err := os.Open(p)
		if os.IsNotExist(err) && p != path {
			continue
		}
		if err != nil {
			return ""
		}
		n, err := io.Copy(h, f)
		f.Close()
		if err != nil {
			return ""
		}
		if n > 0 { // an empty WAL is no WAL (a reader leaves one while open)
			size = size*31 + n
		}
	}
	return strconv.FormatUint(uint64(h.Sum32()), 16) + "-" + strconv.FormatInt(size, 16)
}

// stampFile is where the check of the store at path is remembered.
func stampFile(path string) string {
	dir := cachedir.Dir(CheckCacheEnv, "checked")
	if dir == "" {
		return ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(dir, hex.EncodeToString(sum[:12])+".stamp")
}

// stampAge is how long a store's check is remembered without being renewed.
const stampAge = 30 * 24 * time.Hour

// checkedBefore reports whether the store's bytes are those last
// remembered as checked.
func checkedBefore(path string) bool {
	f := stampFile(path)
	if f == "" {
		return false
	}
	want, err := os.ReadFile(f)
	if err != nil || len(want) == 0 {
		return false
	}
	return digest(path) == string(want)
}

// rememberChecked remembers the store's bytes as checked; failing to is
// harmless (the next open checks).
func rememberChecked(path string) {
	f := stampFile(path)
	if f == "" {
		return
	}
	d := digest(path)
	if d == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(f), ".stamp-*")
	if err != nil {
		return
	}
	_, werr := tmp.WriteString(d)
	if cerr := tmp.Close(); werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return
	}
	if err := os.Rename(tmp.Name(), f); err != nil {
		os.Remove(tmp.Name())
	}
	cachedir.Prune(filepath.Dir(f), ".stamp", stampAge)
}
