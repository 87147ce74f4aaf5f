package bench

import "testing"

// Arms of two known designs do not compare; an unknown one (an older
// export's log) compares with any.
func TestSameDesign(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{{"subtask 1", "subtask 1", true}, {"subtask 1", "subtask 2", false}, {"", "reddit", true}, {"reddit", "", true}, {"", "", true}} {
		if got := SameDesign(c.a, c.b); got != c.want {
			t.Errorf("SameDesign(%q, %q) = %v", c.a, c.b, got)
		}
	}
}

// The panels note: none for one run or one panel, each run's panel where
// they differ.
func TestPanelsNote(t *testing.T) {
	if n := PanelsNote(nil); n != "" {
		t.Fatal(n)
	}
	if n := PanelsNote(map[int64][]string{1: {"a", "b"}, 2: {"a", "b"}}); n != "" {
		t.Fatal(n)
	}
	if n := PanelsNote(map[int64][]string{2: {"a"}, 1: nil}); n != "the runs' outcomes come from different judge panels (run 1: none; run 2: a): a difference between them may be the judges', not the models'" {
		t.Fatal(n)
	}
}
