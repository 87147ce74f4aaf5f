package cli_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/fallacylab/fallacylab/cachedir"
	"github.com/fallacylab/fallacylab/internal/cli"
	"github.com/fallacylab/fallacylab/internal/cli/clitest"
	"github.com/fallacylab/fallacylab/llm/llmtest"
	"github.com/fallacylab/fallacylab/reportcache"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	clitest.Main() // the kill tests run the CLI as a subprocess
	// Reports cached by the tests, and the stores' checks, go to folders of
	// their own, not the user's cache (testscript.Main exits: the folders
	// stay in the temp folder).
	cachedir.Isolate()
	testscript.Main(m, map[string]func(){"fallacylab": func() { os.Exit(cli.Main()) }})
}

type serverKey struct{}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			srv := llmtest.New(llmtest.Options{APIKey: "test-key", Keyless: true, BatchPolls: 1, Respond: echoOrJudge})
			env.Defer(srv.Close)
			env.Values[serverKey{}] = srv
			for _, k := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"} {
				env.Setenv(k, "test-key")
			}
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(env.WorkDir, ".xdg"))
			env.Setenv(reportcache.Env, filepath.Join(env.WorkDir, ".report-cache"))
			if repo, err := filepath.Abs("../.."); err == nil {
				env.Setenv("REPO", repo) // for scripts that check files of the repository (docs/examples)
			}
			return writeConfig(env.WorkDir, srv)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// requests N [batch]: the server has received exactly N model requests.
			"requests": func(ts *testscript.TestScript, neg bool, args []string) {
				srv := ts.Value(serverKey{}).(*llmtest.Server)
				want, err := strconv.Atoi(args[0])
				ts.Check(err)
				got := len(srv.Ledger())
				if (got == want) == neg {
					ts.Fatalf("server received %d requests, want %d", got, want)
				}
			},
			// faults RATE: the server answers 429 to that share of requests from now on.
			"faults": func(ts *testscript.TestScript, neg bool, args []string) {
				srv := ts.Value(serverKey{}).(*llmtest.Server)
				rate, err := strconv.ParseFloat(args[0], 64)
				ts.Check(err)
				srv.Update(func(o *llmtest.Options) {
					o.Rates.RateLimit = rate
					o.RetryAfter = 1
				})
			},
		},
	})
}
