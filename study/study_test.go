package study

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Plan: a stratified, seeded sample; the overlap set in every queue and the
// rest shared out; every decoy in every queue; the same seed, the same study.
func TestPlan(t *testing.T) {
	var cands, decoys []Item
	for i := range 90 {
		st := []string{"m1", "m2", "m3"}[i%3]
		if i >= 60 {
			st = "m3" // strata of 20, 20, 50
		}
		cands = append(cands, Item{Key: fmt.Sprintf("c%d", i), Stratum: st})
	}
	for i := range 6 {
		decoys = append(decoys, Item{Key: fmt.Sprintf("d%d", i), Known: map[string]string{"q": "1"}})
	}
	o := Options{N: 30, Overlap: 10, Decoys: 4, Annotators: []string{"ana", "ben"}, Seed: 5, Token: func() string { return "tok" }}
	s, err := Plan(Kind("any-kind"), nil, cands, decoys, o)
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	planted := 0
	for _, it := range s.Items {
		if it.Decoy {
			planted++
		} else {
			per[it.Stratum]++
		}
	}
	// 30 of 90 in proportion: 6.67, 6.67, 16.67 → 6, 6, 16 and two left
	// over, to equal remainders: the larger stratum first, then by name.
	if planted != 4 || per["m1"] != 7 || per["m2"] != 6 || per["m3"] != 17 {
		t.Fatalf("strata %v, %d decoys", per, planted)
	}
	seen := map[string]int{}
	for _, a := range s.Annotators {
		for _, k := range a.Order {
			seen[k]++
		}
		if len(a.Order) != 10+10+4 {
			t.Fatalf("%s has %d items, want 10 shared + 10 own + 4 decoys", a.Name, len(a.Order))
		}
	}
	twice := 0
	for _, it := range s.Items {
		switch {
		case it.Decoy && seen[it.Key] != 2:
			t.Fatalf("decoy %s in %d queues", it.Key, seen[it.Key])
		case !it.Decoy && seen[it.Key] == 2:
			twice++
		case !it.Decoy && seen[it.Key] != 1:
			t.Fatalf("item %s in %d queues", it.Key, seen[it.Key])
		}
	}
	if twice != 10 || slices.Equal(s.Annotators[0].Order, s.Annotators[1].Order) {
		t.Fatalf("%d items in both queues; orders differ: %v", twice, !slices.Equal(s.Annotators[0].Order, s.Annotators[1].Order))
	}
	again, _ := Plan(Kind("any-kind"), nil, cands, decoys, o)
	if !slices.EqualFunc(s.Items, again.Items, func(a, b Item) bool { return a.Key == b.Key }) || !slices.Equal(s.Annotators[1].Order, again.Annotators[1].Order) {
		t.Fatal("the same seed gave another study")
	}
	if _, err := Plan(Kind("any-kind"), nil, cands, decoys, Options{Decoys: 7, Annotators: []string{"a"}}); err == nil || !strings.Contains(err.Error(), "only 6") {
		t.Fatalf("too many decoys: %v", err)
	}
	if _, err := Plan(Kind("any-kind"), nil, cands, nil, Options{Annotators: []string{"a", "a"}}); err == nil {
		t.Fatal("two annotators of one name")
	}
}

// Validate refuses what the studio and the sheet import must not store.
func TestValidate(t *testing.T) {
	qs := []Question{{ID: "validity", Text: "valid?", Choices: []Choice{{Key: "V", Label: "valid"}, {Key: "I", Label: "invalid"}}}}
	s := Study{ID: 1, Questions: qs, Annotators: []Annotator{{Name: "a", Order: []string{"x"}}}}
	for _, c := range []struct {
		a    Annotation
		want string
	}{
		{Annotation{Annotator: "z", Item: "x"}, `no annotator "z"`},
		{Annotation{Annotator: "a", Item: "y"}, "not in a's queue"},
		{Annotation{Annotator: "a", Item: "x", Answers: map[string]string{}}, "has no answer"},
		{Annotation{Annotator: "a", Item: "x", Answers: map[string]string{"validity": "Q"}}, "not one of its choices"},
		{Annotation{Annotator: "a", Item: "x", Answers: map[string]string{"validity": "V", "extra": "1"}}, `no question "extra"`},
	} {
		if err := s.Validate(c.a); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.a, err, c.want)
		}
	}
	if err := s.Validate(Annotation{Annotator: "a", Item: "x", Skipped: true}); err != nil {
		t.Errorf("a skip: %v", err)
	}
}

// TestPlanKOfM (#27 item 21): --per-item 2 of 3 annotators gives every
// sampled item to exactly two, each annotator about as many items (⌊nk/m⌋
// or ⌈nk/m⌉), every pair of annotators some items together; decoys still
// reach every queue.
func TestPlanKOfM(t *testing.T) {
	var cands, decoys []Item
	for i := range 31 {
		cands = append(cands, Item{Key: fmt.Sprintf("c%d", i)})
	}
	for i := range 2 {
		decoys = append(decoys, Item{Key: fmt.Sprintf("d%d", i), Known: map[string]string{"q": "1"}})
	}
	s, err := Plan("any-kind", nil, cands, decoys, Options{N: 31, PerItem: 2, Decoys: 2, Annotators: []string{"a", "b", "c"}, Seed: 3, Token: func() string { return "t" }})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string][]string{}
	for _, a := range s.Annotators {
		own := 0
		for _, k := range a.Order {
			if it, _ := s.Item(k); !it.Decoy {
				own++
			}
			seen[k] = append(seen[k], a.Name)
		}
		if own != 20 && own != 21 { // 31 × 2 / 3 = 20.67
			t.Fatalf("%s has %d items", a.Name, own)
		}
	}
	pairs := map[string]int{}
	for _, it := range s.Items {
		switch n := len(seen[it.Key]); {
		case it.Decoy && n != 3:
			t.Fatalf("decoy %s in %d queues", it.Key, n)
		case !it.Decoy && n != 2:
			t.Fatalf("item %s in %d queues", it.Key, n)
		case !it.Decoy:
			pairs[strings.Join(seen[it.Key], "+")]++
		}
	}
	if len(pairs) != 3 {
		t.Fatalf("pairs of annotators: %v, want all three", pairs)
	}
	if _, err := Plan("any-kind", nil, cands, decoys, Options{N: 5, PerItem: 4, Annotators: []string{"a", "b", "c"}, Seed: 3}); err == nil {
		t.Fatal("4 of 3 annotators accepted")
	}
}

// TestPlanRefusesNegativeCounts: a negative number of decoys or practice
// items, or an overlap below -1 (all), is an error naming the flag — a
// negative --decoys panicked ("makeslice: cap out of range").
func TestPlanRefusesNegativeCounts(t *testing.T) {
	cands := []Item{{Key: "c0"}, {Key: "c1"}}
	decoys := []Item{{Key: "d0", Known: map[string]string{"q": "1"}}}
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Decoys: -2, Overlap: -1}, "--decoys -2: want 0 or more"},
		{Options{Practice: -1, Overlap: -1}, "--practice -1: want 0 or more"},
		{Options{Overlap: -3}, "--overlap -3: want the number of items every annotator sees (-1: all)"},
	} {
		c.o.Annotators, c.o.Token = []string{"ana"}, func() string { return "tok" }
		if _, err := Plan(Kind("any-kind"), nil, cands, decoys, c.o); err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
}
