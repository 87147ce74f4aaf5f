package cli_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/cachedir"
	"github.com/fallacylab/fallacylab/internal/cli/clitest"
	"github.com/fallacylab/fallacylab/lifecycle"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/llm/llmtest"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/sqlite"
)

// A store on a full disk: the first failed write stops the sending, every
// paid answer is either stored or kept (and taken in by the next command
// on the store), the run fails (exit 2 for the jobs the full disk stopped,
// or 1 when the store then refuses the run's records too — never 0), and once there is room again the re-run
// pays only for what was never answered.
func TestFullDisk(t *testing.T) {
	dir := t.TempDir()
	// Room for the run's start and a few dozen answers.
	disk, db := smallDisk(t, dir, 1<<20)
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

// smallDisk mounts a tmpfs in dir that holds a new store, made at
// dir/disk/f.db, and room bytes more (CI runs as root; elsewhere the test
// is skipped when it cannot). Sized from the store it holds, the room does
// not depend on the size of the schema: a fixed 2 MB disk, of which a new
// store's write-ahead log took 1.9 MB, left a margin a busy machine's run
// could fill before its first call.
func smallDisk(t *testing.T, dir string, room int64) (disk, db string) {
	disk = filepath.Join(dir, "disk")
	os.Mkdir(disk, 0o755)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", disk).CombinedOutput(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("mount a small tmpfs (CI runs as root): %v %s", err, out)
		}
		t.Skipf("cannot mount a small tmpfs here (%v %s): CI does", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", disk).Run() })
	db = filepath.Join(disk, "f.db")
	st, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	var fs syscall.Statfs_t
	if err := syscall.Statfs(disk, &fs); err != nil {
		t.Fatal(err)
	}
	used := int64(fs.Blocks-fs.Bfree) * fs.Bsize
	if out, err := exec.Command("mount", "-o", fmt.Sprintf("remount,size=%dk", (used+room)/1024), disk).CombinedOutput(); err != nil {
		t.Fatalf("remount: %v %s", err, out)
	}
	return disk, db
}

// TestFullDiskThenKill (#41 item 9): the disk fills, the answers paid
// before are refused by the store, and the process is killed (kill -9)
// while calls are still in flight, before its run ends: every answered
// call is kept all the same (before, refused answers waited in memory
// until the run's end, and a kill lost them), and the next command on the
// store takes them in.
func TestFullDiskThenKill(t *testing.T) {
	dir := t.TempDir()
	// Room for the run's start (0.4 MB of the store's log before its first
	// call), not for one of its answers (room and 1 MB more each).
	const room = 2 << 20
	disk, db := smallDisk(t, dir, room)
	long := strings.Repeat("a long answer that fills the disk ", (room+1<<20)/34)
	var arrived atomic.Int64
	hold := make(chan struct{})
	var mu sync.Mutex
	paid := map[string]bool{} // answered before the kill
	srv := llmtest.New(llmtest.Options{APIKey: "test-key", Respond: func(c llmtest.Call) llmtest.Reply {
		if arrived.Add(1) > 2 {
			<-hold // in flight when the process is killed
			return llmtest.Reply{Text: "too late"}
		}
		// The two paid answers come back only once a third call is in
		// flight: the first refused write stops the sending, and a run with
		// nothing in flight would end before the kill (a busy machine can
		// otherwise answer the first call before the second is sent).
		for wait := time.Now().Add(30 * time.Second); arrived.Load() < 3 && time.Now().Before(wait); {
			time.Sleep(5 * time.Millisecond)
		}
		mu.Lock()
		paid[c.Prompt] = true
		mu.Unlock()
		return llmtest.Reply{Text: c.Prompt + " " + long}
	}})
	defer srv.Close()
	var release sync.Once
	defer release.Do(func() { close(hold) }) // before the server closes: it waits for its calls

	if err := writeConfig(dir, srv); err != nil {
		t.Fatal(err)
	}
	promptOf := promptFile(t, dir, "plan.jsonl", 40, "kill on a full disk prompt")
	cmd := exec.Command(os.Args[0], "--db", db, "prompts", "run", filepath.Join(dir, "plan.jsonl"), "--models", "openai:gpt-4.1-mini", "--concurrency", "4")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "FALLACYLAB_BE_CLI=1", "OPENAI_API_KEY=test-key")
	out, _ := os.Create(filepath.Join(dir, "run.log"))
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	answered := func() map[string]bool {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(paid)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	deadline := time.After(60 * time.Second) // a hang guard
	// The long answers do not fit the small disk: the store refuses the
	// first two, while the next calls are held in flight, so the run cannot
	// reach its end. Once both answers are kept (or stored), kill.
	keptLines := func() int {
		b, _ := os.ReadFile(keptFile(t, db))
		return strings.Count(string(b), "\n")
	}
	for n := len(answered()); n < 2 || keptLines()+len(storedPrompts(t, db, promptOf)) < n; n = len(answered()) {
		select {
		case <-exited:
			b, _ := os.ReadFile(filepath.Join(dir, "run.log"))
			t.Fatalf("the run ended before it was killed (%d calls arrived):\n%s", arrived.Load(), b)
		case <-deadline:
			cmd.Process.Kill()
			b, _ := os.ReadFile(filepath.Join(dir, "run.log"))
			t.Fatalf("%d calls arrived, %d answered, %d kept, %d stored: the refused answers were not kept while calls were in flight:\n%s",
				arrived.Load(), len(answered()), keptLines(), len(storedPrompts(t, db, promptOf)), b)
		case <-time.After(20 * time.Millisecond):
		}
	}
	cmd.Process.Kill()
	<-exited
	kept := keptFile(t, db)
	if kept == "" {
		b, _ := os.ReadFile(filepath.Join(dir, "run.log"))
		t.Fatalf("killed after the store refused two paid answers: none was kept\n%s", b)
	}
	b, _ := os.ReadFile(kept)
	stored := storedPrompts(t, db, promptOf)
	for p := range answered() {
		found := stored[p]
		for k, q := range promptOf {
			found = found || q == p && strings.Contains(string(b), k)
		}
		if !found {
			t.Fatalf("%q was answered (paid) before the kill, and is neither stored nor kept", p)
		}
	}
	// Room again: the next command takes them in.
	if out, err := exec.Command("mount", "-o", "remount,size=64m", disk).CombinedOutput(); err != nil {
		t.Fatalf("remount: %v %s", err, out)
	}
	release.Do(func() { close(hold) })
	from := len(srv.Ledger())
	again := exec.Command(os.Args[0], "--db", db, "--quiet", "prompts", "run", filepath.Join(dir, "plan.jsonl"), "--models", "openai:gpt-4.1-mini")
	again.Dir, again.Env = dir, cmd.Env
	if out, err := again.CombinedOutput(); err != nil {
		t.Fatalf("the re-run with room: %v\n%s", err, out)
	}
	for _, e := range srv.Ledger()[from:] {
		if answered()[e.Call.Prompt] {
			t.Fatalf("%q, answered before the kill, was paid for again", e.Call.Prompt)
		}
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

// TestKeptAnswersOfARunGone: answers a store refused are kept for it, with
// the runs that paid for them; when such a run is no longer in the store
// (deleted, or the store made anew at the same place), the next command
// still takes them in — cached, linked to no run — and says so. Before,
// the store refused them again at every command, and every command
// failed: "violates foreign key constraint".
func TestKeptAnswersOfARunGone(t *testing.T) {
	_, dir := clitest.Env(t, nil)
	if err := os.WriteFile(filepath.Join(dir, "p.jsonl"), []byte(`{"id": "p1", "prompt": "hello"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "f.db")
	abs, _ := filepath.Abs(db)
	sum := sha256.Sum256([]byte(abs))
	kept := filepath.Join(cachedir.Dir(cachedir.UnwrittenEnv, "unwritten"), hex.EncodeToString(sum[:12])+".jsonl")
	if err := os.MkdirAll(filepath.Dir(kept), 0o755); err != nil {
		t.Fatal(err)
	}
	c := store.Call{Key: "kept-key", Namespace: "prompts", Provider: "openai", Model: "gpt-4.1-mini", Request: json.RawMessage(`{}`),
		Status: store.StatusOK, Response: &llm.Response{Text: "paid for"}, Attempts: 1, CreatedAt: time.Now()}
	line, _ := json.Marshal(map[string]any{"call": c, "run_id": 42, "job": "job-1"})
	if err := os.WriteFile(kept, append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := runCLI(t, dir, "prompts", "run", filepath.Join(dir, "p.jsonl"), "--models", "openai:gpt-4.1-mini")
	if err != nil {
		t.Fatalf("the next run: %v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "took in 1 paid answer this store") || !strings.Contains(stderr, "1 of them of runs no longer in this store: linked to no run") {
		t.Fatalf("the take-in said:\n%s", stderr)
	}
	if _, err := os.Stat(kept); !os.IsNotExist(err) {
		t.Fatalf("the kept file is still there (%v)", err)
	}
	st, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got, ok, err := st.GetCall(context.Background(), "kept-key"); err != nil || !ok || got.Response.Text != "paid for" {
		t.Fatalf("the kept answer is not cached: %+v %v %v", got, ok, err)
	}
}
