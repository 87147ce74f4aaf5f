package inspectlog

import (
	"slices"
	"testing"
)

// The scores a log does not list among its scorers come after them by name,
// whatever order a sample's map gives: a report or comparison of one log is
// the same every time (they came in map order and differed run to run).
func TestMetricsInAFixedOrder(t *testing.T) {
	scores := map[string]float64{"b": 1, "zeta": 0, "alpha": 1, "m": 0, "listed": 1, "c": 1, "y": 0}
	samples := []Sample{{ID: "1", Scores: scores}, {ID: "2", Scores: scores}}
	want := []string{"listed", "alpha", "b", "c", "m", "y", "zeta"}
	for range 20 {
		var got []string
		for _, m := range metrics(Header{Scorers: []string{"listed"}}, samples) {
			got = append(got, m.Name)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("metrics %v, want %v", got, want)
		}
	}
}
