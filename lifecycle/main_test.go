package lifecycle_test

import (
	"os"
	"testing"

	"github.com/fallacylab/fallacylab/store/sqlite"
)

// TestMain keeps the checks of the tests' stores out of the user's cache.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fallacylab-checked-")
	if err != nil {
		panic(err)
	}
	os.Setenv(sqlite.CheckCacheEnv, dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
