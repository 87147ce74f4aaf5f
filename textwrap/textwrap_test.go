package textwrap

import "testing"

func TestWrap(t *testing.T) {
	for _, c := range []struct {
		in   string
		w    int
		want string
	}{
		{"a bb ccc dddd", 6, "a bb\nccc\ndddd"},
		{"  spaced   out  ", 80, "spaced out"},
		{"averyveryverylongword x", 5, "averyveryverylongword\nx"},
		{"é é é", 3, "é é\né"},
	} {
		if got := Wrap(c.in, c.w); got != c.want {
			t.Errorf("Wrap(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
	}
}
