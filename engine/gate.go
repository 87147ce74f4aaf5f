package engine

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/fallacylab/fallacylab/llm"
)

// gate holds a model's calls back when its provider's rate limit is spent,
// learning the limit as the run goes:
//
//   - from rate-limit headers (OpenAI's x-ratelimit-*, Anthropic's
//     anthropic-ratelimit-*): what remains of the requests and tokens, and
//     when they reset; a call is held once either runs out, until the reset;
//   - from Retry-After on a 429: every call of the model waits that long,
//     not only the one that was refused;
//   - from 429s that say nothing (no Retry-After, no headers: a per-minute
//     limit in a plain proxy): once 12 calls in a row, in the order they
//     were sent, were such 429s (a provider over its limit refuses every
//     call sent after it filled up, while the answers to calls sent before
//     are still arriving; random 429s are not 12 in a row; while a streak
//     grows, calls go one at a time), the limit is the
//     calls it admitted in the last minute. One probe call at a time then
//     finds when the provider has room again: probes go when the oldest of
//     those admitted calls is 1.07, 1.58, 2.09, 3.11 … 56.15, 60.2, 60.5, 62 … s old
//     (probeAges: finer for short windows), and the age at
//     the first admitted probe is the window — taken as soon as the
//     probe is not refused at once (silence), not when its answer comes a
//     whole latency later (a provider refuses at once). Calls
//     are then sent only while fewer than the limit were admitted in a
//     sliding window, which grows by 5 % on any later hintless 429 at the
//     limit;
//   - the limit learned may be only this model's share of a limit it shares
//     with others (a per-key limit: the 429s began for every model at once,
//     and each learned what it had admitted), and their shares free up when
//     the others finish. So while the limit holds calls back, every other
//     answer of the window is in and admitted, and the oldest of them is
//     under half the window old (the provider still counts them all), extra
//     calls go past the limit: one at first, and one more for each admitted
//     (slow start: each admitted extra call raises the limit by one); after
//     the first refused one, none for a quarter of the window. A limit that
//     is the provider's costs a refusal or two a window; a share with room
//     grows into it within a few answers' time. A hintless 429 while fewer
//     than the limit are admitted or on their way (the other models take
//     their shares again) lowers the limit to those.
//
// No library learns a limit from answers like this; x/time/rate enforces a
// known one (the engine uses it for --rpm and --tpm).
type gate struct {
	mu      sync.Mutex
	changed chan struct{}

	req, tok headerQuota
	pause    time.Time // Retry-After: no call before this

	// refused are the send times of hintless 429s sent after the last
	// admitted call (lastAdmit): a streak in send order.
	refused   []time.Time
	lastAdmit time.Time
	learned   bool
	measuring bool      // learned, window not yet measured
	oldest    time.Time // the oldest admitted call when the limit was learned
	limit     int
	window    time.Duration
	admitted  []time.Time // send times of admitted calls, sorted, within window
	inflight  int
	suspects  int         // calls in flight sent while a bare-429 streak grew
	flying    []time.Time // send times of the calls in flight, sorted
	probing   bool
	probeSent time.Time     // when the probe in flight was sent
	refusedIn time.Duration // the longest a bare 429 took to come back
	// provisional: the window is the age of the probe in flight, which
	// was not refused within silence; its answer confirms it, or its
	// refusal (a provider slow to refuse) sets the gate measuring again.
	provisional bool
	nextTry     time.Time
	extras      int                           // extra calls past the learned limit in flight
	extraRoom   int                           // how many may be in flight (0: none until nextExtra)
	raisedAt    int                           // the limit when the extra calls began
	nextExtra   time.Time                     // no extra call before this
	note        func(msg string, args ...any) // what the gate learned (nil: nothing said)

	// What the other processes of the store know of the limit (setTeam):
	// their streaks of bare 429s add to this gate's, and a follower does
	// not probe: it adopts the window the leader measured. Once the window
	// is known, the processes hold teamLimit calls a window together
	// (pace: the engine's shared bucket) instead of each its share.
	team          bool   // the engine exchanges signals with other processes
	refusals      uint64 // bare 429s before a limit was learned, so far
	heard         uint64 // refusals the others had heard of at the last exchange
	othersStreak  int
	othersLearned bool
	othersLimit   int
	teamLimitIn   int // the lowest team limit the others hold
	teamWindow    time.Duration
	follower      bool
	teamLimit     int       // the team's calls a window (0: each process holds its share)
	share         int       // the calls admitted when the limit was learned (limit is at least 1)
	debt          int       // this gate's calls still in the window when the team began to hold it
	widened       time.Time // when a refusal past the limit last widened the window

	// quiet: after a bare 429 at a learned limit, no call before this. The
	// provider's window is full of calls this gate does not see (another
	// process's, another model's): refused calls never count in its window,
	// so without a pause each refusal would free a slot for the next doomed
	// call. quietFor doubles from window/16 with each such refusal in a
	// row, up to half the window, and an admitted call ends it. A row is
	// of calls sent one after another's refusal: the refusals of calls
	// sent before the quiet began (quietSince) were in flight together,
	// one moment's news, and neither double nor lengthen it — six of them
	// once kept a run silent for half a minute.
	quiet      time.Time
	quietFor   time.Duration
	quietSince time.Time
}

