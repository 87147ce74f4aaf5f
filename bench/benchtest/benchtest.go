// Package benchtest is the harness a Task's tests run it with (inspect_ai's
// mockllm is the model): a scripted provider — an in-process server
// speaking OpenAI's, Anthropic's and Gemini's wire protocols, answering
// what the test scripts — a store in a temporary folder, and the Task's
// commands run as a user runs them, in this process, through the one
// runner and engine. Nothing of fallacylab is replaced: only the network.
//
// A Task's test package calls Main from its TestMain (so that a test may
// start fallacylab as a subprocess, to kill it), then:
//
//	h := benchtest.New(t, func(c llmtest.Call) llmtest.Reply { … })
//	h.Run("classify", "run", "--model", "openai:gpt-4.1-mini", "--limit", "20")
//	rep := h.Report("classify", "report")  // the stored run's report, parsed
package benchtest

import (
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/internal/cli/clitest"
	"github.com/fallacylab/fallacylab/llm/llmtest"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store/sqlite"
	"github.com/fallacylab/fallacylab/web"
	"github.com/fallacylab/fallacylab/web/webtest"
)

// Main runs fallacylab instead of the tests when the test binary was
// started as it (a test's subprocess); call it first in TestMain.
func Main() { clitest.Main() }

// Harness is a scripted provider, a store, and the CLI over them.
type Harness struct {
	t testing.TB
	// Dir is the folder of the store (f.db) and of the config pointing
	// every provider at Server.
	Dir string
	// Server is the scripted provider: its Ledger is every request it got.
	Server *llmtest.Server
}

// New is a harness whose provider answers with respond (nil: it echoes
// prompts, and answers DeflectBench's judge prompts with a valid rubric).
func New(t testing.TB, respond func(llmtest.Call) llmtest.Reply) *Harness {
	t.Helper()
	srv, dir := clitest.Env(t, respond)
	return &Harness{t: t, Dir: dir, Server: srv}
}

// Try runs a fallacylab command (its arguments after `fallacylab`) on the
// harness' store and returns its stdout, its stderr and its error.
func (h *Harness) Try(args ...string) (stdout, stderr string, err error) {
	h.t.Helper()
	return clitest.RunIn(h.t, h.Dir, h.DB(), args...)
}

// Run runs a command that must succeed and returns its stdout; a failure
// fails the test with the command's stderr.
func (h *Harness) Run(args ...string) string {
	h.t.Helper()
	out, stderr, err := h.Try(args...)
	if err != nil {
		h.t.Fatalf("fallacylab %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return out
}

// Report runs a report command (its arguments; --format json is added)
// and returns the report it wrote, parsed.
func (h *Harness) Report(args ...string) *report.Report {
	h.t.Helper()
	out := h.Run(append(args, "--format", "json")...)
	rep, err := report.FromJSON([]byte(out))
	if err != nil {
		h.t.Fatalf("fallacylab %s: the report does not read back: %v\n%.500s", strings.Join(args, " "), err, out)
	}
	return rep
}

// Calls is how many requests the provider got.
func (h *Harness) Calls() int { return len(h.Server.Ledger()) }

// DB is the harness' store.
func (h *Harness) DB() string { return filepath.Join(h.Dir, "f.db") }

// Viewer is the viewer of the harness' store, as a visitor (cookies
// kept) that requests its pages in this process; the store closes when
// the test ends.
func (h *Harness) Viewer() func(method, path string, form url.Values) *httptest.ResponseRecorder {
	h.t.Helper()
	st, err := sqlite.Open(h.DB())
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { st.Close() })
	v, err := web.New(st)
	if err != nil {
		h.t.Fatal(err)
	}
	return webtest.Visitor(v.Handler())
}

// Table is the report's table with this id (the test fails without it).
func Table(t testing.TB, rep *report.Report, id string) *report.Table {
	t.Helper()
	for _, tb := range rep.Tables() {
		if tb.ID == id {
			return tb
		}
	}
	t.Fatalf("report %q has no table %q", rep.Title, id)
	return nil
}
