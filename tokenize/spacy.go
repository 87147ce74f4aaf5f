package tokenize

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dlclark/regexp2"

	"github.com/fallacylab/fallacylab/pyre"
)

// Spacy is spaCy's rule-based Tokenizer (spacy/tokenizer.pyx, release
// v3.7.6), written out here because no Go library reproduces it and
// MissciPlus's BM25 numbers depend on its exact token boundaries. It splits
// on whitespace, peels prefixes and suffixes, applies special cases, keeps
// URLs whole, splits infixes and, last, re-applies the special cases that
// span several tokens. The rule expressions are Python's, run on a
// backtracking engine with Python's semantics (pyre.CompileBacktracking).
// Like spaCy, it memoises each whitespace-delimited span's tokens (up to
// cacheLimit spans). Left out, because no token changes with them: lexeme
// attributes. A Spacy is safe for concurrent use.
type Spacy struct {
	prefix, suffix, infix, url *regexp2.Regexp
	fasterHeuristics           bool
	specials                   map[string][]string
	// patterns index the special matcher's phrases by their first token.
	patterns map[string][][]string
	// cache holds the tokens of spans already seen (string → []piece),
	// as spaCy's _cache does; cached counts them.
	cache  sync.Map
	cached atomic.Int64
}

// cacheLimit bounds the span cache; past it spans are tokenised afresh.
const cacheLimit = 1 << 20

// Token is one token: its text, its offset in code points and whether a
// single space follows it (spaCy's whitespace_).
type Token struct {
	Text  string
	Idx   int
	Space bool
}

type piece struct {
	text  string
	space bool
}

// NewSpacy builds a tokenizer from rules, as Tokenizer.from_bytes does.
func NewSpacy(r Rules) (*Spacy, error) {
	t := &Spacy{fasterHeuristics: r.FasterHeuristics, specials: map[string][]string{}, patterns: map[string][][]string{}}
	for _, c := range []struct {
		dst  **regexp2.Regexp
		name string
		expr string
	}{{&t.prefix, "prefix", r.Prefix}, {&t.suffix, "suffix", r.Suffix}, {&t.infix, "infix", r.Infix}, {&t.url, "url", r.URL}} {
		if c.expr == "" {
			continue
		}
		re, err := pyre.CompileBacktracking(c.expr)
		if err != nil {
			return nil, fmt.Errorf("tokenize: %s expression: %w", c.name, err)
		}
		*c.dst = re
	}
	keys := make([]string, 0, len(r.Exceptions))
	for k := range r.Exceptions {
		keys = append(keys, k)
	}
	sort.Strings(keys) // spaCy adds them sorted (_load_special_cases)
	for _, k := range keys {
		if strings.Join(r.Exceptions[k], "") != k {
			return nil, fmt.Errorf("tokenize: special case %q splits into %q, which do not join to it", k, r.Exceptions[k])
		}
		t.addSpecialCase(k, r.Exceptions[k])
	}
	return t, nil
}

// addSpecialCase is Tokenizer.add_special_case: a special case that holds
// an affix or a space also becomes a phrase of the special matcher, as the
// tokens it splits into without special cases.
func (t *Spacy) addSpecialCase(s string, pieces []string) {
	t.specials[s] = pieces
	r := []rune(s)
	if !t.fasterHeuristics || t.findPrefix(r) > 0 || len(t.findInfix(r)) > 0 || t.findSuffix(r) > 0 || strings.Contains(s, " ") {
		var pattern []string
		for _, p := range t.tokenizeAffixes(r, false) {
			pattern = append(pattern, p.text)
		}
		if len(pattern) > 0 {
			t.patterns[pattern[0]] = append(t.patterns[pattern[0]], pattern)
		}
	}
}

// Words returns the token texts of text.
func (t *Spacy) Words(text string) []string {
	toks := t.Tokens(text)
	out := make([]string, len(toks))
	for i, tok := range toks {
		out[i] = tok.Text
	}
	return out
}

// Tokens tokenises text as Tokenizer.__call__ does.
func (t *Spacy) Tokens(text string) []Token {
	pieces := t.applySpecialCases(t.tokenizeAffixes([]rune(text), true))
	out := make([]Token, len(pieces))
	idx := 0
	for i, p := range pieces {
		out[i] = Token{Text: p.text, Idx: idx, Space: p.space}
		idx += len([]rune(p.text))
		if p.space {
			idx++
		}
	}
	return out
}

