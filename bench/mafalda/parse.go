package mafalda

import (
	"sort"
	"strings"

	"github.com/fallacylab/fallacylab/pyre"
)

// Upstream's patterns (src/evaluate.py), read as Python reads them.
var (
	punctuation = pyre.MustCompile(`[^\w\s]`)
	// NON_FALLACIES_REGEX, \b(?:does not contain|no|…)\b: it is searched
	// for in an answer whose every character is a word character or a
	// space (punctuation is replaced first), where Python's Unicode \b is
	// exactly a space or either end (Go's \b is ASCII, and pyre leaves it
	// untranslated).
	nonFallacy = pyre.MustCompile(`(?:^|\s)(?:does not contain|no|none|not|false|nothing|is not part|not necessarily part|no fallacious|not fallacious)(?:\s|$)`)
)

// Labels is upstream's extract_labels_level_2 (level 2) or
// extract_labels_level_1 (level 1): the labels an answer about one
// sentence names — every keyword it contains, Nothing when it says "no",
// "not", "none"…, and Unknown when neither — in ascending order.
func Labels(answer string, level int) []int {
	if i := strings.Index(answer, "Output:"); i >= 0 {
		answer = answer[i:]
	}
	if i := strings.Index(answer, "Based on the above text, determine"); i >= 0 {
		answer = answer[:i] // the model repeated the instructions
	}
	answer = punctuation.ReplaceAllString(pyre.Lower(answer), " ")
	if i := strings.Index(answer, "based on the above"); i >= 0 {
		answer = answer[:i]
	}
	set := map[int]bool{}
	kw := keywords2
	if level == 1 {
		kw = keywords1
	}
	for _, k := range kw {
		if strings.Contains(answer, k.word) {
			set[k.id] = true
		}
	}
	if nonFallacy.MatchString(pyre.Lower(answer)) {
		set[Nothing] = true
	}
	if len(set) == 0 {
		set[Unknown(level)] = true
	}
	out := make([]int, 0, len(set))
	for l := range set {
		out = append(out, l)
	}
	sort.Ints(out)
	return out
}
