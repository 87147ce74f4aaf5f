package all_test

import (
	"testing"

	"github.com/fallacylab/fallacylab/bench"
	_ "github.com/fallacylab/fallacylab/bench/all"
)

func TestEveryBenchmarkIsRegistered(t *testing.T) {
	want := []string{"deflect", "foils", "foils-generate", "missci", "prompts"}
	all := bench.All()
	if len(all) != len(want) {
		t.Fatalf("%d benchmarks registered, want %d", len(all), len(want))
	}
	for i, b := range all {
		if b.Name != want[i] || b.Title == "" || b.Summary == "" || len(b.Phases) == 0 {
			t.Fatalf("benchmark %d: %+v, want %s with a title, a summary and phases", i, b, want[i])
		}
		for _, p := range b.Phases {
			if p.Usable != nil && p.Hint == "" {
				t.Errorf("%s phase %s parses answers but gives no hint when they are unusable", b.Name, p.Name)
			}
		}
	}
	if bench.Title("deflect") != "DeflectBench" || bench.Title("ask") != "ask" {
		t.Fatal("Title")
	}
}
