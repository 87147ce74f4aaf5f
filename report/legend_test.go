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

// TestNotePointIntervals: the intervals that are the point itself are
// counted into one meta line, said once however often it is asked for
// (rows added since are counted), and not at all where there are none.
func TestNotePointIntervals(t *testing.T) {
	r := &Report{Meta: [][2]string{{"run", "1"}}}
	tb := r.AddSection("s", "").Add(&Table{ID: "t", Columns: Cols("a", "b")})
	tb.Rows = [][]Cell{{PCI(0, 0, 0, 10), NCI(0.5, 0.2, 0.7, 3)}, {NCI(8, 8, 8, 1), PCI(0, 0, 0.3, 10)}}
	r.NotePointIntervals("text")
	tb.Rows = append(tb.Rows, []Cell{PCI(1, 1, 1, 4), F(3, 1)})
	r.NotePointIntervals("text")
	if len(r.Meta) != 2 || r.Meta[1][0] != "point intervals" || !strings.HasPrefix(r.Meta[1][1], "3 intervals are the point itself (as [0.0, 0.0]): every resample gave the same figure — one text, or texts that all agree") {
		t.Fatalf("meta %q", r.Meta)
	}
	none := &Report{}
	none.AddSection("s", "").Add(&Table{ID: "t", Columns: Cols("a"), Rows: [][]Cell{{PCI(0.5, 0.2, 0.8, 10)}}})
	if none.NotePointIntervals("claim"); len(none.Meta) != 0 {
		t.Fatalf("no point interval: meta %q", none.Meta)
	}
}
