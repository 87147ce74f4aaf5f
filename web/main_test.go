package web_test

import (
	"os"
	"testing"

	"github.com/fallacylab/fallacylab/cachedir"
)

// TestMain keeps the reports the tests analyse, and the stores' checks, out
// of the user's cache.
func TestMain(m *testing.M) { os.Exit(cachedir.Run(m)) }