// tokenizeAffixes is Tokenizer._tokenize_affixes: spans of whitespace and
// of non-whitespace, where a single ' ' after a token is not a token.
func (t *Spacy) tokenizeAffixes(s []rune, withSpecials bool) []piece {
	var toks []piece
	if len(s) == 0 {
		return toks
	}
	start := 0
	inWS := pyre.IsSpace(s[0])
	for i, uc := range s {
		if pyre.IsSpace(uc) != inWS {
			if start < i {
				toks = append(toks, t.span(s[start:i], withSpecials)...)
			}
			if uc == ' ' {
				toks[len(toks)-1].space = true
				start = i + 1
			} else {
				start = i
			}
			inWS = !inWS
		}
	}
	if start < len(s) {
		toks = append(toks, t.span(s[start:], withSpecials)...)
		toks[len(toks)-1].space = s[len(s)-1] == ' ' && !inWS
	}
	return toks
}

// span tokenises one whitespace-delimited span (_try_specials_and_cache,
// then _tokenize). Callers copy the pieces (append) before changing them.
func (t *Spacy) span(s []rune, withSpecials bool) []piece {
	if !withSpecials {
		return t.tokenizeSpan(s, false)
	}
	key := string(s)
	if v, ok := t.cache.Load(key); ok {
		return v.([]piece)
	}
	out := t.tokenizeSpan(s, true)
	if t.cached.Load() < cacheLimit {
		t.cache.Store(key, out)
		t.cached.Add(1)
	}
	return out
}

func (t *Spacy) tokenizeSpan(s []rune, withSpecials bool) []piece {
	if sp, ok := t.special(string(s), withSpecials); ok {
		return sp
	}
	rest, prefixes, suffixes := t.splitAffixes(s, withSpecials)
	out := make([]piece, 0, len(prefixes)+len(suffixes)+1)
	for _, p := range prefixes {
		out = append(out, piece{text: p})
	}
	out = append(out, t.attachTokens(rest, withSpecials)...)
	for i := len(suffixes) - 1; i >= 0; i-- {
		out = append(out, piece{text: suffixes[i]})
	}
	return out
}

func (t *Spacy) special(s string, withSpecials bool) ([]piece, bool) {
	if !withSpecials {
		return nil, false
	}
	sp, ok := t.specials[s]
	if !ok {
		return nil, false
	}
	out := make([]piece, len(sp))
	for i, p := range sp {
		out[i] = piece{text: p}
	}
	return out, true
}

func (t *Spacy) isSpecial(s []rune, withSpecials bool) bool {
	if !withSpecials || len(s) == 0 {
		return false
	}
	_, ok := t.specials[string(s)]
	return ok
}

// splitAffixes is Tokenizer._split_affixes.
func (t *Spacy) splitAffixes(s []rune, withSpecials bool) (rest []rune, prefixes, suffixes []string) {
	lastSize := -1
	for len(s) > 0 && len(s) != lastSize {
		if t.isSpecial(s, withSpecials) {
			break
		}
		lastSize = len(s)
		preLen := t.findPrefix(s)
		var prefix string
		var minusPre []rune
		if preLen != 0 {
			prefix, minusPre = string(s[:preLen]), s[preLen:]
			if t.isSpecial(minusPre, withSpecials) {
				s = minusPre
				prefixes = append(prefixes, prefix)
				break
			}
		}
		sufLen := t.findSuffix(s[preLen:])
		var suffix string
		var minusSuf []rune
		if sufLen != 0 {
			suffix, minusSuf = string(s[len(s)-sufLen:]), s[:len(s)-sufLen]
			if t.isSpecial(minusSuf, withSpecials) {
				s = minusSuf
				suffixes = append(suffixes, suffix)
				break
			}
		}
		switch {
		case preLen != 0 && sufLen != 0 && preLen+sufLen <= len(s):
			s = s[preLen : len(s)-sufLen]
			prefixes = append(prefixes, prefix)
			suffixes = append(suffixes, suffix)
		case preLen != 0:
			s = minusPre
			prefixes = append(prefixes, prefix)
		case sufLen != 0:
			s = minusSuf
			suffixes = append(suffixes, suffix)
		}
	}
	return s, prefixes, suffixes
}

