package textmetric

import (
	"strings"
	"sync"
)

// PorterStem stems a word as NLTK 3.8's PorterStemmer(mode=NLTK_EXTENSIONS):
// the original algorithm plus NLTK's departures (irregular forms such as
// "skies" → "sky" and "dying" → "die", "ies"/"ied" on four-letter words,
// "fulli", "logi", the two-letter cvc rule). Ported by hand because METEOR
// scores must equal nltk's to the last digit and no Go stemmer implements
// these extensions.
func PorterStem(word string) string {
	if v, ok := stemCache.Load(word); ok {
		return v.(string)
	}
	s := porterStem(word)
	stemCache.Store(word, s)
	return s
}

// stemCache memoises stems: evaluation text repeats its vocabulary.
var stemCache sync.Map

func porterStem(word string) string {
	stem := strings.ToLower(word)
	if v, ok := porterPool[word]; ok {
		return v
	}
	w := []rune(stem)
	if len([]rune(word)) <= 2 {
		return stem
	}
	w = step1a(w)
	w = step1b(w)
	w = step1c(w)
	w = step2(w)
	w = step3(w)
	w = step4(w)
	w = step5a(w)
	w = step5b(w)
	return string(w)
}

var porterPool = func() map[string]string {
	irregular := map[string][]string{"sky": {"sky", "skies"}, "die": {"dying"}, "lie": {"lying"}, "tie": {"tying"}, "news": {"news"},
		"inning": {"innings", "inning"}, "outing": {"outings", "outing"}, "canning": {"cannings", "canning"}, "howe": {"howe"},
		"proceed": {"proceed"}, "exceed": {"exceed"}, "succeed": {"succeed"}}
	m := map[string]string{}
	for k, vs := range irregular {
		for _, v := range vs {
			m[v] = k
		}
	}
	return m
}()

func isVowel(r rune) bool { return r == 'a' || r == 'e' || r == 'i' || r == 'o' || r == 'u' }

func isConsonant(w []rune, i int) bool {
	if isVowel(w[i]) {
		return false
	}
	if w[i] == 'y' {
		if i == 0 {
			return true
		}
		return !isConsonant(w, i-1)
	}
	return true
}

// measure counts "vc" in the consonant/vowel sequence of stem.
func measure(stem []rune) int {
	n := 0
	for i := 1; i < len(stem); i++ {
		if !isConsonant(stem, i-1) && isConsonant(stem, i) {
			n++
		}
	}
	return n
}

func containsVowel(stem []rune) bool {
	for i := range stem {
		if !isConsonant(stem, i) {
			return true
		}
	}
	return false
}

func endsDoubleConsonant(w []rune) bool {
	n := len(w)
	return n >= 2 && w[n-1] == w[n-2] && isConsonant(w, n-1)
}

func endsCVC(w []rune) bool {
	n := len(w)
	if n >= 3 && isConsonant(w, n-3) && !isConsonant(w, n-2) && isConsonant(w, n-1) && w[n-1] != 'w' && w[n-1] != 'x' && w[n-1] != 'y' {
		return true
	}
	return n == 2 && !isConsonant(w, 0) && isConsonant(w, 1)
}

func hasSuffix(w []rune, s string) bool {
	n := 0
	for range s {
		n++
	}
	if n > len(w) {
		return false
	}
	i := len(w) - n
	for _, c := range s {
		if w[i] != c {
			return false
		}
		i++
	}
	return true
}

func cut(w []rune, s string) []rune { return append([]rune(nil), w[:len(w)-len([]rune(s))]...) }

type rule struct {
	suffix, repl string
	cond         func(stem []rune) bool
}

// applyRules applies the first rule whose suffix matches (nltk's
// _apply_rule_list, "*d" meaning a double consonant).
func applyRules(w []rune, rules []rule) []rune {
	for _, r := range rules {
		if r.suffix == "*d" && endsDoubleConsonant(w) {
			stem := append([]rune(nil), w[:len(w)-2]...)
			if r.cond == nil || r.cond(stem) {
				return append(stem, []rune(r.repl)...)
			}
			return w
		}
		if hasSuffix(w, r.suffix) {
			stem := cut(w, r.suffix)
			if r.cond == nil || r.cond(stem) {
				return append(stem, []rune(r.repl)...)
			}
			return w
		}
	}
	return w
}

