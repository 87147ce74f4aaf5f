package report

import "testing"

// A bound that rounds to zero prints as zero, never "-0.000" (#27 item
// 15); a negative value that does not round to zero keeps its sign.
func TestNoNegativeZero(t *testing.T) {
	for _, c := range []struct {
		v    float64
		d    int
		want string
	}{{-0.0001, 3, "0.000"}, {-0.04, 1, "0.0"}, {-0.4, 0, "0"}, {-0.0006, 3, "-0.001"}, {-1.25, 1, "-1.2"}, {0, 2, "0.00"}} {
		if got := num(c.v, c.d); got != c.want {
			t.Errorf("num(%v, %d) = %q, want %q", c.v, c.d, got, c.want)
		}
	}
}
