package foils

import (
	"strings"
	"testing"
)

func TestLimitTakesEveryClass(t *testing.T) {
	var s Sets
	for i, g := range []string{"ad hominem", "ad hominem", "ad hominem", "appeal to authority", None, "ad hominem", None} {
		s.Test = append(s.Test, Item{ID: string(rune('a' + i)), Gold: g})
	}
	for i, src := range []string{"x", "x", "x", "y", "z"} {
		s.Matched = append(s.Matched, Foil{Source: src, ID: i})
		s.Wrong = append(s.Wrong, Foil{Source: src, ID: i})
	}
	l := s.Limit(3)
	var ids, srcs []string
	for _, it := range l.Test {
		ids = append(ids, it.ID)
	}
	for _, f := range l.Matched {
		srcs = append(srcs, f.Source)
	}
	// none first, then the classes in order of appearance; corpus order kept.
	if strings.Join(ids, "") != "ade" || strings.Join(srcs, "") != "xyz" || len(l.Wrong) != 3 {
		t.Fatalf("limit 3: test %v, matched %v", ids, srcs)
	}
	if len(s.Limit(100).Test) != len(s.Test) || len(s.Limit(0).Matched) != len(s.Matched) {
		t.Fatal("a limit past the set, or 0, must keep every item")
	}
	if err := l.Check(); err != nil {
		t.Fatal(err)
	}
	l.Test = l.Test[:1] // no none item left
	if err := l.Check(); err == nil || !strings.Contains(err.Error(), "no native none items") {
		t.Fatalf("check: %v", err)
	}
}
