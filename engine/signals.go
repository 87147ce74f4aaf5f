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
// concurrency reacts to the 429s any of them gets, a Retry-After told to
// one holds them all, and an unhinted limit is learned by the team as one
// process learns it (gate). Exchange publishes this process's (proc's)
// signal of scope and returns what the others published.
type SharedSignals interface {
	Exchange(ctx context.Context, scope, proc string, mine Signal) (Team, error)
}

// Signal is what one process publishes of one provider model.
type Signal struct {
	Pushed  int64         // its pushed-back calls so far
	Hold    time.Duration // how long its calls are held (0: not)
	Streak  int           // its bare 429s in a row, while it has not learned the limit
	Learned bool          // its gate learned an unhinted limit
	Limit   int           // its share of it: the calls it had admitted when it learned
	Window  time.Duration // the limit's window it measured or adopted (0: none yet)
	// TeamLimit is the limit of every process's calls together in one
	// window, as it holds it (0: not yet known).
	TeamLimit int
}

// Team is what the other processes published of one provider model.
type Team struct {
	OthersPushed int64         // their pushed-back calls so far
	HoldLeft     time.Duration // the longest hold still running
	// OthersStreak is the sum of the streaks of bare 429s of the live
	// processes (heard from in the last few seconds) that have not learned
	// the limit; OthersLearned, whether a live one has learned it.
	OthersStreak  int
	OthersLearned bool
	// OthersLimit is the sum of the shares of the live processes that
	// learned the limit; TeamLimit, the lowest team limit a live one holds
	// (0: none yet).
	OthersLimit int
	TeamLimit   int
	// Window is the window another process measured last (0: none).
	Window time.Duration
	// Leader: of the live processes that learned the limit, this one
	// probes for its window and tries calls past it; the others wait for
	// the window it measures and keep to their shares.
	Leader bool
}

// exchangeEvery is how often a model's signals are exchanged while its
// calls go on (no calls, no exchanges), and measureEvery while its gate
// waits for the window of a limit it learned (the leader's probes are
// seconds apart; a follower waits for the window the leader measures).
const (
	exchangeEvery = 500 * time.Millisecond
	measureEvery  = 100 * time.Millisecond
)

// signals is one model's share of the exchange: its own push-backs so far,
// the others' as last seen, what its gate published last, and when it
// last exchanged.
type signals struct {
	mu        sync.Mutex
	pushed    int64 // this process's, so far
	seen      int64 // the others', at the last exchange (-1: none yet)
	last      time.Time
	running   bool
	again     bool      // something urgent came while an exchange ran: publish it next
	published teamState // the gate's state at the last exchange
}

// signal counts one of this process's calls of the model and, at most every
// exchangeEvery and one at a time, exchanges in the background: the
// others' new push-backs count in the model's adaptive window as if its
// own (the provider limits the model, not the process), their holds hold
// its gate, and what the gates learn of an unhinted limit is shared.
func (e *Engine) signal(m *modelLimits, scope string, pushed bool) {
	if e.opt.Signals == nil {
		return
	}
	// A hold is published at once: the calls it holds here end, and with
	// them the occasions to exchange, until it runs out. So is a change in
	// what the gate knows of a limit: the others add this streak to
	// theirs, and follow the limit it learned.
	st := m.gate.teamState()
	s := &m.sig
	s.mu.Lock()
	defer s.mu.Unlock()
	urgent := pushed && time.Until(m.gate.pausedUntil()) > 0 || st != s.published
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

// exchange runs exchanges for the model until none is due; while its gate
// waits for a limit's window, every measureEvery.
func (e *Engine) exchange(m *modelLimits, scope string) {
	s := &m.sig
	for {
		st := m.gate.teamState()
		s.mu.Lock()
		s.last, s.again, s.published = time.Now(), false, st
		mine := Signal{Pushed: s.pushed, Streak: st.streak, Learned: st.learned, Limit: st.limit, Window: st.window, TeamLimit: st.teamLimit}
		s.mu.Unlock()
		mine.Hold = max(0, time.Until(m.gate.pausedUntil()))
		team, err := e.opt.Signals.Exchange(context.Background(), scope, e.proc, mine)
		if err == nil {
			m.gate.setTeam(team, st)
		}
		s.mu.Lock()
		switch {
		case err != nil:
			if e.opt.Log != nil {
				e.opt.Log.Warn("push-back signals not exchanged", "model", scope, "err", err)
			}
		default:
			if s.seen >= 0 && team.OthersPushed > s.seen {
				m.sem.absorb(int(team.OthersPushed - s.seen))
			}
			s.seen = team.OthersPushed
			if team.HoldLeft > 0 {
				m.gate.hold(time.Now().Add(team.HoldLeft))
			}
		}
		if s.again || m.gate.teamState() != s.published {
			s.mu.Unlock()
			continue
		}
		if m.gate.waitsForWindow() {
			s.mu.Unlock()
			time.Sleep(measureEvery)
			continue
		}
		s.running = false
		s.mu.Unlock()
		return
	}
}
