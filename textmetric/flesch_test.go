package textmetric

import (
	"math"
	"testing"
)

func TestSyllables(t *testing.T) {
	for w, want := range map[string]int{"cat": 1, "table": 2, "reading": 2, "the": 1, "cake": 1, "argument": 3,
		"beautiful": 3, "rhythm": 1, "fallacy": 3, "authority": 4, "a": 1, "": 0, "yes": 1} {
		if got := Syllables(w); got != want {
			t.Errorf("%q: %d syllables, want %d", w, got, want)
		}
	}
}

func TestFlesch(t *testing.T) {
	// 2 sentences, 11 one-syllable words (hand count with the rules above).
	text := "The cat sat on the mat. The dog ate the cake."
	want := 206.835 - 1.015*(11.0/2) - 84.6*(11.0/11)
	if got := FleschReadingEase(text); math.Abs(got-want) > 1e-9 {
		t.Fatalf("%v want %v", got, want)
	}
	if FleschReadingEase("") != 0 {
		t.Fatal("empty text")
	}
	easy := FleschReadingEase("I like it. It is good. We go now.")
	hard := FleschReadingEase("Institutional accountability necessitates comprehensive methodological transparency.")
	if !(easy > 90 && hard < 0) {
		t.Fatalf("easy %v hard %v", easy, hard)
	}
}