// headerQuota is one limit as the headers last told it.
type headerQuota struct {
	known     bool
	limit     int64
	remaining int64
	reset     time.Time
	span      time.Duration // the last reset the headers gave
	epoch     time.Time     // when the present period began (at a reset)
}

func newGate(note func(msg string, args ...any)) *gate {
	return &gate{changed: make(chan struct{}), window: maxWindow, note: note}
}

// streak is how many hintless 429s in a row (in send order) mean a
// limit: 30 % of random 429s give twelve in a row once in two million.
const streak = 12

// reorder is how far apart two calls' send times may be while they still
// reach the provider in the other order (at a ramp-up's burst of new
// connections, 100 ms and more). It also means twelve random bare 429s
// within 200 ms look like a limit: providers that refuse at random say
// when to retry (a hint), and those 429s never count.
const reorder = 200 * time.Millisecond

// maxWindow is the longest window the gate assumes (providers limit per
// minute) and the first it counts admitted calls over.
const maxWindow = time.Minute

// ticket is one call let through the gate.
type ticket struct {
	sent    time.Time
	probe   bool
	extra   bool // past the learned limit: does the provider have room?
	suspect bool // sent one at a time while a streak of bare 429s grew
}

// errPace: the processes of the store began to hold the limit together
// while the call waited at the gate; it must take its turn from their
// shared bucket first.
var errPace = errors.New("engine: the team holds the limit: take a turn first")

// wait blocks until a call with about tokens tokens may be sent. paced:
// the call took its turn from the team's shared bucket (or there is none).
func (g *gate) wait(ctx context.Context, tokens int64, paced bool) (ticket, error) {
	for {
		g.mu.Lock()
		if g.teamLimit > 0 && !paced && !g.measuring {
			g.mu.Unlock()
			return ticket{}, errPace
		}
		now := time.Now()
		delay, probe, extra := g.delay(now)
		// A bare 429 not yet answered by a later admission: the provider
		// may be full, and refusals come back at once, so until the
		// streak decides, calls go one at a time — not a burst of
		// doomed ones through every free slot.
		suspect := !g.learned && (len(g.refused) > 0 || g.othersStreak > 0)
		if suspect && g.suspects > 0 && delay <= 0 {
			delay = 5 * time.Millisecond
		}
		if suspect && g.team && g.heard < g.refusals && len(g.refused) > 0 {
			// The others must hear of this streak before it grows: it
			// adds to theirs (and theirs to it) only through the store.
			delay = max(delay, 100*time.Millisecond)
		}
		if delay <= 0 {
			if suspect {
				g.suspects++
			}
			g.inflight++
			g.flying = append(g.flying, now) // now is never before the last
			if g.req.known {
				g.req.remaining--
			}
			if g.tok.known {
				g.tok.remaining -= tokens
			}
			if probe {
				g.probing, g.probeSent = true, now
			}
			if extra {
				g.extras++
			}
			g.mu.Unlock()
			return ticket{sent: now, probe: probe, extra: extra, suspect: suspect}, nil
		}
		ch := g.changed
		g.mu.Unlock()
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ch:
		case <-ctx.Done():
			t.Stop()
			return ticket{}, ctx.Err()
		}
		t.Stop()
	}
}

// pausedUntil is when the last Retry-After the model was told runs out.
func (g *gate) pausedUntil() time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pause
}

// hold holds every call until t (another process was told to wait).
func (g *gate) hold(t time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if t.After(g.pause) {
		g.pause = t
		close(g.changed)
		g.changed = make(chan struct{})
	}
}

