package engine_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
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

// TestClaimOfADeadWorkerElsewhere (#26 item 7): a claim whose owner runs on
// another host is taken over at once when the store knows that owner is
// dead (Options.DeadOwner: a worker silent past its lease). A call the dead
// owner had sent (its mark, MarkSent, is there) counts as paid twice — its
// attempts and its cost include the dead owner's — so the spend shows what
// the kill cost; a call it had only claimed (waiting for its rate limit
// when it died) counts once: the spend is what was sent (#41 item 10).
func TestClaimOfADeadWorkerElsewhere(t *testing.T) {
	st, srv := openStore(t), llmtest.New(llmtest.Options{})
	defer srv.Close()
	const dead = "another-host/4242/worker"
	opts := fastOpts(st, srv)
	opts.Prices = llm.Prices{"openai:m": {Input: 1, Output: 1}}
	var mu sync.Mutex
	var asked []string
	opts.DeadOwner = func(_ context.Context, owner string) bool {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, owner)
		return owner == dead
	}
	e := engine.New(opts)
	ctx := context.Background()
	p := plan(2, "openai")
	var keys []string
	for j := range p.Jobs {
		k := e.Place(j).Key()
		keys = append(keys, k)
		if got, err := st.ClaimCall(ctx, k, dead, time.Hour); err != nil || !got {
			t.Fatalf("claim: %v %v", got, err)
		}
		if len(keys) == 1 { // the first was sent, the second only claimed
			if err := st.MarkSent(ctx, k, dead, 0, 0.5); err != nil {
				t.Fatal(err)
			}
		}
	}
	run, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	sum, err := e.Run(run, p, nil)
	if err != nil || sum.Done != len(keys) || sum.Failed != 0 {
		t.Fatalf("the run after the dead worker: %+v, %v", sum, err)
	}
	if n := len(srv.Ledger()); n != len(keys) {
		t.Fatalf("%d requests for %d calls", n, len(keys))
	}
	if e.Repaid() != 1 || len(asked) == 0 {
		t.Fatalf("%d calls counted as paid twice, want 1 (DeadOwner asked about %v)", e.Repaid(), asked)
	}
	for i, k := range keys {
		c, ok, err := st.GetCall(ctx, k)
		if err != nil || !ok {
			t.Fatalf("call %s: %v %v", k, ok, err)
		}
		once, priced := opts.Prices.Cost(llm.Spec{Provider: c.Provider, Model: c.Model}, c.Usage)
		want := 2 - i // sent twice, or once
		if c.Attempts != want || c.Cost == nil || !priced || *c.Cost != float64(want)*once {
			t.Fatalf("call %s: %d attempts, cost %v; want %d attempts and %d times %v", k, c.Attempts, c.Cost, want, want, once)
		}
	}
}
