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
