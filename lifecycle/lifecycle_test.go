package lifecycle_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/store/sqlite"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/lifecycle"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/store"
)

func openStore(t *testing.T) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "l.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// deadPID is the id of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no `true` to run:", err)
	}
	return cmd.Process.Pid
}

// zombiePID is the id of a process killed and not yet reaped (a zombie,
// as a killed command is in a container whose first process reaps
// nothing); the test reaps it at its end.
func zombiePID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip("no `sleep` to run:", err)
	}
	cmd.Process.Kill()
	t.Cleanup(func() { cmd.Wait() })
	for range 100 { // until the kernel has made it a zombie
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid)); err != nil || strings.Contains(string(b), ") Z") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return cmd.Process.Pid
}

func TestStateNoticesDeadProcesses(t *testing.T) {
	host, _ := os.Hostname()
	now := time.Now()
	cases := []struct {
		name string
		run  store.Run
		want string
	}{
		{"alive", store.Run{Status: store.RunRunning, PID: os.Getpid(), Host: host, Heartbeat: now}, store.RunRunning},
		{"dead process", store.Run{Status: store.RunRunning, PID: deadPID(t), Host: host, Heartbeat: now}, store.RunInterrupted},
		{"killed, not yet reaped", store.Run{Status: store.RunRunning, PID: zombiePID(t), Host: host, Heartbeat: now}, store.RunInterrupted},
		{"other host, fresh heartbeat", store.Run{Status: store.RunRunning, PID: 1, Host: "elsewhere", Heartbeat: now}, store.RunRunning},
		{"other host, stale heartbeat", store.Run{Status: store.RunRunning, PID: 1, Host: "elsewhere", Heartbeat: now.Add(-time.Hour)}, store.RunInterrupted},
		{"old store, no owner", store.Run{Status: store.RunRunning, Started: now.Add(-time.Hour)}, store.RunInterrupted},
		{"done", store.Run{Status: store.RunDone, PID: deadPID(t), Host: host}, store.RunDone},
	}
	for _, c := range cases {
		if got := lifecycle.State(c.run, now); got != c.want {
			t.Errorf("%s: state %s, want %s", c.name, got, c.want)
		}
	}
}

func result(model string, err error, cached bool, text string) engine.Result {
	r := engine.Result{Job: engine.Job{Spec: llm.Spec{Provider: "p", Model: model}}, Err: err, Cached: cached}
	if err == nil {
		r.Response = &llm.Response{Text: text}
	}
	return r
}

