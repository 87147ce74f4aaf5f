package report

import (
	"encoding/json"
	"fmt"
	"math"
)

// FromJSON reads a report written by the JSON renderer (schema
// fallacylab-report/1) back into a Report; missing values become NaN.
func FromJSON(data []byte) (*Report, error) {
	var in struct {
		Schema    string            `json:"schema"`
		Title     string            `json:"title"`
		Benchmark string            `json:"benchmark"`
		Meta      map[string]string `json:"meta"`
		Sections  []struct {
			Title  string `json:"title"`
			Intro  string `json:"intro"`
			Tables []struct {
				ID      string       `json:"id"`
				Title   string       `json:"title"`
				Note    string       `json:"note"`
				Columns []Column     `json:"columns"`
				Rows    [][]jsonCell `json:"rows"`
			} `json:"tables"`
		} `json:"sections"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("report JSON: %w", err)
	}
	if in.Schema != "fallacylab-report/1" {
		return nil, fmt.Errorf("report JSON: schema %q is not fallacylab-report/1", in.Schema)
	}
	r := &Report{Title: in.Title, Benchmark: in.Benchmark}
	for k, v := range in.Meta {
		r.Meta = append(r.Meta, [2]string{k, v})
	}
	sortMeta(r.Meta)
	val := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return *p
	}
	for _, s := range in.Sections {
		sec := r.AddSection(s.Title, s.Intro)
		for _, t := range s.Tables {
			tb := &Table{ID: t.ID, Title: t.Title, Note: t.Note, Columns: t.Columns}
			for _, row := range t.Rows {
				var cells []Cell
				for _, c := range row {
					cell := Cell{Kind: c.Kind, Text: c.Text, Note: c.Note, Value: val(c.Value), Lo: val(c.Lo), Hi: val(c.Hi)}
					cell.HasCI = c.Lo != nil || c.Hi != nil
					if c.N != nil {
						cell.N = *c.N
					}
					if cell.Kind == Num {
						cell.Digits = 3
					}
					cells = append(cells, cell)
				}
				tb.Rows = append(tb.Rows, cells)
			}
			sec.Add(tb)
		}
	}
	return r, nil
}

func sortMeta(m [][2]string) {
	for i := 1; i < len(m); i++ {
		for j := i; j > 0 && m[j][0] < m[j-1][0]; j-- {
			m[j], m[j-1] = m[j-1], m[j]
		}
	}
}
