package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/fallacylab/fallacylab/store/sqlite"
	"github.com/fallacylab/fallacylab/store/storetest"
)

// TestConformance: the SQLite store passes the suite every store passes.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Store {
		st, err := sqlite.Open(filepath.Join(t.TempDir(), "c.db"))
		if err != nil {
			t.Fatal(err)
		}
		return st
	})
}
