package corpus

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// PandasReader reads delimited text the way pandas' C parser does with its
// default quoting (quotechar '"', doublequote=True). Hand-written because
// encoding/csv, even with LazyQuotes, treats a quote inside a quoted field
// differently: the Sahai negative-sample TSVs contain fields such as
// `" vowing to push…" more text`, where pandas closes the quoted part at the
// second quote and keeps the rest of the field, and encoding/csv runs on
// across tabs and lines. Matching pandas is what reproduces upstream's rows.
type PandasReader struct {
	r     *bufio.Reader
	delim rune
	line  int // current physical line (1-based)
}

// NewPandasReader reads r, fields separated by delim.
func NewPandasReader(r io.Reader, delim rune) *PandasReader {
	return &PandasReader{r: bufio.NewReaderSize(r, 1<<16), delim: delim, line: 1}
}

// Rows hands every record after the header to fn with the line it starts
// on; a read error or a record with other than width fields is an error
// naming the file and line.
func (p *PandasReader) Rows(name string, width int, fn func(rec []string, line int) error) error {
	for {
		rec, line, err := p.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s line %d: %w", name, line, err)
		}
		if len(rec) != width {
			return LineErr(name, line, "%d fields, header has %d", len(rec), width)
		}
		if err := fn(rec, line); err != nil {
			return err
		}
	}
}

// Read returns the next record and the line it started on; io.EOF at the end.
// Blank lines are skipped, as pandas does.
func (p *PandasReader) Read() ([]string, int, error) {
	const (
		startField = iota
		inField
		inQuoted
		quoteInQuoted
	)
	var rec []string
	var b strings.Builder
	state := startField
	start := p.line
	sawAny := false
	for {
		c, _, err := p.r.ReadRune()
		if errors.Is(err, io.EOF) {
			if !sawAny {
				return nil, start, io.EOF
			}
			rec = append(rec, b.String())
			return rec, start, nil
		}
		if err != nil {
			return nil, start, err
		}
		if c == '\r' && state != inQuoted {
			// CRLF row endings: drop the CR before a newline (inside quotes
			// pandas keeps it, and so do we).
			next, _, err := p.r.ReadRune()
			if err == nil && next == '\n' {
				c = '\n'
			} else {
				if err == nil {
					p.r.UnreadRune()
				}
			}
		}
		if c == '\n' {
			p.line++
		}
		switch state {
		case startField, inField:
			switch {
			case c == '"' && state == startField:
				state = inQuoted
				sawAny = true
			case c == p.delim:
				rec = append(rec, b.String())
				b.Reset()
				state = startField
				sawAny = true
			case c == '\n':
				if !sawAny && b.Len() == 0 && len(rec) == 0 {
					start = p.line // blank line
					continue
				}
				rec = append(rec, b.String())
				return rec, start, nil
			default:
				b.WriteRune(c)
				state = inField
				sawAny = true
			}
		case inQuoted:
			if c == '"' {
				state = quoteInQuoted
			} else {
				b.WriteRune(c)
			}
		case quoteInQuoted:
			switch {
			case c == '"':
				b.WriteRune('"')
				state = inQuoted
			case c == p.delim:
				rec = append(rec, b.String())
				b.Reset()
				state = startField
			case c == '\n':
				rec = append(rec, b.String())
				return rec, start, nil
			default:
				b.WriteRune(c)
				state = inField
			}
		}
	}
}
