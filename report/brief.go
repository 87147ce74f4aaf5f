package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Brief writes what a person at a terminal sees at the end of a run: the
// report's title and lead, and its headline table (Report.Headline) as
// aligned columns — the figures that answer the run's question, not the
// whole report. It reports whether the report has a headline to show.
func Brief(w io.Writer, r *Report) bool {
	if r == nil || r.Headline == "" {
		return false
	}
	t := r.Table(r.Headline)
	if t == nil || len(t.Rows) == 0 {
		return false
	}
	fmt.Fprintf(w, "%s\n", r.Title)
	if r.Lead != "" {
		fmt.Fprintf(w, "%s\n", r.Lead)
	}
	fmt.Fprintf(w, "\n%s\n", t.Title)
	rows := make([][]string, 0, len(t.Rows)+1)
	hdr := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		hdr[i] = c.Label
	}
	rows = append(rows, hdr)
	for _, row := range t.Rows {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = c.Plain()
		}
		rows = append(rows, cells)
	}
	width := make([]int, len(hdr))
	for _, row := range rows {
		for i, c := range row {
			if i < len(width) {
				width[i] = max(width[i], utf8.RuneCountInString(c))
			}
		}
	}
	for _, row := range rows {
		var b strings.Builder
		for i, c := range row {
			if i >= len(width) {
				break
			}
			b.WriteString("  ")
			b.WriteString(c)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", width[i]-utf8.RuneCountInString(c)))
			}
		}
		fmt.Fprintln(w, b.String())
	}
	return true
}