// delay is how long a call must still wait (≤ 0: send now), whether it
// goes as a probe of a shorter window, and whether as an extra call past
// the learned limit.
func (g *gate) delay(now time.Time) (time.Duration, bool, bool) {
	var d time.Duration
	if now.Before(g.pause) {
		d = g.pause.Sub(now)
	}
	for _, q := range []*headerQuota{&g.req, &g.tok} {
		if !q.known {
			continue
		}
		if !now.Before(q.reset) {
			// Reset: full again (OpenAI's reset is the time to the full
			// limit); the next answers say more.
			q.remaining, q.reset, q.epoch = q.limit-int64(g.inflight), now.Add(max(q.span, time.Second)), now
		}
		if q.remaining <= 0 {
			d = max(d, q.reset.Sub(now))
		}
	}
	if now.Before(g.quiet) {
		d = max(d, g.quiet.Sub(now))
	}
	if g.measuring && g.probing && !now.Before(g.probeSent.Add(g.silence())) {
		g.measured(g.probeSent, now, true)
	}
	if g.learned && (g.measuring || g.teamLimit == 0) {
		g.prune(now)
		if g.measuring || len(g.admitted)+g.inflight >= g.limit {
			if d <= 0 && g.measuring && !g.follower && !g.probing && !now.Before(g.nextTry) {
				return 0, true, false
			}
			if d <= 0 && !g.measuring && !g.follower && g.roomForExtra(now) {
				return 0, false, true
			}
			wait := 100 * time.Millisecond // an answer in flight may free room
			if !g.measuring && len(g.admitted) > 0 {
				wait = max(time.Millisecond, g.admitted[0].Add(g.window).Sub(now))
			}
			if g.measuring {
				wait = max(time.Millisecond, g.nextTry.Sub(now))
				if g.probing { // until the probe's silence says there is room
					wait = max(time.Millisecond, g.probeSent.Add(g.silence()).Sub(now))
				}
			}
			d = max(d, wait)
		}
	}
	return d, false, false
}

// roomForExtra reports whether an extra call past the learned limit may go
// now: every call of the window answered and admitted, the oldest under
// half the window old — so the provider still counts each of them, and an
// admitted extra call proves it allows more than the limit.
func (g *gate) roomForExtra(now time.Time) bool {
	if g.inflight > g.extras || len(g.admitted) < g.limit || len(g.admitted) == 0 || now.Sub(g.admitted[0]) >= g.window/2 {
		return false
	}
	if g.extraRoom == 0 && !now.Before(g.nextExtra) {
		g.extraRoom, g.raisedAt = 1, g.limit
	}
	return g.extras < g.extraRoom
}

func (g *gate) prune(now time.Time) {
	i := sort.Search(len(g.admitted), func(i int) bool { return now.Sub(g.admitted[i]) < g.window })
	g.admitted = g.admitted[i:]
}

// done records the answer to a call the gate let through: err is its
// error (nil: answered), quota its rate-limit headers, if any. It is
// split by what the answer tells, each part in the order it must see the
// gate: the call lands, an admitted call counts in the window, a refusal
// sets the waits, the headers give the quota, the refusals are tracked,
// the pace is adjusted.
func (g *gate) done(t ticket, err error, quota llm.Quota, hasQuota bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := time.Now()
	a := g.land(t, err, hasQuota)
	if a.admitted {
		g.admit(t, now)
	}
	g.refusedWaits(t, a, now)
	if t.probe && g.provisional && !a.admitted && !a.limited {
		// The probe failed on its way (no status): it confirms nothing,
		// and a team waits for a confirmed window. Probe again now.
		g.measuring, g.provisional, g.window, g.nextTry = true, false, maxWindow, now
	}
	if hasQuota {
		g.readQuota(t, quota, a.later, now)
	}
	g.trackRefusals(t, a)
	g.prune(now)
	g.adjust(t, a, now)
	close(g.changed)
	g.changed = make(chan struct{})
}

// answer is what a call's outcome tells the gate.
type answer struct {
	le *llm.Error
	// limited: a rate-limit refusal; hintless: one that said neither when
	// to come back nor what the quota is; admitted: the provider counted
	// the call (an answer, or an error it answered with).
	limited, hintless, admitted bool
	// later are the calls sent after this one and still in flight: not in
	// its headers' count.
	later int64
}

// land takes the call out of those in flight and reads its outcome.
func (g *gate) land(t ticket, err error, hasQuota bool) answer {
	g.inflight--
	if i, ok := slices.BinarySearchFunc(g.flying, t.sent, func(a, b time.Time) int { return a.Compare(b) }); ok {
		g.flying = slices.Delete(g.flying, i, i+1)
	}
	var a answer
	a.later = int64(len(g.flying) - sort.Search(len(g.flying), func(i int) bool { return g.flying[i].After(t.sent) }))
	a.limited = errors.As(err, &a.le) && a.le.RateLimit
	a.hintless = a.limited && !a.le.Hinted && !hasQuota
	if t.probe {
		g.probing = false
	}
	if t.suspect {
		g.suspects--
	}
	if t.extra {
		g.extras--
	}
	a.admitted = !a.limited && (err == nil || (a.le != nil && a.le.Status != 0))
	return a
}

