// Package pyre compiles regular expressions written for Python's re (str
// patterns, Unicode semantics) into Go regexps that match the same text,
// for the parsers ported from upstream Python. Go's regexp (RE2) differs
// where model output reaches: \d, \s and \w are ASCII in Go and Unicode in
// Python, and Python's IGNORECASE matches 'i' with 'İ' (U+0130) and 'ı'
// (U+0131), which Go's simple case folding leaves out ('k' with the Kelvin
// sign and 's' with 'ſ' fold alike in both). No library translates one
// dialect into the other, hence this small rewriter; it handles the syntax
// the ported patterns use (literals, escapes, classes, groups, inline
// flags at the start) and refuses what it does not know.
package pyre

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// Python's \s for str patterns: str.isspace() (29 code points), which adds
// \x1c-\x1f and the Unicode spaces to Go's ASCII \s.
const space = `\t\n\x0b\x0c\r\x1c-\x1f \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}`

// escapes are Python's Unicode classes in Go syntax, inside a class.
var escapes = map[byte]string{
	'd': `\p{Nd}`,
	's': space,
	'w': `\p{L}\p{N}_`,
}

// MustCompile translates and compiles a Python pattern; it panics on a
// pattern it cannot translate, as regexp.MustCompile does.
func MustCompile(pattern string) *regexp.Regexp {
	re, err := Compile(pattern)
	if err != nil {
		panic(err)
	}
	return re
}

// Compile translates a Python pattern into Go syntax and compiles it.
func Compile(pattern string) (*regexp.Regexp, error) {
	g, err := Translate(pattern)
	if err != nil {
		return nil, err
	}
	return regexp.Compile(g)
}

// Translate rewrites a Python pattern into Go syntax.
func Translate(pattern string) (string, error) {
	var b strings.Builder
	p, fold, err := leadingFlags(&b, pattern)
	if err != nil {
		return "", err
	}
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\':
			if i+1 >= len(p) {
				return "", fmt.Errorf("pyre: trailing backslash in %q", pattern)
			}
			i++
			if err := writeEscape(&b, p[i], inClass, pattern); err != nil {
				return "", err
			}
		case c == '[' && !inClass:
			inClass = true
			i = openClass(&b, p, i)
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		case fold && (c == 'i' || c == 'I'):
			if inClass {
				b.WriteString("iIİı")
			} else {
				b.WriteString("[iIİı]")
			}
		default:
			b.WriteByte(c)
		}
	}
	if inClass {
		return "", fmt.Errorf("pyre: unclosed class in %q", pattern)
	}
	return b.String(), nil
}

// leadingFlags copies a pattern's leading inline flags ((?i), (?m), (?s))
// to b and returns the rest of the pattern and whether it ignores case.
func leadingFlags(b *strings.Builder, pattern string) (rest string, fold bool, err error) {
	p := pattern
	if !strings.HasPrefix(p, "(?") || len(p) <= 2 || strings.IndexByte(":P=!<", p[2]) >= 0 {
		return p, false, nil
	}
	end := strings.IndexByte(p, ')')
	if end < 0 {
		return "", false, fmt.Errorf("pyre: unclosed flags in %q", pattern)
	}
	for _, f := range p[2:end] {
		switch f {
		case 'i':
			fold = true
		case 'm', 's':
		default:
			return "", false, fmt.Errorf("pyre: flag %q of %q has no translation", f, pattern)
		}
	}
	b.WriteString(p[:end+1])
	return p[end+1:], fold, nil
}

// writeEscape writes the escape \e: \d, \s and \w as the Unicode classes
// Python means, their negations likewise, anything else as written.
func writeEscape(b *strings.Builder, e byte, inClass bool, pattern string) error {
	if cls, ok := escapes[e]; ok {
		if inClass {
			b.WriteString(cls)
		} else {
			b.WriteString("[" + cls + "]")
		}
		return nil
	}
	if up := e | 0x20; escapes[up] != "" && e != up { // \D \S \W
		if inClass && e == 'D' {
			b.WriteString(`\P{Nd}`) // not a decimal digit: RE2 takes a negated Unicode class inside a class
			return nil
		}
		if inClass {
			return fmt.Errorf("pyre: \\%c inside a class of %q has no translation", e, pattern)
		}
		b.WriteString("[^" + escapes[up] + "]")
		return nil
	}
	b.WriteByte('\\')
	b.WriteByte(e)
	return nil
}

// openClass writes the '[' at p[i], and a '^' and a first ']' (literal in
// Python, escaped for both Go and .NET) after it, and returns the index of
// the last byte it read.
func openClass(b *strings.Builder, p string, i int) int {
	b.WriteByte('[')
	if i+1 < len(p) && p[i+1] == '^' {
		b.WriteByte('^')
		i++
	}
	if i+1 < len(p) && p[i+1] == ']' {
		b.WriteString(`\]`)
		i++
	}
	return i
}

// Strip is Python's str.strip(): it trims str.isspace() characters, which
// include \x1c-\x1f, unlike strings.TrimSpace.
func Strip(s string) string {
	return strings.TrimFunc(s, IsSpace)
}

// IsSpace is Python's str.isspace() for one character.
func IsSpace(r rune) bool {
	switch {
	case r >= '\t' && r <= '\r', r >= 0x1c && r <= 0x20, r == 0x85, r == 0xa0, r == 0x1680,
		r >= 0x2000 && r <= 0x200a, r == 0x2028, r == 0x2029, r == 0x202f, r == 0x205f, r == 0x3000:
		return true
	}
	return false
}

// Lower is Python's str.lower() where it differs from strings.ToLower:
// 'İ' lowers to "i̇" (i and a combining dot), not to 'i', and 'Σ' to final
// 'ς' where it ends a word (Unicode's Final_Sigma context, as CPython's
// handle_capital_sigma decides it), not to 'σ'.
func Lower(s string) string {
	if !strings.ContainsRune(s, 'Σ') {
		return strings.ToLower(strings.ReplaceAll(s, "İ", "i\u0307"))
	}
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		switch {
		case r == 'İ':
			b.WriteString("i\u0307")
		case r == 'Σ' && finalSigma(rs, i):
			b.WriteRune('ς')
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// finalSigma: a cased letter before rs[i] and none after it, skipping
// case-ignorable characters both ways.
func finalSigma(rs []rune, i int) bool {
	j := i - 1
	for j >= 0 && caseIgnorable(rs[j]) {
		j--
	}
	if j < 0 || !cased(rs[j]) {
		return false
	}
	j = i + 1
	for j < len(rs) && caseIgnorable(rs[j]) {
		j++
	}
	return j == len(rs) || !cased(rs[j])
}

// cased is Unicode's Cased property: Lowercase, Uppercase or Lt.
func cased(r rune) bool {
	return unicode.IsLower(r) || unicode.IsUpper(r) || unicode.IsTitle(r) ||
		unicode.Is(unicode.Other_Lowercase, r) || unicode.Is(unicode.Other_Uppercase, r)
}

// caseIgnorable is Unicode's Case_Ignorable property: Mn, Me, Cf, Lm, Sk,
// and the Word_Break classes MidLetter, MidNumLet and Single_Quote.
func caseIgnorable(r rune) bool {
	if unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk) {
		return true
	}
	switch r {
	case '\'', '.', ':', 0xb7, 0x387, 0x55f, 0x5f4, 0x2018, 0x2019, 0x2024, 0x2027, 0xfe13, 0xfe52, 0xfe55, 0xff07, 0xff0e, 0xff1a:
		return true
	}
	return false
}
