package web_test

import (
	"os"
	"testing"

	"github.com/fallacylab/fallacylab/internal/reportcache"
)

// TestMain keeps the reports the tests analyse out of the user's cache.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fallacylab-web-report-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv(reportcache.Env, dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