// admit counts an admitted call in the window: a probe's admission
// measures the window, an extra call's raises the limit.
func (g *gate) admit(t ticket, now time.Time) {
	i := sort.Search(len(g.admitted), func(i int) bool { return g.admitted[i].After(t.sent) })
	g.admitted = slices.Insert(g.admitted, i, t.sent)
	if t.probe && (g.measuring || g.provisional) {
		g.measured(t.sent, now, false)
	}
	if t.extra && g.learned {
		g.limit = max(g.limit, len(g.admitted))
		if g.extraRoom > 0 {
			g.extraRoom++
		}
	}
}

// measured ends measuring: the window is the age of the oldest admitted
// call when probe (a send time) went. Not capped at a minute: a window
// measured at 60.5 s holds the calls of its first milliseconds, which the
// provider (counting arrivals, a trip later) still holds too. provisional:
// the probe is in flight, not refused within silence; the team hears of
// the window (and holds it together) once its answer confirms it.
func (g *gate) measured(probe, now time.Time, provisional bool) {
	if g.measuring && g.note != nil {
		g.note("rate limit learned", "limit", g.limit, "window", probe.Sub(g.oldest).Round(time.Millisecond).String())
	}
	g.window = min(2*maxWindow, max(time.Second, probe.Sub(g.oldest)))
	if g.measuring {
		g.nextExtra = now.Add(g.window) // first a window at the limit measured
	}
	g.measuring, g.provisional = false, provisional
	if !provisional {
		g.holdTogether()
	}
}

// silence is how long after a probe was sent no refusal means the
// provider admitted it: three times the longest a bare 429 took to come back
// (at least refusedWithin). Its answer takes the call's whole latency,
// seconds for a model, while calls wait: a refusal comes at once.
func (g *gate) silence() time.Duration { return max(refusedWithin, 3*g.refusedIn) }

// refusedWithin is the shortest silence after a probe that counts as its
// admission; refusedInCap bounds the refusal time it triples, so one
// refusal that came very late holds no later probe's calls past 15 s.
const (
	refusedWithin = 20 * time.Millisecond
	refusedInCap  = 5 * time.Second
)

// refusedWaits sets what a refusal makes wait: a probe's silence (the
// longest a bare 429 took), the next extra call, the next probe, and
// everything until the provider's Retry-After.
func (g *gate) refusedWaits(t ticket, a answer, now time.Time) {
	if a.hintless {
		g.refusedIn = min(refusedInCap, max(g.refusedIn, now.Sub(t.sent)))
	}
	if t.extra && a.limited && g.extraRoom > 0 {
		if g.note != nil && g.limit > g.raisedAt {
			g.note("room past the learned limit: limit raised", "from", g.raisedAt, "to", g.limit)
		}
		g.extraRoom, g.nextExtra = 0, now.Add(g.window/4)
	}
	if t.probe && a.limited {
		g.nextTry = nextProbe(g.oldest, now)
		if g.provisional {
			// Refused after its silence: the window is still unknown.
			g.measuring, g.provisional, g.window = true, false, maxWindow
			if g.note != nil {
				g.note("the probe was refused late: measuring the window again", "refused_after", now.Sub(t.sent).Round(time.Millisecond).String())
			}
		}
	}
	if a.limited && a.le.RetryAfter > 0 {
		if p := now.Add(a.le.RetryAfter); p.After(g.pause) {
			g.pause = p
		}
	}
}

// readQuota keeps the requests and tokens the answer's headers say are
// left, and when they reset.
func (g *gate) readQuota(t ticket, quota llm.Quota, later int64, now time.Time) {
	for _, x := range []struct {
		q *headerQuota
		a llm.Allowance
	}{{&g.req, quota.Requests}, {&g.tok, quota.Tokens}} {
		if x.a.Known() && !t.sent.Before(x.q.epoch) { // older calls tell of the last period
			// The reset is a little after the one the headers
			// give (they are rounded, the clocks differ by a trip).
			remaining := x.a.Remaining - later
			reset := now.Add(x.a.Reset + x.a.Reset/50 + 10*time.Millisecond)
			if x.q.known && now.Before(x.q.reset) {
				// Answers arrive out of order: an older one knows less.
				remaining, reset = min(remaining, x.q.remaining), maxTime(reset, x.q.reset)
			}
			x.q.known, x.q.limit, x.q.remaining, x.q.reset, x.q.span = true, x.a.Limit, remaining, reset, x.a.Reset
		}
	}
}

