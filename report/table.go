// Package report holds the typed table model every benchmark's analysis
// produces, and its renderers: Markdown, CSV, JSON, LaTeX (booktabs) and a
// self-contained HTML page. Analysis code never formats numbers; renderers do.
package report

import (
	"fmt"
	"math"
	"slices"
)

// Kind is what a cell holds.
type Kind string

// Cell kinds.
const (
	Text  Kind = "text"
	Int   Kind = "int"
	Num   Kind = "num"   // a plain number, shown with Digits decimals
	Prop  Kind = "prop"  // a proportion with a CI, shown in percent
	Empty Kind = "empty" // not applicable
)

// Cell is one table value.
type Cell struct {
	Kind   Kind    `json:"kind"`
	Text   string  `json:"text,omitempty"`
	Value  float64 `json:"value"`
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
	HasCI  bool    `json:"has_ci,omitempty"`
	N      int     `json:"n,omitempty"`
	Digits int     `json:"digits,omitempty"`
	Note   string  `json:"note,omitempty"`
}

// T is a text cell.
func T(s string) Cell { return Cell{Kind: Text, Text: s} }

// I is an integer cell.
func I(n int) Cell { return Cell{Kind: Int, Value: float64(n)} }

// F is a number cell shown with digits decimals (NaN renders as "NA").
func F(v float64, digits int) Cell { return Cell{Kind: Num, Value: v, Digits: digits} }

// PV is a p-value cell: three significant digits, scientific when small.
func PV(p float64) Cell { return Cell{Kind: Num, Value: p, Digits: -1} }

// P is a proportion cell without an interval.
func P(p float64, n int) Cell { return Cell{Kind: Prop, Value: p, N: n} }

// PCI is a proportion with its interval.
func PCI(p, lo, hi float64, n int) Cell {
	return Cell{Kind: Prop, Value: p, Lo: lo, Hi: hi, HasCI: true, N: n}
}

// NCI is a number with an interval.
func NCI(v, lo, hi float64, digits int) Cell {
	return Cell{Kind: Num, Value: v, Lo: lo, Hi: hi, HasCI: true, Digits: digits}
}

// NA is a not-applicable cell.
func NA(why string) Cell { return Cell{Kind: Empty, Note: why} }

// MarshalJSON-friendly NaN handling is done by the JSON renderer.
func isNaN(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }

// Column describes one column.
type Column struct {
	Key   string `json:"key"`
	Label string `json:"label"`
}

// Table is one typed table.
type Table struct {
	ID      string   `json:"id"`
	Title   string   `json:"title"`
	Note    string   `json:"note,omitempty"`
	Columns []Column `json:"columns"`
	Rows    [][]Cell `json:"rows"`
	// Charts are drawn above the table in HTML output.
	Charts []Chart `json:"-"`
	// Matrix, when set, has Markdown show the table as a matrix (rows ×
	// columns of one value) instead of one line per cell; the data formats
	// (CSV, JSON) keep the long form.
	Matrix *Matrix `json:"-"`
}

// Matrix names the columns of a long table that make its matrix: the row
// key, the column key and the value.
type Matrix struct{ Row, Col, Value int }

// Cols builds columns whose key is the label in snake form.
func Cols(labels ...string) []Column {
	out := make([]Column, len(labels))
	for i, l := range labels {
		out[i] = Column{Key: key(l), Label: l}
	}
	return out
}

func key(l string) string {
	b := make([]rune, 0, len(l))
	for _, r := range l {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b = append(b, r)
		case r >= 'A' && r <= 'Z':
			b = append(b, r+'a'-'A')
		default:
			if len(b) > 0 && b[len(b)-1] != '_' {
				b = append(b, '_')
			}
		}
	}
	for len(b) > 0 && b[len(b)-1] == '_' {
		b = b[:len(b)-1]
	}
	return string(b)
}

// Section groups tables under a heading.
type Section struct {
	Title  string   `json:"title"`
	Intro  string   `json:"intro,omitempty"`
	Tables []*Table `json:"tables"`
}

