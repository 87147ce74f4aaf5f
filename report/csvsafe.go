package report

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
)

// Spreadsheets run a cell that starts with = + - @ (or a tab or carriage
// return before one) as a formula: model output and annotators' comments
// in a CSV could compute, link or exfiltrate when the file is opened. As
// OWASP recommends ("CSV Injection"), such a cell is written with a
// leading single quote, which spreadsheets show as text; a cell that is a
// plain number (-0.25) stays as it is, so numeric columns still read as
// numbers. encoding/csv has no such option, hence this wrapper.

// CSVSafe is s as a CSV cell that no spreadsheet runs as a formula.
func CSVSafe(s string) string {
	if s == "" || !strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return s
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return s
	}
	return "'" + s
}

// CSVUnsafe undoes CSVSafe, for sheets fallacylab reads back.
func CSVUnsafe(s string) string {
	if len(s) > 1 && s[0] == '\'' && strings.ContainsRune("=+-@\t\r", rune(s[1])) {
		return s[1:]
	}
	return s
}

// CSVWriter is a csv.Writer whose every cell goes through CSVSafe.
type CSVWriter struct {
	*csv.Writer
	buf []string
}

// NewCSVWriter writes formula-safe CSV to w.
func NewCSVWriter(w io.Writer) *CSVWriter { return &CSVWriter{Writer: csv.NewWriter(w)} }

// Write writes one record, each cell made safe.
func (c *CSVWriter) Write(rec []string) error {
	c.buf = c.buf[:0]
	for _, s := range rec {
		c.buf = append(c.buf, CSVSafe(s))
	}
	return c.Writer.Write(c.buf)
}

// WriteAll writes the records and flushes.
func (c *CSVWriter) WriteAll(recs [][]string) error {
	for _, r := range recs {
		if err := c.Write(r); err != nil {
			return err
		}
	}
	c.Flush()
	return c.Error()
}
