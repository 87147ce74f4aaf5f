package engine

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/fallacylab/fallacylab/procstate"
	"github.com/fallacylab/fallacylab/store"
)

// Claimer is a store shared by processes that claims a call key before
// the call is paid for (store.Claims).
type Claimer = store.Claims

// claimLease is how long a claim holds without renewal; claims are renewed
// every claimLease/3 while their calls are in flight, so a claim outlives
// its process by at most claimLease.
var claimLease = 45 * time.Second

// claimPoll bounds the wait between looks at another process's claim.
var claimPoll = time.Second

// claims returns the store's claims, or nil (no claims: a store of one
// process, or --cache only, which sends nothing).
func (e *Engine) claims() Claimer {
	if e.opt.Cache == CacheOnly {
		return nil
	}
	c, _ := e.opt.Store.(Claimer)
	return c
}

// claim claims key before the job's call is paid. While another process
// holds it, claim waits for that process's answer and returns it as a
// cache hit (hit true), or takes the claim over once its lease has run out.
// It returns with the claim held (hit false) or with ctx's error; taken
// says the claim was taken over from a dead owner, which had most likely
// sent — and paid for — the call already.
func (e *Engine) claim(ctx, callCtx context.Context, c Claimer, j Job, key string) (r Result, hit, taken bool, err error) {
	wait := 50 * time.Millisecond
	reader, reads := c.(store.ClaimReader)
	for {
		// With a store that reads as it claims (store.ClaimReader), read
		// says the claim got read what is stored for key: answered, and
		// if so stored.
		var got, read, answered bool
		var stored store.Call
		err := e.retryStore(callCtx, func() (err error) {
			if reads {
				got, stored, answered, err = reader.ClaimCallRead(callCtx, key, e.proc, claimLease)
				read = got
				return err
			}
			got, err = c.ClaimCall(callCtx, key, e.proc, claimLease)
			return err
		})
		if err != nil {
			return r, false, false, err
		}
		if !got {
			// A process killed while its call was in flight holds its
			// claim until the lease runs out; a run resumed after it, or
			// a worker given its job, need not wait that long: a process
			// of this host that is gone, or one the store knows is dead
			// (Options.DeadOwner: a worker silent past its lease).
			if o, err := c.ClaimOwner(callCtx, key); err == nil && o != "" && o != e.proc &&
				(deadHere(o) || e.opt.DeadOwner != nil && e.opt.DeadOwner(callCtx, o)) {
				if got, err = c.TakeClaim(callCtx, key, o, e.proc, claimLease); err != nil {
					return r, false, false, err
				}
				taken = got
			}
		}
		if got {
			// The answer may have been stored between this job's cache
			// look-up and its claim (the claim ends with the answer).
			var ok bool
			if read {
				r, ok = e.answerMeanwhile(callCtx, j, key, stored, answered)
			} else {
				r, ok = e.answeredMeanwhile(callCtx, j, key)
			}
			if ok {
				e.release(c, key)
				return r, true, false, nil
			}
			return Result{}, false, taken, nil
		}
		select {
		case <-ctx.Done():
			return r, false, false, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, claimPoll)
		if r, ok := e.answeredMeanwhile(callCtx, j, key); ok {
			return r, true, false, nil
		}
	}
}

// answeredMeanwhile is the answer another process stored for key while this
// one waited for its claim (under --cache refresh, one stored since this
// engine's run began).
func (e *Engine) answeredMeanwhile(ctx context.Context, j Job, key string) (Result, bool) {
	s, ok, err := e.opt.Store.GetCall(ctx, key)
	return e.answerMeanwhile(ctx, j, key, s, ok && err == nil)
}

// answerMeanwhile is answeredMeanwhile of s, the answer read for key (ok:
// there is one).
func (e *Engine) answerMeanwhile(ctx context.Context, j Job, key string, s store.Call, ok bool) (Result, bool) {
	r := Result{Job: j, Key: key}
	if !ok {
		return r, false
	}
	since := e.began
	if j.RefreshAfter.After(since) {
		since = j.RefreshAfter
	}
	if e.refreshes(j) && s.CreatedAt.Before(since) {
		return r, false
	}
	r.Response, r.Cached, r.Cost = s.Response, true, s.Cost
	if err := e.opt.Store.LinkRun(ctx, e.opt.RunID, key, j.ID, true); err != nil {
		r.Err = err
	}
	return r, true
}

// renewClaims keeps this engine's claims alive until stop is closed.
func (e *Engine) renewClaims(c Claimer, stop <-chan struct{}) {
	t := time.NewTicker(claimLease / 3)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), claimLease/3)
			if err := c.RenewClaims(ctx, e.proc, claimLease); err != nil && e.opt.Log != nil {
				e.opt.Log.Warn("renewing call claims failed", "err", err.Error())
			}
			cancel()
		}
	}
}

// release gives up the claim on key of a call that was not made.
func (e *Engine) release(c Claimer, key string) {
	if c == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.ReleaseClaim(ctx, key, e.proc); err != nil && e.opt.Log != nil {
		e.opt.Log.Warn("releasing a call claim failed", "key", key, "err", fmt.Sprint(err))
	}
}

// deadHere reports whether a claim's owner (newProcID's host/pid/…) is a
// process of this host that is gone.
func deadHere(owner string) bool {
	host, rest, ok := strings.Cut(owner, "/")
	if !ok {
		return false
	}
	p, _, _ := strings.Cut(rest, "/")
	pid, err := strconv.Atoi(p)
	return err == nil && host == hostname() && pid != os.Getpid() && !procstate.Alive(pid)
}
