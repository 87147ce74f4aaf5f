package engine

import (
	"errors"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/llm"
)

// The parts of gate.done, each by the kind of answer it handles, on fixed
// times (no wall clock).
var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// An admitted probe measures the window: the age of the oldest admitted
// call when the probe was sent; the next extra call waits a window.
func TestGateAdmittedProbeMeasuresTheWindow(t *testing.T) {
	g := newGate(nil)
	g.measuring, g.oldest, g.limit = true, t0, 7
	now := t0.Add(3200 * time.Millisecond)
	g.admit(ticket{sent: t0.Add(3110 * time.Millisecond), probe: true}, now)
	if g.window != 3110*time.Millisecond || g.measuring || !g.nextExtra.Equal(now.Add(g.window)) || len(g.admitted) != 1 {
		t.Fatalf("window %v, measuring %v, next extra %v", g.window, g.measuring, g.nextExtra)
	}
	// An admitted extra call of a learned limit raises it to what the
	// window holds.
	g.learned, g.extraRoom = true, 1
	for i := range 8 {
		g.admit(ticket{sent: now.Add(time.Duration(i) * time.Millisecond), extra: true}, now)
	}
	if g.limit != 9 || g.extraRoom != 9 {
		t.Fatalf("limit %d, extra room %d", g.limit, g.extraRoom)
	}
}

// A refusal with Retry-After pauses every call until then; a refused probe
// waits for the next probe age; a refused extra call closes the extra room.
func TestGateRefusalSetsTheWaits(t *testing.T) {
	g := newGate(nil)
	g.oldest, g.window, g.extraRoom = t0, 10*time.Second, 3
	now := t0.Add(2 * time.Second)
	g.refusedWaits(ticket{probe: true, extra: true}, answer{limited: true, le: &llm.Error{RateLimit: true, RetryAfter: 5 * time.Second}}, now)
	if !g.pause.Equal(now.Add(5*time.Second)) || !g.nextTry.Equal(nextProbe(t0, now)) || g.extraRoom != 0 || !g.nextExtra.Equal(now.Add(2500*time.Millisecond)) {
		t.Fatalf("pause %v, next probe %v, extra room %d, next extra %v", g.pause, g.nextTry, g.extraRoom, g.nextExtra)
	}
	// A shorter Retry-After later never shortens the pause.
	g.refusedWaits(ticket{}, answer{limited: true, le: &llm.Error{RateLimit: true, RetryAfter: time.Second}}, now)
	if !g.pause.Equal(now.Add(5 * time.Second)) {
		t.Fatalf("pause shortened to %v", g.pause)
	}
}

// Headers give the quota left, less the calls sent after this one; an
// older answer never raises what a newer one said is left.
func TestGateReadsTheQuota(t *testing.T) {
	g := newGate(nil)
	now := t0
	q := llm.Quota{Requests: llm.Allowance{Limit: 100, Remaining: 40, Reset: 10 * time.Second}}
	g.readQuota(ticket{sent: t0}, q, 3, now)
	if !g.req.known || g.req.remaining != 37 || g.req.limit != 100 || !g.req.reset.Equal(now.Add(10*time.Second+200*time.Millisecond+10*time.Millisecond)) {
		t.Fatalf("request quota %+v", g.req)
	}
	q.Requests.Remaining = 60
	g.readQuota(ticket{sent: t0}, q, 0, now.Add(time.Second))
	if g.req.remaining != 37 {
		t.Fatalf("an older answer raised the quota left to %d", g.req.remaining)
	}
}

// Hintless refusals are tracked in send order; an admitted call clears
// those sent well before it (calls overtake each other on the way).
func TestGateTracksRefusals(t *testing.T) {
	g := newGate(nil)
	for i := range 3 {
		g.trackRefusals(ticket{sent: t0.Add(time.Duration(i) * time.Second)}, answer{hintless: true})
	}
	if len(g.refused) != 3 || g.refusals != 3 {
		t.Fatalf("%d refused, %d counted", len(g.refused), g.refusals)
	}
	g.trackRefusals(ticket{sent: t0.Add(2*time.Second + reorder/2)}, answer{admitted: true})
	if len(g.refused) != 1 || !g.lastAdmit.Equal(t0.Add(2*time.Second+reorder/2)) {
		t.Fatalf("after an admission: %v", g.refused)
	}
}

