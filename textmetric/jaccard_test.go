package textmetric

import "testing"

func TestJaccard(t *testing.T) {
	if j := Jaccard([]string{"a", "b", "b"}, []string{"b", "c"}); j != 1.0/3 {
		t.Fatalf("jaccard %v", j)
	}
	if j := Jaccard([]string{"x"}, []string{"x"}); j != 1 {
		t.Fatalf("identical sets %v", j)
	}
	if j := Jaccard(nil, nil); j != 0 {
		t.Fatalf("empty jaccard %v", j)
	}
}
