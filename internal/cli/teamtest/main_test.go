// Package teamtest_test tests the CLI on the PostgreSQL team store: workers,
// the queue, store copies and two users at once. It is its own package so
// that go test runs it beside internal/cli's (see package clitest).
package teamtest_test

import (
	"os"
	"testing"

	"github.com/fallacylab/fallacylab/cachedir"
	"github.com/fallacylab/fallacylab/internal/cli/clitest"
)

func TestMain(m *testing.M) {
	clitest.Main() // the workers and coordinators these tests start
	cachedir.Isolate()
	os.Exit(m.Run())
}
