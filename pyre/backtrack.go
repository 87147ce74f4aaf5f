package pyre

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// netSpace is Python's \s for str patterns in .NET class syntax.
const netSpace = `\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000`

// netEscapes are Python's Unicode classes in .NET syntax, inside a class.
var netEscapes = map[byte]string{
	'd': `\p{Nd}`,
	's': netSpace,
	'w': `\p{L}\p{N}_`,
}

// CompileBacktracking compiles a Python pattern that needs what RE2 lacks
// (lookbehind, lookahead) with regexp2, a port of .NET's backtracking
// engine: like Python's re it tries alternatives in order, scans start
// positions left to right, lets a lookbehind see the text before the
// search position and matches $ at the end or before a final newline.
// Match positions are in code points, as Python's. The pattern is
// translated first (TranslateBacktracking).
func CompileBacktracking(pattern string) (*regexp2.Regexp, error) {
	n, err := TranslateBacktracking(pattern)
	if err != nil {
		return nil, err
	}
	re, err := regexp2.Compile(n, regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("pyre: %q: %w", pattern, err)
	}
	return re, nil
}

// TranslateBacktracking rewrites a Python pattern into .NET syntax: \d, \s
// and \w (and their negations) become the Unicode classes Python means
// (.NET's \w and \s differ), \UXXXXXXXX (which .NET lacks) becomes the
// character itself, and a leading (?u) (Python 3's default for str
// patterns, unknown to .NET) is dropped. It refuses what would read
// differently in .NET and what it does not know: other inline flags,
// (?P…) groups, letter escapes other than d D s S w W u U x n t r f v, a
// "-[" inside a class (.NET's class subtraction) and a negated class
// escape inside a class.
func TranslateBacktracking(pattern string) (string, error) {
	var b strings.Builder
	p := strings.TrimPrefix(pattern, "(?u)")
	if strings.HasPrefix(p, "(?") && len(p) > 2 && strings.IndexByte(":=!<", p[2]) < 0 {
		return "", fmt.Errorf("pyre: inline flags of %q have no translation", pattern)
	}
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\':
			if i+1 >= len(p) {
				return "", fmt.Errorf("pyre: trailing backslash in %q", pattern)
			}
			n, err := writeNetEscape(&b, p, i+1, inClass, pattern)
			if err != nil {
				return "", err
			}
			i += n
		case c == '(' && !inClass && strings.HasPrefix(p[i:], "(?P"):
			return "", fmt.Errorf("pyre: (?P…) of %q has no translation", pattern)
		case c == '[' && !inClass:
			inClass = true
			i = openClass(&b, p, i)
		case c == '-' && inClass && i+1 < len(p) && p[i+1] == '[':
			return "", fmt.Errorf("pyre: \"-[\" in a class of %q reads as subtraction in .NET", pattern)
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	if inClass {
		return "", fmt.Errorf("pyre: unclosed class in %q", pattern)
	}
	return b.String(), nil
}

// writeNetEscape writes the escape whose letter is p[i] in .NET syntax
// and returns how many bytes it read.
func writeNetEscape(b *strings.Builder, p string, i int, inClass bool, pattern string) (int, error) {
	e := p[i]
	switch {
	case netEscapes[e] != "":
		if inClass {
			b.WriteString(netEscapes[e])
		} else {
			b.WriteString("[" + netEscapes[e] + "]")
		}
	case e == 'D' && inClass:
		b.WriteString(`\P{Nd}`)
	case (e == 'D' || e == 'S' || e == 'W') && !inClass:
		b.WriteString("[^" + netEscapes[e|0x20] + "]")
	case e == 'U':
		if i+8 >= len(p) {
			return 0, fmt.Errorf("pyre: short \\U escape in %q", pattern)
		}
		v, err := strconv.ParseUint(p[i+1:i+9], 16, 32)
		if err != nil || v > utf8.MaxRune {
			return 0, fmt.Errorf("pyre: bad \\U escape in %q", pattern)
		}
		if v < 0x10000 {
			fmt.Fprintf(b, `\u%04X`, v)
		} else {
			b.WriteRune(rune(v)) // above the BMP nothing is special
		}
		return 9, nil
	case strings.IndexByte("uxntrfv", e) >= 0 || !isLetter(e):
		b.WriteByte('\\')
		b.WriteByte(e)
	default:
		return 0, fmt.Errorf("pyre: \\%c of %q has no translation", e, pattern)
	}
	return 1, nil
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
