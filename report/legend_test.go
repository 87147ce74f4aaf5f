package report

import (
	"bytes"
	"strings"
	"testing"
)

// The legend of proportion cells is said only by a report that has one: a
// comparison's or Missci's figures are plain numbers, and "proportions are
// percentages" above them misread them.
func TestLegendOnlyWithProportions(t *testing.T) {
	for _, c := range []struct {
		cell Cell
		want bool
	}{{F(0.265, 3), false}, {T("0.265 [0.254, 0.275]"), false}, {PCI(0.265, 0.254, 0.275, 80), true}} {
		r := &Report{Title: "t"}
		r.AddSection("s", "").Tables = []*Table{{ID: "x", Title: "x", Columns: []Column{{Key: "a", Label: "a"}}, Rows: [][]Cell{{c.cell}}}}
		for _, f := range []Format{Markdown, HTML} {
			var b bytes.Buffer
			if err := Render(&b, r, f); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(b.String(), "Proportions are percentages"); got != c.want {
				t.Errorf("%s with a %s cell: legend %v, want %v", f, c.cell.Kind, got, c.want)
			}
		}
	}
}
