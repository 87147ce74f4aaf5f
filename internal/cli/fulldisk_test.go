package cli_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/internal/cachedir"
	"github.com/fallacylab/fallacylab/lifecycle"
	"github.com/fallacylab/fallacylab/llm/llmtest"
	"github.com/fallacylab/fallacylab/store/sqlite"
)

// A store on a full disk: the first failed write stops the sending, every
// paid answer is either stored or kept (and taken in by the next command
// on the store), the run fails (exit 2 for the jobs the full disk stopped,
// or 1 when the store then refuses the run's records too — never 0), and once there is room again the re-run
// pays only for what was never answered.
func TestFullDisk(t *testing.T) {
	dir := t.TempDir()
	disk := filepath.Join(dir, "disk")
	os.Mkdir(disk, 0o755)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", disk).CombinedOutput(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("mount a small tmpfs (CI runs as root): %v %s", err, out)
		}
		t.Skipf("cannot mount a small tmpfs here (%v %s): CI does", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", disk).Run() })
	srv := llmtest.New(llmtest.Options{APIKey: "test-key", Respond: func(c llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Text: c.Prompt + " " + strings.Repeat("a long answer that fills the disk ", 250)}
	}})
	defer srv.Close()
	if err := writeConfig(dir, srv); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENAI_API_KEY", "test-key")
	const n = 300
	promptOf := promptFile(t, dir, "plan.jsonl", n, "full disk prompt")
	db := filepath.Join(disk, "f.db")
	// Each run is a process of its own, as a user's is: the run a full
	// disk left marked running is resumed once its process is gone.
	var last []byte
	run := func() int {
		cmd := exec.Command(os.Args[0], "--db", db, "--quiet", "prompts", "run", filepath.Join(dir, "plan.jsonl"), "--models", "openai:gpt-4.1-mini", "--concurrency", "4")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "FALLACYLAB_BE_CLI=1")
		out, _ := cmd.CombinedOutput()
		last = out
		t.Logf("%s", out[max(0, len(out)-700):])
		return cmd.ProcessState.ExitCode()
	}
	if code := run(); code != lifecycle.ExitFailedJobs && (code != 1 || !strings.Contains(string(last), "disk is full")) {
		t.Fatalf("a run on a full disk exits %d, want %d (or 1, naming the full disk)", code, lifecycle.ExitFailedJobs)
	}
	paid := map[string]bool{}
	for _, e := range srv.Ledger() {
		paid[e.Call.Prompt] = true
	}
	if len(paid) == n {
		t.Fatalf("all %d calls were paid: the disk never filled, or sending went on after it did", n)
	}
	// What the store holds and what waits for it.
	kept := map[string]bool{}
	if f, err := os.Open(keptFile(t, db)); err == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			for k, p := range promptOf {
				if strings.Contains(sc.Text(), k) {
					kept[p] = true
				}
			}
		}
		f.Close()
	}
	// Room again: the store takes in what waited, and a re-run pays for
	// the rest only.
	if out, err := exec.Command("mount", "-o", "remount,size=64m", disk).CombinedOutput(); err != nil {
		t.Fatalf("remount: %v %s", err, out)
	}
	stored := storedPrompts(t, db, promptOf)
	for p := range paid {
		if !stored[p] && !kept[p] {
			t.Fatalf("paid for %q, but it is neither stored nor kept", p)
		}
	}
	t.Logf("%d paid, %d stored, %d kept for the store", len(paid), len(stored), len(kept))
	from := len(srv.Ledger())
	if code := run(); code != 0 {
		t.Fatalf("the re-run with room exits %d", code)
	}
	for _, e := range srv.Ledger()[from:] {
		if paid[e.Call.Prompt] {
			t.Fatalf("%q was paid for again", e.Call.Prompt)
		}
	}
	if got := len(srv.Ledger()); got != n {
		t.Fatalf("%d calls paid for %d prompts", got, n)
	}
}

// keptFile is where the CLI keeps the answers a store refused.
func keptFile(t *testing.T, db string) string {
	dir := cachedir.Dir(cachedir.UnwrittenEnv, "unwritten")
	matches, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(matches) == 0 {
		return ""
	}
	return matches[0]
}

// storedPrompts are the prompts whose answers the store at db holds.
func storedPrompts(t *testing.T, db string, promptOf map[string]string) map[string]bool {
	t.Helper()
	st, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	keys, err := st.OKKeys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for k := range keys {
		out[promptOf[k]] = true
	}
	return out
}