// Report is a whole benchmark report.
type Report struct {
	Title     string      `json:"title"`
	Benchmark string      `json:"benchmark"`
	Meta      [][2]string `json:"meta"`
	Sections  []*Section  `json:"sections"`
	// Headline is the ID of the table whose figures answer the run's
	// question (each model's refusal rate, the audit's false-positive
	// rates), which a page shows on its first screen (HeadlineHTML); Lead,
	// a sentence said above it. Neither is part of the rendered report.
	Headline string `json:"-"`
	Lead     string `json:"-"`
}

// AddSection appends a section and returns it.
func (r *Report) AddSection(title, intro string) *Section {
	s := &Section{Title: title, Intro: intro}
	r.Sections = append(r.Sections, s)
	return s
}

// Add appends a table to the section.
func (s *Section) Add(t *Table) *Table {
	s.Tables = append(s.Tables, t)
	return t
}

// Tables lists every table in order.
func (r *Report) Tables() []*Table {
	var out []*Table
	for _, s := range r.Sections {
		out = append(out, s.Tables...)
	}
	return out
}

// HasProportions says whether a cell of the report is a proportion
// (shown in percent, with its CI and rows).
func (r *Report) HasProportions() bool {
	for _, t := range r.Tables() {
		for _, row := range t.Rows {
			for _, c := range row {
				if c.Kind == Prop {
					return true
				}
			}
		}
	}
	return false
}

// PointIntervals counts the cells whose interval is the point itself
// ([0.0, 0.0], [8.0, 8.0]): every resample gave the same figure.
func (r *Report) PointIntervals() int {
	n := 0
	for _, t := range r.Tables() {
		for _, row := range t.Rows {
			for _, c := range row {
				if c.HasCI && c.Lo == c.Value && c.Hi == c.Value {
					n++
				}
			}
		}
	}
	return n
}

// NotePointIntervals adds a meta line, where the report has intervals
// that are the point itself (PointIntervals), saying how to read them: a
// bootstrap over units (claims, texts) that all give the same figure, or
// over one, has nothing to spread — no variation seen, not certainty.
// Called again (rows added since), it counts again in the same line.
func (r *Report) NotePointIntervals(unit string) {
	r.Meta = slices.DeleteFunc(r.Meta, func(m [2]string) bool { return m[0] == "point intervals" })
	n := r.PointIntervals()
	if n == 0 {
		return
	}
	what := fmt.Sprintf("%d intervals are", n)
	if n == 1 {
		what = "1 interval is"
	}
	r.Meta = append(r.Meta, [2]string{"point intervals", fmt.Sprintf("%s the point itself (as [0.0, 0.0]): every resample gave the same figure — one %s, or %ss that all agree — so the bootstrap shows no spread; that is no variation seen, not a figure known exactly", what, unit, unit)})
}

// Table is the table of that id (nil: none).
func (r *Report) Table(id string) *Table {
	for _, s := range r.Sections {
		for _, t := range s.Tables {
			if t.ID == id {
				return t
			}
		}
	}
	return nil
}

// Col is the index of the column with that key, or -1.
func (t *Table) Col(key string) int {
	for i, c := range t.Columns {
		if c.Key == key {
			return i
		}
	}
	return -1
}

// ChartOf makes a chart of a table from column keys: value is the column
// drawn, labels the columns that name bars (or, for a heatmap, its row and
// column keys). Readers of a table name its columns, never their positions;
// a key the table lacks is an error that names it.
func ChartOf(t *Table, kind, title, value string, labels ...string) (Chart, error) {
	c := Chart{Kind: kind, Title: title, Value: t.Col(value)}
	if c.Value < 0 {
		return c, fmt.Errorf("table %s has no column %q", t.ID, value)
	}
	for _, l := range labels {
		i := t.Col(l)
		if i < 0 {
			return c, fmt.Errorf("table %s has no column %q", t.ID, l)
		}
		c.Label = append(c.Label, i)
	}
	return c, nil
}
