package cli_test

import (
	"net/http"
	"path/filepath"
	"testing"

	"github.com/fallacylab/fallacylab/bench/prompts"
	"github.com/fallacylab/fallacylab/internal/cli/clitest"
	"github.com/fallacylab/fallacylab/store/sqlite"
	"github.com/fallacylab/fallacylab/web"
)

// The shared helpers (package clitest) under the names the tests use.
var (
	runCLI       = clitest.Run
	runCLI2      = clitest.RunIn
	guaranteeEnv = clitest.Env
	testServer   = clitest.Server
	writeConfig  = clitest.WriteConfig
	scripted     = clitest.Scripted
	echoOrJudge  = clitest.EchoOrJudge
	flipped      = clitest.Flipped
	versionLine  = clitest.VersionLine
	runInStore   = clitest.RunInStore
)

const (
	judgeSystemStart = clitest.JudgeSystemStart
	fourClaims       = clitest.FourClaims
)

// promptFile writes a prompt set and returns each prompt by its call's
// cache key (clitest.PromptFile with the prompts benchmark's parser and plan).
func promptFile(t testing.TB, dir, name string, n int, text string) map[string]string {
	t.Helper()
	return clitest.PromptFile(t, dir, name, n, text, prompts.Parse, prompts.Plan)
}

// viewerOf is the viewer of dir's store (dir/f.db), closed with the test.
func viewerOf(t *testing.T, dir string) http.Handler {
	t.Helper()
	st, err := sqlite.Open(filepath.Join(dir, "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	v, err := web.New(st)
	if err != nil {
		t.Fatal(err)
	}
	return v.Handler()
}
