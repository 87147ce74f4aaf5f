// Package textmetric holds text measures: Flesch reading ease now, METEOR
// and its tokeniser, stemmer and synonym index later.
package textmetric

import (
	"strings"
	"unicode"
)

// Syllables estimates the syllables of an English word: groups of vowels
// (y counts as a vowel after the first letter), minus a silent final "e"
// (but not "-le" after a consonant), at least one. Hand-written: no Go
// library ships an English syllable counter; Flesch scores from different
// syllable counters differ by a few points, so the score is a covariate,
// never a reproduction of a published number.
func Syllables(word string) int {
	w := strings.ToLower(word)
	var letters []rune
	for _, r := range w {
		if unicode.IsLetter(r) {
			letters = append(letters, r)
		}
	}
	if len(letters) == 0 {
		return 0
	}
	vowel := func(i int) bool {
		switch letters[i] {
		case 'a', 'e', 'i', 'o', 'u':
			return true
		case 'y':
			return i > 0
		}
		return false
	}
	n, prev := 0, false
	for i := range letters {
		v := vowel(i)
		if v && !prev {
			n++
		}
		prev = v
	}
	l := len(letters)
	if l > 2 && letters[l-1] == 'e' && !vowel(l-2) && !(letters[l-2] == 'l' && l > 3 && !vowel(l-3)) && n > 1 {
		n--
	}
	return max(1, n)
}

// FleschReadingEase is 206.835 − 1.015·(words/sentences) − 84.6·(syllables/words)
// (Flesch 1948). Sentences end at '.', '!' or '?' (at least one per text);
// words are runs of letters, digits and apostrophes. Empty text scores 0.
func FleschReadingEase(text string) float64 {
	words := strings.FieldsFunc(text, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’')
	})
	if len(words) == 0 {
		return 0
	}
	sentences := 0
	inEnd := false
	for _, r := range text {
		end := r == '.' || r == '!' || r == '?'
		if end && !inEnd {
			sentences++
		}
		inEnd = end
	}
	trimmed := strings.TrimSpace(text)
	if last := trimmed[len(trimmed)-1]; last != '.' && last != '!' && last != '?' {
		sentences++ // a final sentence without a terminator
	}
	syl := 0
	for _, w := range words {
		syl += Syllables(w)
	}
	nw := float64(len(words))
	return 206.835 - 1.015*(nw/float64(sentences)) - 84.6*(float64(syl)/nw)
}