func TestResumeAndFinish(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	spec := lifecycle.Spec{Name: "n", Benchmark: "b", Fingerprint: lifecycle.Fingerprint("b", "same command")}
	r1, err := lifecycle.Start(ctx, st, spec, lifecycle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The same command while the first is alive in this process: refused.
	if _, err := lifecycle.Start(ctx, st, spec, lifecycle.Options{}); !errors.Is(err, lifecycle.ErrStillRunning) {
		t.Fatalf("second start while running: %v", err)
	}
	ph := r1.Phase("generation", "")
	ph.Observe(result("m", nil, false, "ok"), true)
	ph.Observe(result("m", errors.New("boom"), false, ""), true)
	if err := ph.End(ctx, engine.Summary{Progress: engine.Progress{Total: 2, Done: 2, Failed: 1}}); err != nil {
		t.Fatal(err)
	}
	err = r1.Finish(ctx, nil)
	var ee *lifecycle.ExitError
	if !errors.As(err, &ee) || ee.Code != lifecycle.ExitFailedJobs {
		t.Fatalf("finish with a failed job: %v", err)
	}
	got, _, _ := st.Run(ctx, r1.ID)
	if got.Status != store.RunIncomplete || got.Reason != "1 of 2 jobs failed" {
		t.Fatalf("stored %q %q", got.Status, got.Reason)
	}
	// Re-running the command resumes the same run and can finish it.
	r2, err := lifecycle.Start(ctx, st, spec, lifecycle.Options{})
	if err != nil || r2.ID != r1.ID || !r2.Resumed || r2.Previous != store.RunIncomplete {
		t.Fatalf("resume: %v %+v", err, r2)
	}
	ph = r2.Phase("generation", "")
	ph.Observe(result("m", nil, true, "ok"), true)
	ph.Observe(result("m", nil, false, "ok"), true)
	if err := ph.End(ctx, engine.Summary{Progress: engine.Progress{Total: 2, Done: 2, Cached: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := r2.Finish(ctx, nil); err != nil {
		t.Fatal(err)
	}
	got, _, _ = st.Run(ctx, r1.ID)
	phases, _ := st.Phases(ctx, r1.ID)
	if got.Status != store.RunDone || got.Reason != "" || len(phases) != 1 || phases[0].Answered != 2 || phases[0].Cached != 1 || phases[0].Failed != 0 {
		t.Fatalf("after the resume: %+v %+v", got, phases)
	}
	// A done run is not resumed: the same command again is a new run.
	r3, err := lifecycle.Start(ctx, st, spec, lifecycle.Options{})
	if err != nil || r3.ID == r1.ID || r3.Resumed {
		t.Fatalf("after done: %v %+v", err, r3)
	}
	r3.Finish(ctx, context.Canceled)
	got, _, _ = st.Run(ctx, r3.ID)
	if got.Status != store.RunInterrupted {
		t.Fatalf("cancelled run stored as %s", got.Status)
	}
}

func TestUnusableLimit(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	for _, c := range []struct {
		limit    float64
		unusable int
		fail     bool
	}{{0.2, 2, false}, {0.2, 3, true}, {-1, 10, false}, {0.5, 5, false}, {0.5, 6, true}, {0, 0, false}, {0, 1, true}} {
		r, err := lifecycle.Start(ctx, st, lifecycle.Spec{Name: "u", Benchmark: "b"}, lifecycle.Options{MaxUnusable: &c.limit})
		if err != nil {
			t.Fatal(err)
		}
		ph := r.Phase("judging", "is the judge able to follow the rubric?")
		for i := range 10 {
			ph.Observe(result("judge", nil, false, "answer "+strings.Repeat("x", i)), i >= c.unusable)
		}
		ph.Observe(result("good", nil, false, "fine"), true)
		err = ph.End(ctx, engine.Summary{})
		var ee *lifecycle.ExitError
		failed := errors.As(err, &ee) && ee.Code == lifecycle.ExitUnusable
		if failed != c.fail {
			t.Fatalf("limit %v, %d of 10 unusable: %v", c.limit, c.unusable, err)
		}
		if failed && (!strings.Contains(err.Error(), "judging: ") || !strings.Contains(err.Error(), "from p:judge") ||
			strings.Contains(err.Error(), "p:good") || !strings.Contains(err.Error(), "«answer »") || !strings.Contains(err.Error(), "follow the rubric")) {
			t.Fatalf("message: %v", err)
		}
		if ferr := r.Finish(ctx, err); failed {
			got, _, _ := st.Run(ctx, r.ID)
			if got.Status != store.RunFailed || !errors.As(ferr, &ee) || ee.Code != lifecycle.ExitUnusable || strings.Contains(got.Reason, "\n") {
				t.Fatalf("stored %+v, finish %v", got, ferr)
			}
		}
	}
}

func TestPickRefusesUnfinished(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	done, _ := lifecycle.Start(ctx, st, lifecycle.Spec{Name: "first", Benchmark: "deflect"}, lifecycle.Options{})
	done.Finish(ctx, nil)
	killed, _ := st.StartRun(ctx, store.Run{Name: "killed import", Benchmark: "deflect", PID: deadPID(t), Host: func() string { h, _ := os.Hostname(); return h }()})
	_, err := lifecycle.Pick(ctx, st, "deflect", "DeflectBench", 0, false, nil)
	if !errors.Is(err, lifecycle.ErrNotDone) || !strings.Contains(err.Error(), "run 2 (killed import)") || !strings.Contains(err.Error(), "runs rm 2") {
		t.Fatalf("newest run killed: %v", err)
	}
	if r, err := lifecycle.Pick(ctx, st, "deflect", "DeflectBench", done.ID, false, nil); err != nil || r.ID != done.ID {
		t.Fatalf("--run 1: %v", err)
	}
	if r, err := lifecycle.Pick(ctx, st, "deflect", "DeflectBench", killed, true, nil); err != nil || r.ID != killed {
		t.Fatalf("--run 2 --allow-incomplete: %v", err)
	}
	if _, err := lifecycle.Pick(ctx, st, "missci", "Missci", 0, false, nil); !errors.Is(err, lifecycle.ErrNoRun) {
		t.Fatalf("no missci run: %v", err)
	}
	if _, err := lifecycle.Pick(ctx, st, "missci", "Missci", done.ID, false, nil); err == nil {
		t.Fatal("a deflect run picked as missci")
	}
}
