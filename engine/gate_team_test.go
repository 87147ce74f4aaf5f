package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/llm"
)

// bare429 is a provider's 429 that says nothing: no Retry-After, no headers.
var bare429 = &llm.Error{Retryable: true, RateLimit: true, Status: 429}

// send lets one call through g and answers it with err.
func send(t *testing.T, g *gate, err error) ticket {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	tk, werr := g.wait(ctx, 10, true)
	if werr != nil {
		t.Fatalf("the gate held a call: %v", werr)
	}
	g.done(tk, err, llm.Quota{}, false)
	return tk
}

// Three processes' streaks of bare 429s add up: a gate that saw 4 learns
// the limit when the others publish 8 between them, where alone it would
// wait for 12; it holds the calls it had admitted as its share.
func TestGateLearnsFromTheTeamsStreak(t *testing.T) {
	g := newGate(nil)
	g.team = true
	for range 5 {
		send(t, g, nil)
	}
	for range 4 {
		g.setTeam(Team{}, g.teamState()) // the others hear of each refusal
		send(t, g, bare429)
	}
	if st := g.teamState(); st.learned || st.streak != 4 {
		t.Fatalf("after 4 refusals alone: %+v", st)
	}
	g.setTeam(Team{OthersStreak: 8}, g.teamState())
	st := g.teamState()
	if !st.learned || st.limit != 5 || st.streak != 0 || !g.waitsForWindow() {
		t.Fatalf("4 + 8 refusals: %+v (waits for the window: %v)", st, g.waitsForWindow())
	}
}

// A gate that has not heard back from the others since its last bare 429
// holds its next call (its streak must add to theirs first).
func TestGateWaitsForTheTeamToHearOfAStreak(t *testing.T) {
	g := newGate(nil)
	g.team = true
	send(t, g, nil)
	send(t, g, bare429)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := g.wait(ctx, 10, true); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a call went before the others heard of the refusal: %v", err)
	}
	g.setTeam(Team{}, g.teamState())
	send(t, g, bare429)
}

// A follower never probes: it waits for the window the leader measured,
// then holds the team's limit (its share and the others') with them, and a
// call that waited at the gate before that takes a turn from the shared
// bucket first (errPace).
func TestGateFollowerAdoptsTheLeadersWindow(t *testing.T) {
	g := newGate(nil)
	g.team = true
	for range 10 {
		send(t, g, nil)
	}
	g.setTeam(Team{OthersLearned: true}, g.teamState())
	send(t, g, bare429)
	if !g.waitsForWindow() {
		t.Fatal("one bare 429 after another process learned: not learned")
	}
	g.mu.Lock()
	_, probe, _ := g.delay(g.oldest.Add(30 * time.Second))
	g.mu.Unlock()
	if probe {
		t.Fatal("a follower probes")
	}
	g.setTeam(Team{OthersLearned: true, OthersLimit: 50, Window: 3 * time.Second}, g.teamState())
	n, w, debt := g.pace()
	if n != 60 || w != 3*time.Second || debt != 10 {
		t.Fatalf("pace %d a %s, debt %d; want 60 a 3s, debt 10", n, w, debt)
	}
	if _, _, again := g.pace(); again != 0 {
		t.Fatalf("the debt is owed twice (%d)", again)
	}
	if _, err := g.wait(context.Background(), 10, false); !errors.Is(err, errPace) {
		t.Fatalf("an unpaced call at a team-held limit: %v", err)
	}
	// Another process lowered the team's limit: it is lowered here too.
	g.setTeam(Team{OthersLearned: true, TeamLimit: 57, Window: 3 * time.Second}, g.teamState())
	if n, _, _ := g.pace(); n != 57 {
		t.Fatalf("team limit %d after another lowered it to 57", n)
	}
}

// The leader measures the window by its probes and then holds the team's
// limit; without a team (no shared store) a gate holds its own limit and
// never paces.
func TestGateLeaderMeasuresAndAloneNeverPaces(t *testing.T) {
	for _, team := range []bool{true, false} {
		g := newGate(nil)
		g.team = team
		for range 12 {
			send(t, g, nil)
		}
		for range streak {
			if team {
				g.setTeam(Team{Leader: true}, g.teamState())
			}
			send(t, g, bare429)
		}
		if !g.waitsForWindow() {
			t.Fatalf("team %v: 12 bare 429s learned nothing", team)
		}
		g.mu.Lock()
		g.nextTry = time.Now() // the probe is due
		g.mu.Unlock()
		tk := send(t, g, nil)
		if !tk.probe || g.waitsForWindow() {
			t.Fatalf("team %v: the admitted probe did not measure the window (%+v)", team, tk)
		}
		n, _, _ := g.pace()
		if team && n != 12 || !team && n != 0 {
			t.Fatalf("team %v: pace %d", team, n)
		}
	}
}
