package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// newProcID names one engine among the processes exchanging signals and
// claiming calls: host/pid/random, so a claim left by a process of this
// host that died can be taken over at once (deadHere).
func newProcID() string {
	var b [8]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return fmt.Sprintf("%s/%d/%s", hostname(), os.Getpid(), hex.EncodeToString(b[:]))
}

// hostname is this host's name ("" when it has none).
func hostname() string {
	h, _ := os.Hostname()
	return strings.ReplaceAll(h, "/", "_")
}

// SharedSignals pass a provider's push-back between every process using
// one store (workers on several machines), so that each one's adaptive
// concurrency reacts to the 429s any of them gets and a Retry-After told to
// one holds them all. Exchange publishes this process's (proc's) count of
// pushed-back calls of scope so far and how long its calls are held
// (0: not), and returns the others' count so far and the longest hold
// anyone published that is still running.
type SharedSignals interface {
	Exchange(ctx context.Context, scope, proc string, pushed int64, hold time.Duration) (othersPushed int64, holdLeft time.Duration, err error)
}

// exchangeEvery is how often a model's signals are exchanged while its
// calls go on (no calls, no exchanges).
const exchangeEvery = 500 * time.Millisecond

// signals is one model's share of the exchange: its own push-backs so far,
// the others' as last seen, and when it last exchanged.
type signals struct {
	mu      sync.Mutex
	pushed  int64 // this process's, so far
	seen    int64 // the others', at the last exchange (-1: none yet)
	last    time.Time
	running bool
	again   bool // a hold came while an exchange ran: publish it next
}

// signal counts one of this process's calls of the model and, at most every
// exchangeEvery and one at a time, exchanges in the background: the
// others' new push-backs count in the model's adaptive window as if its
// own (the provider limits the model, not the process), and their holds
// hold its gate.
func (e *Engine) signal(m *modelLimits, scope string, pushed bool) {
	if e.opt.Signals == nil {
		return
	}
	// A hold is published at once: the calls it holds here end, and with
	// them the occasions to exchange, until it runs out.
	urgent := pushed && time.Until(m.gate.pausedUntil()) > 0
	s := &m.sig
	s.mu.Lock()
	defer s.mu.Unlock()
	if pushed {
		s.pushed++
	}
	if s.running {
		s.again = s.again || urgent
		return
	}
	if !urgent && time.Since(s.last) < exchangeEvery {
		return
	}
	s.running = true
	go e.exchange(m, scope)
}

// exchange runs exchanges for the model until none is due.
func (e *Engine) exchange(m *modelLimits, scope string) {
	s := &m.sig
	for {
		s.mu.Lock()
		s.last, s.again = time.Now(), false
		mine := s.pushed
		s.mu.Unlock()
		hold := max(0, time.Until(m.gate.pausedUntil()))
		others, left, err := e.opt.Signals.Exchange(context.Background(), scope, e.proc, mine, hold)
		s.mu.Lock()
		switch {
		case err != nil:
			if e.opt.Log != nil {
				e.opt.Log.Warn("push-back signals not exchanged", "model", scope, "err", err)
			}
		default:
			if s.seen >= 0 && others > s.seen {
				m.sem.absorb(int(others - s.seen))
			}
			s.seen = others
			if left > 0 {
				m.gate.hold(time.Now().Add(left))
			}
		}
		if !s.again {
			s.running = false
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
	}
}