// trackRefusals keeps the hintless refusals not yet answered by a later
// admission: calls overtake each other on the way (a new connection, a
// busy one), so an admitted call clears only the refusals sent well
// before it.
func (g *gate) trackRefusals(t ticket, a answer) {
	if a.admitted && t.sent.After(g.lastAdmit) {
		g.lastAdmit = t.sent
		cut := t.sent.Add(-reorder)
		i := sort.Search(len(g.refused), func(i int) bool { return g.refused[i].After(cut) })
		g.refused = g.refused[i:]
	}
	if a.hintless && t.sent.After(g.lastAdmit.Add(-reorder)) {
		i := sort.Search(len(g.refused), func(i int) bool { return g.refused[i].After(t.sent) })
		g.refused = slices.Insert(g.refused, i, t.sent)
		if !g.learned {
			g.refusals++
		}
	}
}

// adjust paces the gate after the answer: quiet after a hintless refusal
// of a learned limit, and the limit or window learned, lowered or
// widened.
func (g *gate) adjust(t ticket, a answer, now time.Time) {
	if a.admitted {
		g.quietFor = 0
	}
	steady := a.hintless && g.learned && !g.measuring && !t.probe // a refusal of a learned limit
	if steady && !t.extra && !t.sent.Before(g.quietSince) {
		g.quietFor = min(g.window/2, max(g.window/16, 2*g.quietFor))
		g.quiet, g.quietSince = now.Add(g.quietFor), now
	}
	switch {
	case a.hintless && g.teamStreak():
		g.learn(now)
	case steady && g.teamLimit > 0:
		g.lowerTeamLimit()
	case steady && !t.extra && len(g.admitted)+len(g.flying)-int(a.later) < g.limit:
		// Refused below the limit: the provider counts calls this gate
		// does not send (another model's on the same key, which now takes
		// its share again). The limit is what this model has in the
		// window; extra calls find any room that frees up.
		g.limit = max(1, len(g.admitted)+len(g.flying)-int(a.later))
		if g.note != nil {
			g.note("refused below the learned limit: limit lowered", "limit", g.limit, "window", g.window.Round(time.Millisecond).String())
		}
	case steady && !t.extra && t.sent.After(g.widened):
		// Once for the calls in flight together: they were refused for
		// one window too short.
		g.widened = now
		g.window = min(2*maxWindow, g.window*105/100)
		if g.note != nil {
			g.note("refused past the learned limit: window widened", "limit", g.limit, "admitted_in_window", len(g.admitted),
				"in_flight", g.inflight, "window", g.window.Round(time.Millisecond).String(), "sent", now.Sub(t.sent).Round(time.Millisecond).String()+" ago")
		}
	case a.admitted && g.measuring && len(g.admitted) > g.limit:
		// Answers admitted before the limit was learned arrive late.
		g.limit, g.share = len(g.admitted), len(g.admitted)
	}
}

// probeAges are the ages of the oldest admitted call at which the gate
// probes for room: the window is the age at the first admitted probe, so
// the steps bound how much it overshoots (a quarter for short windows, a
// second at the minute, the window providers use most). Each age is a
// little past a round window (2 % and 50 ms), because the provider counts
// the oldest call from its arrival, a trip after it was sent: a probe at
// exactly 3 s of a 3 s window is refused, and the window measured a step
// too long. Every refused probe is a 429: between 55 s and the minute there
// are none (no provider limits per 58 s). At the minute, 60.2 s comes
// first: the window is what calls wait for all run long, and 60.5 s took
// 0.8 % of the limit; when the oldest call's trip was the longer by over
// 0.2 s (a new connection's), the probe at 60.5 s follows, one 429 later.
var probeAges = []time.Duration{1070, 1580, 2090, 3110, 4130, 5150, 6680, 8210, 10250, 15350, 20450, 30650,
	45950, 56150, 60200, 60500, 62000, 65000, 70000, 80000, 90000, 120000}

// nextProbe is when to probe next: the next probe age past now (at least a
// quarter second away), then every 30 s.
func nextProbe(oldest, now time.Time) time.Time {
	for _, a := range probeAges {
		if t := oldest.Add(a * time.Millisecond); t.After(now.Add(250 * time.Millisecond)) {
			return t
		}
	}
	return now.Add(30 * time.Second)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// isPushback reports whether err is the provider asking to slow down.
func isPushback(err error) bool {
	var le *llm.Error
	if !errors.As(err, &le) {
		return false
	}
	return le.RateLimit || le.Status == 529 || le.Status == http.StatusServiceUnavailable
}
