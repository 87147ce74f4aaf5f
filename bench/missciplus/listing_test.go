package missciplus

import (
	"encoding/json"
	"testing"

	"github.com/fallacylab/fallacylab/store"
)

// TestListingSaysWhereP0Is: a ranking's row in the viewer's list says at
// which rank the first passage stating p0 came.
func TestListingSaysWhereP0Is(t *testing.T) {
	a := firstWithP0(t)
	ranked := a.Passages(false)
	gold := a.P0Passages()[0]
	// put the gold passage third
	var rest []string
	for _, p := range ranked {
		if p != gold {
			rest = append(rest, p)
		}
	}
	ranked = append(append(append([]string(nil), rest[:2]...), gold), rest[2:]...)
	body, _ := json.Marshal(stored{Ranking: Ranking{ID: a.ID, Ranked: ranked}, Seed: 4})
	l := Task{}.Listing()
	row, err := l.Row(store.Record{Key: a.ID, Body: body})
	if err != nil {
		t.Fatal(err)
	}
	want := 3
	for i, p := range ranked[:2] {
		for _, g := range a.P0Passages() {
			if p == g && i+1 < want {
				want = i + 1
			}
		}
	}
	if len(row) != len(l.Columns) || row[1] != "4" || row[3] != []string{"", "1", "2", "3"}[want] {
		t.Fatalf("row %q, want p0 at %d", row, want)
	}
}

// firstWithP0 is the first dev argument whose p0 a passage states.
func firstWithP0(t *testing.T) Argument {
	t.Helper()
	args, err := Load("dev")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range args {
		if a.HasMappedP0() {
			return a
		}
	}
	t.Fatal("no dev argument's p0 is stated by a passage")
	return Argument{}
}
