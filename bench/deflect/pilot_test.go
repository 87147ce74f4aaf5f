package deflect

import (
	"fmt"
	"testing"
)

func TestPilotSpreadsOverLevels(t *testing.T) {
	b, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	p := Pilot(b.Claims, 8)
	levels := map[int]int{}
	var ids []string
	for _, c := range p {
		levels[c.Level]++
		ids = append(ids, c.ID)
	}
	if len(p) != 8 || levels[1] != 2 || levels[2] != 2 || levels[3] != 2 || levels[4] != 2 {
		t.Fatalf("pilot %v: levels %v", ids, levels)
	}
	// Within a level, the 20 claims are sampled at 0 and 10: spread, not the first two.
	want := fmt.Sprint([]string{b.Claims[0].ID, b.Claims[10].ID})
	if got := fmt.Sprint(ids[:2]); got != want {
		t.Fatalf("level-1 picks %s, want %s", got, want)
	}
	if fmt.Sprint(Pilot(b.Claims, 8)) != fmt.Sprint(p) {
		t.Fatal("pilot is not deterministic")
	}
	if len(Pilot(b.Claims, 0)) != 80 || len(Pilot(b.Claims, 500)) != 80 {
		t.Fatal("n outside 1..79 should keep every claim")
	}
	if got := Pilot(b.Claims, 5); len(got) != 5 || got[0].Level != 1 || got[1].Level != 1 {
		t.Fatalf("5 claims: two from level 1 first, got %v", got)
	}
}
