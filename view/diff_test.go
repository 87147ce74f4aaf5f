package view

import (
	"strings"
	"testing"
)

// Diff: the shared text, what the first has alone and what the second has
// alone, in order; joined, each side gives back its own text.
func TestDiff(t *testing.T) {
	a := "The claim is false, and the evidence shows it."
	b := "The claim is true, and the evidence shows it clearly."
	parts := Diff(a, b)
	var left, right strings.Builder
	var removed, added []string
	for _, p := range parts {
		if p.Op <= 0 {
			left.WriteString(p.Text)
		}
		if p.Op >= 0 {
			right.WriteString(p.Text)
		}
		switch p.Op {
		case -1:
			removed = append(removed, p.Text)
		case 1:
			added = append(added, p.Text)
		}
	}
	if left.String() != a || right.String() != b {
		t.Fatalf("the sides do not give back their texts: %q / %q", left.String(), right.String())
	}
	if strings.Join(removed, "") != "fals" && strings.Join(removed, "") != "false" {
		t.Errorf("removed %q, want the word false", removed)
	}
	if !strings.Contains(strings.Join(added, ""), "clearly") {
		t.Errorf("added %q, want clearly", added)
	}
}
