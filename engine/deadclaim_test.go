package engine_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm/llmtest"
)

// TestClaimOfADeadProcessIsTakenOver: a process of this host killed with
// its calls in flight leaves their claims, leased for long; the run that
// resumes after it takes them over at once and pays each call once, instead
// of waiting out the lease (on main: the whole lease, with every slot
// waiting). A live owner's claim is still waited for.
func TestClaimOfADeadProcessIsTakenOver(t *testing.T) {
	st, srv := openStore(t), llmtest.New(llmtest.Options{})
	defer srv.Close()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no `true` to run:", err)
	}
	host, _ := os.Hostname()
	p := plan(4, "openai")
	e := engine.New(fastOpts(st, srv))
	ctx := context.Background()
	for j := range p.Jobs {
		owner := fmt.Sprintf("%s/%d/killed", strings.ReplaceAll(host, "/", "_"), dead.Process.Pid)
		if got, err := st.ClaimCall(ctx, e.Place(j).Key(), owner, time.Hour); err != nil || !got {
			t.Fatalf("claim: %v %v", got, err)
		}
	}
	run, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	sum, err := e.Run(run, p, nil)
	if err != nil || sum.Done != 4 || sum.Failed != 0 {
		t.Fatalf("resumed run: %+v, %v", sum, err)
	}
	if n := len(srv.Ledger()); n != 4 { // four keys (two prompts, two samples each), each paid once
		t.Fatalf("%d requests for 4 calls", n)
	}
	// A claim whose owner lives (this process, under another engine) holds.
	live := plan(1, "anthropic")
	for j := range live.Jobs {
		owner := fmt.Sprintf("%s/%d/other", strings.ReplaceAll(host, "/", "_"), os.Getpid())
		if got, err := st.ClaimCall(ctx, e.Place(j).Key(), owner, time.Hour); err != nil || !got {
			t.Fatalf("claim: %v %v", got, err)
		}
	}
	short, cancel2 := context.WithTimeout(ctx, 1500*time.Millisecond)
	defer cancel2()
	if sum, _ := e.Run(short, live, nil); sum.Done != 0 {
		t.Fatalf("a live process's claim was taken: %+v", sum)
	}
}
