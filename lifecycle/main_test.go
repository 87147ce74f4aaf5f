package lifecycle_test

import (
	"os"
	"testing"

	"github.com/fallacylab/fallacylab/cachedir"
)

// TestMain keeps the checks of the tests' stores out of the user's cache.
func TestMain(m *testing.M) { os.Exit(cachedir.Run(m)) }
