package deflect

import (
	"encoding/binary"
	"errors"
	"unsafe"
)

// The columns of snapshots (snapshot.go) are packed into bytes, which gob
// copies whole: a column of 48,000 numbers is one copy to encode and to
// decode, not 48,000 gob values. Numbers are varints (most take a byte),
// read back whole. Written here because gob, the container, has no
// columnar form, and Arrow or Parquet would be a large dependency for two
// tables of a few columns.

// ints is a column of integers, as varints.
type ints []byte

func (c ints) values(n int) ([]int, error) {
	out := make([]int, n)
	for i := range out {
		v, k := binary.Varint(c)
		if k <= 0 {
			return nil, errColumns
		}
		out[i], c = int(v), c[k:]
	}
	if len(c) != 0 {
		return nil, errColumns
	}
	return out, nil
}

var errColumns = errors.New("columns of different lengths")

// textColumn is a column of strings kept as one text and each value's
// length: decoding it is one allocation, and the values are slices of it.
type textColumn struct {
	Text string
	Lens ints
}

// textValues is a decoded textColumn.
type textValues struct {
	text string
	ends []int
}

func (c textColumn) decode(n int) (textValues, error) {
	ends, err := c.Lens.values(n)
	if err != nil {
		return textValues{}, err
	}
	at := 0
	for i, l := range ends {
		if l < 0 || at+l > len(c.Text) {
			return textValues{}, errColumns
		}
		at += l
		ends[i] = at
	}
	return textValues{text: c.Text, ends: ends}, nil
}

func (t textValues) at(i int) string {
	start := 0
	if i > 0 {
		start = t.ends[i-1]
	}
	return t.text[start:t.ends[i]]
}

// codedColumn is a column of few distinct strings (models, frames): each
// distinct value once, and each row's as an index.
type codedColumn struct {
	Values textColumn
	N      int // distinct values
	Codes  ints
}

// coded is a decoded codedColumn.
type coded struct {
	values []string
	codes  []int
}

func (c codedColumn) decode(n int) (coded, error) {
	v, err := c.Values.decode(c.N)
	if err != nil {
		return coded{}, err
	}
	codes, err := c.Codes.values(n)
	if err != nil {
		return coded{}, err
	}
	out := coded{values: make([]string, c.N), codes: codes}
	for i := range out.values {
		out.values[i] = v.at(i)
	}
	for _, k := range codes {
		if k < 0 || k >= c.N {
			return coded{}, errColumns
		}
	}
	return out, nil
}

func (c coded) at(i int) string { return c.values[c.codes[i]] }

// textBuilder builds a textColumn.
type textBuilder struct {
	b    []byte
	lens []byte
}

func (t *textBuilder) add(s string) {
	t.b = append(t.b, s...)
	t.lens = binary.AppendVarint(t.lens, int64(len(s)))
}

// column is the column built; the builder is not added to after (its
// bytes become the column's text without a copy: a snapshot's texts are
// tens of megabytes at a large run).
func (t *textBuilder) column() textColumn {
	return textColumn{Text: unsafe.String(unsafe.SliceData(t.b), len(t.b)), Lens: t.lens}
}

// codeBuilder builds a codedColumn.
type codeBuilder struct {
	values textBuilder
	index  map[string]int
	codes  []byte
}

func (c *codeBuilder) add(s string) {
	i, ok := c.index[s]
	if !ok {
		if c.index == nil {
			c.index = map[string]int{}
		}
		i = len(c.index)
		c.index[s] = i
		c.values.add(s)
	}
	c.codes = binary.AppendVarint(c.codes, int64(i))
}

func (c *codeBuilder) column() codedColumn {
	return codedColumn{Values: c.values.column(), N: len(c.index), Codes: c.codes}
}