func positive(stem []rune) bool { return measure(stem) > 0 }

func step1a(w []rune) []rune {
	if hasSuffix(w, "ies") && len(w) == 4 {
		return append(cut(w, "ies"), []rune("ie")...)
	}
	return applyRules(w, []rule{{"sses", "ss", nil}, {"ies", "i", nil}, {"ss", "ss", nil}, {"s", "", nil}})
}

func step1b(w []rune) []rune {
	if hasSuffix(w, "ied") {
		if len(w) == 4 {
			return append(cut(w, "ied"), []rune("ie")...)
		}
		return append(cut(w, "ied"), 'i')
	}
	if hasSuffix(w, "eed") {
		stem := cut(w, "eed")
		if measure(stem) > 0 {
			return append(stem, []rune("ee")...)
		}
		return w
	}
	var inter []rune
	ok := false
	for _, s := range []string{"ed", "ing"} {
		if hasSuffix(w, s) {
			inter = cut(w, s)
			if containsVowel(inter) {
				ok = true
				break
			}
		}
	}
	if !ok {
		return w
	}
	last := inter[len(inter)-1]
	return applyRules(inter, []rule{
		{"at", "ate", nil}, {"bl", "ble", nil}, {"iz", "ize", nil},
		{"*d", string(last), func([]rune) bool { return last != 'l' && last != 's' && last != 'z' }},
		{"", "e", func(stem []rune) bool { return measure(stem) == 1 && endsCVC(stem) }},
	})
}

func step1c(w []rune) []rune {
	return applyRules(w, []rule{{"y", "i", func(stem []rune) bool { return len(stem) > 1 && isConsonant(stem, len(stem)-1) }}})
}

func step2(w []rune) []rune {
	if hasSuffix(w, "alli") && positive(cut(w, "alli")) {
		return step2(append(cut(w, "alli"), []rune("al")...))
	}
	rules := []rule{{"ational", "ate", positive}, {"tional", "tion", positive}, {"enci", "ence", positive}, {"anci", "ance", positive},
		{"izer", "ize", positive}, {"bli", "ble", positive}, {"alli", "al", positive}, {"entli", "ent", positive}, {"eli", "e", positive},
		{"ousli", "ous", positive}, {"ization", "ize", positive}, {"ation", "ate", positive}, {"ator", "ate", positive},
		{"alism", "al", positive}, {"iveness", "ive", positive}, {"fulness", "ful", positive}, {"ousness", "ous", positive},
		{"aliti", "al", positive}, {"iviti", "ive", positive}, {"biliti", "ble", positive}, {"fulli", "ful", positive},
		{"logi", "log", func([]rune) bool { return len(w) >= 3 && positive(w[:len(w)-3]) }}}
	return applyRules(w, rules)
}

func step3(w []rune) []rune {
	return applyRules(w, []rule{{"icate", "ic", positive}, {"ative", "", positive}, {"alize", "al", positive}, {"iciti", "ic", positive},
		{"ical", "ic", positive}, {"ful", "", positive}, {"ness", "", positive}})
}

func step4(w []rune) []rune {
	gt1 := func(stem []rune) bool { return measure(stem) > 1 }
	return applyRules(w, []rule{{"al", "", gt1}, {"ance", "", gt1}, {"ence", "", gt1}, {"er", "", gt1}, {"ic", "", gt1}, {"able", "", gt1},
		{"ible", "", gt1}, {"ant", "", gt1}, {"ement", "", gt1}, {"ment", "", gt1}, {"ent", "", gt1},
		{"ion", "", func(stem []rune) bool {
			return measure(stem) > 1 && len(stem) > 0 && (stem[len(stem)-1] == 's' || stem[len(stem)-1] == 't')
		}},
		{"ou", "", gt1}, {"ism", "", gt1}, {"ate", "", gt1}, {"iti", "", gt1}, {"ous", "", gt1}, {"ive", "", gt1}, {"ize", "", gt1}})
}

func step5a(w []rune) []rune {
	if hasSuffix(w, "e") {
		stem := cut(w, "e")
		if measure(stem) > 1 {
			return stem
		}
		if measure(stem) == 1 && !endsCVC(stem) {
			return stem
		}
	}
	return w
}

func step5b(w []rune) []rune {
	return applyRules(w, []rule{{"ll", "l", func([]rune) bool { return measure(w[:len(w)-1]) > 1 }}})
}
