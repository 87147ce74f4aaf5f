package textmetric

import (
	"regexp"
	"strings"
	"unicode"
)

// Sentences splits text like nltk 3.8's PunktSentenceTokenizer() with no
// training data (no abbreviations, collocations or orthographic statistics),
// realigning closing quotes and brackets. Ported from nltk/tokenize/punkt.py.
func Sentences(text string) []string {
	r := []rune(text)
	var out []string
	for _, s := range realign(r, slicesFromText(r)) {
		out = append(out, string(r[s[0]:s[1]]))
	}
	return out
}

func isSentEnd(c rune) bool { return c == '.' || c == '?' || c == '!' }

// nonWord is Punkt's _re_non_word_chars.
func nonWord(c rune) bool { return strings.ContainsRune(`)";}]*:@'({[?!`, c) }

type periodMatch struct {
	start, end   int // the punctuation character
	afterEnd     int // end of after_tok
	nextTokStart int // -1 when after_tok is punctuation
}

// periodMatches emulates finditer of Punkt's period-context pattern:
// [.?!](?=(?P<after_tok>NonWord|\s+(?P<next_tok>\S+))).
func periodMatches(r []rune) []periodMatch {
	var out []periodMatch
	for i, c := range r {
		if !isSentEnd(c) || i+1 >= len(r) {
			continue
		}
		if nonWord(r[i+1]) {
			out = append(out, periodMatch{i, i + 1, i + 2, -1})
			continue
		}
		j := i + 1
		for j < len(r) && pyspace(r[j]) {
			j++
		}
		if j == i+1 || j >= len(r) {
			continue
		}
		k := j
		for k < len(r) && !pyspace(r[k]) {
			k++
		}
		out = append(out, periodMatch{i, i + 1, k, j})
	}
	return out
}

func isASCIIWhitespace(c rune) bool { return strings.ContainsRune(" \t\n\r\v\f", c) }

type context struct {
	m    periodMatch
	text string
}

// potentialEnds is _match_potential_end_contexts.
func potentialEnds(r []rune) []context {
	var out []context
	prevStart, prevStop := 0, 0
	var prev *periodMatch
	emit := func() {
		out = append(out, context{*prev, string(r[prevStart:prevStop]) + string(r[prev.start:prev.afterEnd])})
	}
	for _, m := range periodMatches(r) {
		m := m
		before := r[prevStop:m.start]
		last := 0
		for i := len(before) - 1; i >= 0; i-- {
			if isASCIIWhitespace(before[i]) {
				last = i
				break
			}
		}
		idx := prevStart
		if last != 0 {
			idx = last + prevStop + 1
		}
		if prev != nil && prevStop <= idx {
			emit()
		}
		prev = &m
		prevStart, prevStop = idx, m.start
	}
	if prev != nil {
		emit()
	}
	return out
}

func slicesFromText(r []rune) [][2]int {
	var out [][2]int
	last := 0
	for _, c := range potentialEnds(r) {
		if containsSentBreak(c.text) {
			out = append(out, [2]int{last, c.m.end})
			if c.m.nextTokStart >= 0 {
				last = c.m.nextTokStart
			} else {
				last = c.m.end
			}
		}
	}
	end := len(r)
	for end > 0 && pyspace(r[end-1]) {
		end--
	}
	return append(out, [2]int{last, end})
}

// realign is _realign_boundaries.
func realign(r []rune, slices [][2]int) [][2]int {
	var out [][2]int
	shift := 0
	for i, s1 := range slices {
		s1 = [2]int{s1[0] + shift, s1[1]}
		if i+1 >= len(slices) {
			if s1[0] < s1[1] {
				out = append(out, s1)
			}
			continue
		}
		s2 := slices[i+1]
		if end, n, ok := boundaryRealignment(r[s2[0]:max(s2[0], s2[1])]); ok {
			out = append(out, [2]int{s1[0], s2[0] + n})
			shift = end
		} else {
			shift = 0
			if s1[0] < s1[1] {
				out = append(out, s1)
			}
		}
	}
	return out
}

// boundaryRealignment matches ["')\]}]+?(?:\s+|(?=--)|$) (MULTILINE) at the
// start of s; it returns the match end and the length of the match without
// trailing whitespace.
func boundaryRealignment(s []rune) (end, stripped int, ok bool) {
	for i := 1; i <= len(s) && strings.ContainsRune(`"')]}`, s[i-1]); i++ {
		switch {
		case i < len(s) && pyspace(s[i]):
			j := i
			for j < len(s) && pyspace(s[j]) {
				j++
			}
			return j, i, true
		case i+1 < len(s) && s[i] == '-' && s[i+1] == '-':
			return i, i, true
		case i == len(s) || s[i] == '\n':
			return i, i, true
		}
	}
	return 0, 0, false
}

