// Package textwrap breaks text into lines for a terminal.
package textwrap

import "strings"

// Wrap breaks text at spaces into lines of at most width characters (a
// longer word keeps a line of its own).
func Wrap(text string, width int) string {
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(text) {
		l := len([]rune(word))
		if i > 0 && n+1+l > width {
			b.WriteByte('\n')
			n = 0
		} else if i > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += l
	}
	return b.String()
}
