package cli

import (
	"os"
	"path/filepath"
)

// dataDir resolves the data directory: flag, FALLACYLAB_DATA, then the XDG
// data dir ("" when none exists).
func dataDir(flag string) string {
	if flag != "" {
		return flag
	}
	if d := os.Getenv("FALLACYLAB_DATA"); d != "" {
		return d
	}
	base := os.Getenv("XDG_DATA_HOME")
	if base == "" {
		if home, err := os.UserHomeDir(); err == nil {
			base = filepath.Join(home, ".local", "share")
		}
	}
	if base != "" {
		if d := filepath.Join(base, "fallacylab"); dirExists(d) {
			return d
		}
	}
	return ""
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