// A hintless refusal of a learned limit: below the limit, the limit is
// lowered to what the window holds; at it, the window is widened once for
// the calls in flight together; either way the gate keeps quiet a while.
func TestGateAdjustsToARefusal(t *testing.T) {
	g := newGate(nil)
	g.learned, g.limit, g.window = true, 10, 8*time.Second
	for i := range 6 {
		g.admitted = append(g.admitted, t0.Add(time.Duration(i)*time.Millisecond))
	}
	now := t0.Add(time.Second)
	g.adjust(ticket{sent: t0.Add(500 * time.Millisecond)}, answer{hintless: true, limited: true}, now)
	if g.limit != 6 || g.quietFor != time.Second/2 || !g.quiet.Equal(now.Add(time.Second/2)) {
		t.Fatalf("below the limit: limit %d, quiet for %v", g.limit, g.quietFor)
	}
	g.adjust(ticket{sent: t0.Add(600 * time.Millisecond)}, answer{hintless: true, limited: true}, now)
	if g.window != 8400*time.Millisecond || !g.widened.Equal(now) || g.quietFor != time.Second/2 {
		t.Fatalf("at the limit: window %v, quiet for %v (a call sent before the quiet began does not double it)", g.window, g.quietFor)
	}
	// Once for the calls in flight together.
	g.adjust(ticket{sent: t0.Add(700 * time.Millisecond)}, answer{hintless: true, limited: true}, now)
	if g.window != 8400*time.Millisecond {
		t.Fatalf("widened twice: %v", g.window)
	}
	// A call sent after the quiet began, refused too: the quiet doubles.
	later := now.Add(time.Second)
	g.adjust(ticket{sent: now.Add(600 * time.Millisecond)}, answer{hintless: true, limited: true}, later)
	if g.quietFor != time.Second || !g.quiet.Equal(later.Add(time.Second)) {
		t.Fatalf("a refusal in a row: quiet for %v until %v", g.quietFor, g.quiet)
	}
	// An admission ends the quiet.
	g.adjust(ticket{sent: now}, answer{admitted: true}, now)
	if g.quietFor != 0 {
		t.Fatalf("quiet for %v after an admission", g.quietFor)
	}
}

// TestGateBurstOfRefusalsKeepsQuietShort (#46): six calls sent together
// against a hidden 600/min limit come back refused one after another; they
// are one moment's news, so the gate keeps quiet window/16 (3.75 s), not
// the half minute six doublings made of it (one run sent nothing from 60
// to 90 s).
func TestGateBurstOfRefusalsKeepsQuietShort(t *testing.T) {
	g := newGate(nil)
	g.learned, g.limit, g.window = true, 600, time.Minute
	for i := range 600 {
		g.admitted = append(g.admitted, t0.Add(time.Duration(i)*100*time.Millisecond))
	}
	sent := t0.Add(60 * time.Second)
	for i := range 6 {
		now := sent.Add(time.Duration(200+50*i) * time.Millisecond)
		g.adjust(ticket{sent: sent.Add(time.Duration(i) * time.Millisecond)}, answer{hintless: true, limited: true}, now)
	}
	first := sent.Add(200 * time.Millisecond)
	if g.quietFor != time.Minute/16 || !g.quiet.Equal(first.Add(time.Minute/16)) {
		t.Fatalf("after a burst of six refusals: quiet for %v, until %v after the first (want %v)", g.quietFor, g.quiet.Sub(first), time.Minute/16)
	}
}

// A probe not refused within its silence (three times the longest a bare 429
// took to come back) measures the window while its answer is on the way,
// provisionally: its admission confirms it; a late refusal sets the gate
// measuring again, with no window, until the next probe; one lost on its
// way (no status) confirms nothing, and the next probe goes at once.
func TestGateProbeSilenceMeasuresTheWindow(t *testing.T) {
	for _, c := range []struct{ late, lost bool }{{false, false}, {true, false}, {true, true}} {
		late, lost := c.late, c.lost
		g := newGate(nil)
		g.learned, g.measuring, g.oldest, g.limit = true, true, t0, 7
		g.refusedWaits(ticket{sent: t0}, answer{limited: true, hintless: true, le: &llm.Error{RateLimit: true}}, t0.Add(30*time.Millisecond))
		probe := t0.Add(60200 * time.Millisecond)
		g.nextTry = probe
		if d, isProbe, _ := g.delay(probe); d > 0 || !isProbe {
			t.Fatalf("no probe at %v: delay %v", probe, d)
		}
		g.probing, g.probeSent = true, probe
		if d, _, _ := g.delay(probe.Add(89 * time.Millisecond)); !g.measuring || d != time.Millisecond {
			t.Fatalf("89 ms after the probe: measuring %v, delay %v; want measuring, 1 ms to its silence", g.measuring, d)
		}
		g.delay(probe.Add(90 * time.Millisecond))
		if g.measuring || !g.provisional || g.window != 60200*time.Millisecond {
			t.Fatalf("90 ms after the probe: measuring %v, provisional %v, window %v", g.measuring, g.provisional, g.window)
		}
		if st := g.teamState(); st.window != 0 {
			t.Fatalf("a provisional window told the team: %+v", st)
		}
		now := probe.Add(8 * time.Second)
		pt := ticket{sent: probe, probe: true}
		if late && lost {
			g.inflight++
			g.done(pt, errors.New("connection reset"), llm.Quota{}, false)
			if !g.measuring || g.provisional || g.window != maxWindow || g.nextTry.After(time.Now()) {
				t.Fatalf("lost on its way: measuring %v, provisional %v, window %v, next probe %v", g.measuring, g.provisional, g.window, g.nextTry)
			}
			continue
		}
		if late {
			a := g.land(pt, &llm.Error{RateLimit: true}, false)
			g.refusedWaits(pt, a, now)
			if !g.measuring || g.provisional || g.window != maxWindow || !g.nextTry.Equal(nextProbe(t0, now)) {
				t.Fatalf("refused late: measuring %v, provisional %v, window %v, next probe %v", g.measuring, g.provisional, g.window, g.nextTry)
			}
			continue
		}
		g.land(pt, nil, false)
		g.admit(pt, now)
		if g.measuring || g.provisional || g.window != 60200*time.Millisecond {
			t.Fatalf("admitted: measuring %v, provisional %v, window %v", g.measuring, g.provisional, g.window)
		}
	}
}
