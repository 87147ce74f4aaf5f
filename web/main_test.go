package web_test

import (
	"os"
	"testing"

	"github.com/fallacylab/fallacylab/internal/reportcache"
	"github.com/fallacylab/fallacylab/store/sqlite"
)

// TestMain keeps the reports the tests analyse, and the stores' checks, out
// of the user's cache.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fallacylab-web-report-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv(reportcache.Env, dir)
	checked, err := os.MkdirTemp("", "fallacylab-web-checked-")
	if err != nil {
		panic(err)
	}
	os.Setenv(sqlite.CheckCacheEnv, checked) // and the stores' remembered checks
	code := m.Run()
	os.RemoveAll(dir)
	os.RemoveAll(checked)
	os.Exit(code)
}