// attachTokens is the middle of Tokenizer._attach_tokens: what is left of
// a span after its affixes is a special case, a URL, or split at infixes.
func (t *Spacy) attachTokens(s []rune, withSpecials bool) []piece {
	if len(s) == 0 {
		return nil
	}
	if sp, ok := t.special(string(s), withSpecials); ok {
		return sp
	}
	if t.url != nil && must(t.url.MatchRunes(s)) {
		return []piece{{text: string(s)}}
	}
	matches := t.findInfix(s)
	if len(matches) == 0 {
		return []piece{{text: string(s)}}
	}
	var out []piece
	start := 0
	for _, m := range matches {
		if m[0] == 0 { // start_before_infixes
			continue
		}
		if m[0] != start {
			out = append(out, piece{text: string(s[start:m[0]])})
		}
		if m[0] != m[1] {
			out = append(out, piece{text: string(s[m[0]:m[1]])})
		}
		start = m[1]
	}
	if start < len(s) {
		out = append(out, piece{text: string(s[start:])})
	}
	return out
}

func (t *Spacy) findPrefix(s []rune) int { return matchLen(t.prefix, s) }

func (t *Spacy) findSuffix(s []rune) int { return matchLen(t.suffix, s) }

// matchLen is the length of re's first match in s (search), 0 for none.
func matchLen(re *regexp2.Regexp, s []rune) int {
	if re == nil {
		return 0
	}
	m := mustMatch(re.FindRunesMatch(s))
	if m == nil {
		return 0
	}
	return m.Length
}

// findInfix lists infix_finditer's matches as [start, end) in code points.
func (t *Spacy) findInfix(s []rune) [][2]int {
	if t.infix == nil {
		return nil
	}
	var out [][2]int
	for m := mustMatch(t.infix.FindRunesMatch(s)); m != nil; m = mustMatch(t.infix.FindNextMatch(m)) {
		out = append(out, [2]int{m.Index, m.Index + m.Length})
	}
	return out
}

// applySpecialCases is Tokenizer._apply_special_cases with the special
// matcher (PhraseMatcher.find_matches): every run of tokens that equals a
// phrase; the longest (then leftmost) win where they overlap at an end; a
// run whose text is a special case becomes that special case's tokens,
// keeping the run's final space.
func (t *Spacy) applySpecialCases(toks []piece) []piece {
	type span struct{ start, end int }
	var matches []span
	for i, tok := range toks {
		for _, pattern := range t.patterns[tok.text] {
			if i+len(pattern) > len(toks) {
				continue
			}
			ok := true
			for j, p := range pattern[1:] {
				if toks[i+1+j].text != p {
					ok = false
					break
				}
			}
			if ok {
				matches = append(matches, span{i, i + len(pattern)})
			}
		}
	}
	if len(matches) == 0 {
		return toks
	}
	// _filter_special_spans: sorted by length, then start descending, and
	// taken from the back; every token of a span is marked seen, kept or not.
	sort.Slice(matches, func(a, b int) bool {
		la, lb := matches[a].end-matches[a].start, matches[b].end-matches[b].start
		if la != lb {
			return la < lb
		}
		return matches[a].start > matches[b].start
	})
	seen := map[int]bool{}
	byStart := map[int]int{}
	for i := len(matches) - 1; i >= 0; i-- {
		m := matches[i]
		if !seen[m.start] && !seen[m.end-1] {
			byStart[m.start] = m.end
		}
		for k := m.start; k < m.end; k++ {
			seen[k] = true
		}
	}
	out := make([]piece, 0, len(toks))
	for i := 0; i < len(toks); {
		end, ok := byStart[i]
		if !ok {
			out = append(out, toks[i])
			i++
			continue
		}
		var text strings.Builder
		for k := i; k < end; k++ {
			text.WriteString(toks[k].text)
			if k < end-1 && toks[k].space {
				text.WriteByte(' ')
			}
		}
		if sp, ok := t.special(text.String(), true); ok {
			sp[len(sp)-1].space = toks[end-1].space
			out = append(out, sp...)
		} else {
			out = append(out, toks[i:end]...)
		}
		i = end
	}
	return slices.Clip(out)
}

// must and mustMatch unwrap regexp2's results; its only error is a match
// timeout, and these expressions are compiled without one.
func must(ok bool, err error) bool {
	if err != nil {
		panic(fmt.Sprintf("tokenize: %v", err))
	}
	return ok
}

func mustMatch(m *regexp2.Match, err error) *regexp2.Match {
	if err != nil {
		panic(fmt.Sprintf("tokenize: %v", err))
	}
	return m
}
