package engine

import "time"

// teamState is what a gate publishes to the other processes of the store
// (Signal): its streak of bare 429s while it has not learned a limit, its
// share of the limit, the limit's window once measured or adopted, and the
// team's limit it holds.
type teamState struct {
	refusals  uint64 // the gate's bare 429s before it learned, so far
	streak    int
	learned   bool
	limit     int
	window    time.Duration
	teamLimit int
}

// teamState is what the gate has to tell the others.
func (g *gate) teamState() teamState {
	g.mu.Lock()
	defer g.mu.Unlock()
	st := teamState{refusals: g.refusals, learned: g.learned, teamLimit: g.teamLimit}
	switch {
	case !g.learned:
		st.streak = len(g.refused)
	case !g.measuring && !g.provisional:
		st.limit, st.window = g.share, g.window
	default:
		st.limit = g.share
	}
	return st
}

// waitsForWindow reports whether the gate learned a limit and waits to
// know its window (its own probes, or the leader's).
func (g *gate) waitsForWindow() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.learned && g.measuring
}

// pace is the team's limit and its window once the processes hold it
// together (n 0: each holds its own share, or there is no team), and, the
// first time, debt: this gate's calls that were still in the provider's
// window when it began, which the shared bucket must owe before it paces
// (the provider counts them; the bucket does not know them).
func (g *gate) pace() (n int, window time.Duration, debt int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.learned || g.measuring {
		return 0, 0, 0
	}
	debt, g.debt = g.debt, 0
	return g.teamLimit, g.window, debt
}

// setTeam takes in what the other processes published: a streak of theirs
// may complete this gate's (the provider refuses them all), a window one
// of them measured ends this gate's measuring, only the leader probes, and
// a team limit lowered by one of them is lowered here too. sent is the
// gate's state the exchange published.
func (g *gate) setTeam(t Team, sent teamState) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.heard = max(g.heard, sent.refusals)
	g.othersStreak, g.othersLearned, g.othersLimit = t.OthersStreak, t.OthersLearned, t.OthersLimit
	g.teamLimitIn, g.teamWindow, g.follower = t.TeamLimit, t.Window, !t.Leader
	now := time.Now()
	if len(g.refused) > 0 && g.teamStreak() {
		g.learn(now)
	}
	if g.learned && g.measuring && g.teamWindow > 0 {
		g.adopt(now)
	}
	if g.teamLimit > 0 && g.teamLimitIn > 0 && g.teamLimitIn < g.teamLimit {
		g.teamLimit = g.teamLimitIn
	}
	close(g.changed)
	g.changed = make(chan struct{})
}

// teamStreak reports whether the bare 429s in a row, this gate's and the
// other processes', mean a limit not yet learned: streak of them, or one
// while another process has learned it.
func (g *gate) teamStreak() bool {
	return !g.learned && (len(g.refused)+g.othersStreak >= streak || g.othersLearned && len(g.refused) > 0)
}

// learn holds calls at the limit the gate admitted in the last minute,
// and measures its window (or adopts one another process measured).
func (g *gate) learn(now time.Time) {
	g.learned, g.measuring, g.limit, g.share = true, true, max(1, len(g.admitted)), len(g.admitted)
	if len(g.admitted) > 0 {
		g.oldest = g.admitted[0]
	} else {
		g.oldest = now
	}
	g.nextTry = nextProbe(g.oldest, now)
	if g.note != nil {
		g.note("rate limited without a hint: holding calls", "admitted_last_minute", g.limit)
	}
	if g.teamWindow > 0 {
		g.adopt(now)
	}
}

// adopt ends measuring with the window another process measured.
func (g *gate) adopt(now time.Time) {
	g.window, g.measuring = g.teamWindow, false
	g.nextExtra = now.Add(g.window)
	if g.note != nil {
		g.note("rate limit learned from another process", "limit", g.limit, "window", g.window.Round(time.Millisecond).String())
	}
	g.holdTogether()
}

// holdTogether, once the window is known in a team, makes the gate hold
// the team's limit with the others: the lowest one a live process holds,
// or this share and the others' together. The shared bucket paces every
// process's calls evenly, so the share a process leaves unused (it waits
// for jobs, it finished) is the others', where each share held alone
// would idle it, and going past a share would take another's.
func (g *gate) holdTogether() {
	if !g.team {
		return
	}
	g.teamLimit = max(1, g.share+g.othersLimit)
	if g.teamLimitIn > 0 {
		g.teamLimit = g.teamLimitIn
	}
	g.prune(time.Now())
	g.debt = len(g.admitted)
	if g.note != nil {
		g.note("holding the rate limit with the other processes", "team_limit", g.teamLimit, "window", g.window.Round(time.Millisecond).String())
	}
}

// lowerTeamLimit lowers the team's limit by 5 % (at least one) after a
// bare 429 while the team held it: the provider counts calls the team does
// not send (another model's on the key), or the window is longer.
func (g *gate) lowerTeamLimit() {
	if !g.widened.IsZero() && time.Since(g.widened) < g.window/4 {
		return // once for the calls in flight together
	}
	g.widened = time.Now()
	g.teamLimit = max(1, g.teamLimit-max(1, g.teamLimit/20))
	if g.note != nil {
		g.note("refused at the team's limit: limit lowered", "team_limit", g.teamLimit, "window", g.window.Round(time.Millisecond).String())
	}
}