type punktToken struct {
	tok       string
	sentbreak bool
	abbr      bool
	ellipsis  bool
}

var (
	reNumeric  = regexp.MustCompile(`^-?[\.,]?\p{Nd}[\p{Nd},\.-]*\.?$`)
	reEllipsis = regexp.MustCompile(`^\.\.+$`)
)

func (t *punktToken) typ() string {
	low := strings.ToLower(t.tok)
	if reNumeric.MatchString(low) {
		return "##number##"
	}
	return low
}

func (t *punktToken) periodFinal() bool { return strings.HasSuffix(t.tok, ".") }

func (t *punktToken) typeNoPeriod() string {
	ty := t.typ()
	if len([]rune(ty)) > 1 && strings.HasSuffix(ty, ".") {
		return ty[:len(ty)-1]
	}
	return ty
}

func (t *punktToken) isInitial() bool {
	r := []rune(t.tok)
	return len(r) == 2 && r[1] == '.' && isWordRune(r[0]) && !unicode.IsDigit(r[0]) // [^\W\d]\.$
}

func firstRune(s string) rune {
	for _, r := range s {
		return r
	}
	return 0
}

// orthoHeuristic with no orthographic statistics: punctuation and
// lower-case words are not sentence starters; everything else is unknown.
func orthoHeuristic(t *punktToken) string {
	if strings.Contains(";:,.!?", t.tok) {
		return "false"
	}
	if unicode.IsLower(firstRune(t.tok)) {
		return "false"
	}
	return "unknown"
}

// containsSentBreak is text_contains_sentbreak with empty parameters.
func containsSentBreak(text string) bool {
	var toks []*punktToken
	for _, line := range strings.Split(text, "\n") {
		if strings.TrimFunc(line, pyspace) == "" {
			continue
		}
		for _, w := range punktWords([]rune(line)) {
			toks = append(toks, &punktToken{tok: w})
		}
	}
	for _, t := range toks { // first pass
		switch {
		case t.tok == "." || t.tok == "?" || t.tok == "!":
			t.sentbreak = true
		case reEllipsis.MatchString(t.tok):
			t.ellipsis = true
		case t.periodFinal() && !strings.HasSuffix(t.tok, ".."):
			t.sentbreak = true
		}
	}
	for i, t := range toks { // second pass
		if i+1 >= len(toks) || !t.periodFinal() {
			continue
		}
		next := toks[i+1]
		if t.isInitial() || t.typeNoPeriod() == "##number##" {
			switch orthoHeuristic(next) {
			case "false":
				t.sentbreak, t.abbr = false, true
			case "unknown":
				if t.isInitial() && unicode.IsUpper(firstRune(next.tok)) {
					t.sentbreak, t.abbr = false, true
				}
			}
		}
	}
	found := false
	for _, t := range toks {
		if found {
			return true
		}
		if t.sentbreak {
			found = true
		}
	}
	return false
}

func wordStart(c rune) bool { return !strings.ContainsRune("(\"`{[:;&#*@)}]-,", c) }

// multiChar matches (?:\-{2,}|\.{2,}|(?:\.\s){2,}\.) at r[p:]; it returns the length.
func multiChar(r []rune, p int) int {
	run := func(c rune) int {
		n := 0
		for p+n < len(r) && r[p+n] == c {
			n++
		}
		return n
	}
	if n := run('-'); n >= 2 {
		return n
	}
	if n := run('.'); n >= 2 {
		return n
	}
	n := 0
	for p+n+1 < len(r) && r[p+n] == '.' && pyspace(r[p+n+1]) {
		n += 2
	}
	if n >= 4 && p+n < len(r) && r[p+n] == '.' {
		return n + 1
	}
	return 0
}

// punktWords is PunktLanguageVars.word_tokenize (findall of its pattern).
func punktWords(r []rune) []string {
	var out []string
	for p := 0; p < len(r); {
		if n := multiChar(r, p); n > 0 {
			out = append(out, string(r[p:p+n]))
			p += n
			continue
		}
		if pyspace(r[p]) {
			p++
			continue
		}
		if wordStart(r[p]) {
			e := p + 1
			for ; e <= len(r); e++ {
				if e == len(r) || pyspace(r[e]) || nonWord(r[e]) || multiChar(r, e) > 0 {
					break
				}
				if r[e] == ',' && (e+1 == len(r) || pyspace(r[e+1]) || nonWord(r[e+1]) || multiChar(r, e+1) > 0) {
					break
				}
			}
			out = append(out, string(r[p:e]))
			p = e
			continue
		}
		out = append(out, string(r[p]))
		p++
	}
	return out
}
