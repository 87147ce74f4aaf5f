package missci

import (
	"fmt"
	"testing"
)

// Streams printed by CPython 3.11:
//
//	python3 -c 'import random; random.seed(1); print([random.choice(range(9)) for _ in range(20)])'
func TestPyRandomMatchesCPython(t *testing.T) {
	for _, c := range []struct {
		seed uint64
		n    int
		want string
	}{
		{1, 9, "[2 1 4 1 7 7 7 6 3 1 7 0 6 6 0 7 4 3 1 5]"},
		{5, 9, "[4 5 8 0 7 3 0 2 1 5]"},
		{1<<40 + 7, 1000, "[628 765 834 960 967]"},
	} {
		r := NewPyRandom(c.seed)
		var got []int
		var want []int
		fmt.Sscan(c.want)
		for range len(splitInts(c.want)) {
			got = append(got, r.Below(c.n))
		}
		want = splitInts(c.want)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("seed %d: got %v, CPython %v", c.seed, got, want)
		}
	}
}

func splitInts(s string) []int {
	var out []int
	var cur, in = 0, false
	for _, r := range s {
		if r >= '0' && r <= '9' {
			cur, in = cur*10+int(r-'0'), true
		} else if in {
			out = append(out, cur)
			cur, in = 0, false
		}
	}
	return out
}
