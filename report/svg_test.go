package report

import (
	"slices"
	"strings"
	"testing"
)

func TestNiceTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   []float64
	}{
		{0, 1, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		{-6.2, 18, []float64{-10, -5, 0, 5, 10, 15, 20}},
		{0, 87, []float64{0, 20, 40, 60, 80, 100}},
		{3, 3, []float64{3}},
	} {
		if got := niceTicks(c.lo, c.hi, 5); !slices.Equal(got, c.want) {
			t.Errorf("niceTicks(%g, %g) = %v, want %v", c.lo, c.hi, got, c.want)
		}
	}
	if d := tickDigits([]float64{0, 0.2, 0.4}); d != 1 {
		t.Errorf("tickDigits of 0.2 steps = %d", d)
	}
}

func TestWrapWords(t *testing.T) {
	got := wrapWords("4 explicit manipulation", 15, 3)
	if !slices.Equal(got, []string{"4 explicit", "manipulation"}) {
		t.Errorf("wrap = %q", got)
	}
	got = wrapWords(strings.Repeat("x", 40), 15, 2)
	if len(got) != 2 || got[1] != strings.Repeat("x", 14)+"…" {
		t.Errorf("a long word: %q", got)
	}
}

// The bar chart draws its value axis: ticks and the column's name; the
// heatmap names both axes and keeps every label whole (wrapped, or in a
// <title> when cut).
func TestChartAxes(t *testing.T) {
	r := sample()
	tb := r.Sections[0].Tables[0]
	bars := tb.Charts[0].SVG(tb, nil)
	for _, want := range []string{`class="tk">0</text>`, `class="tk">20</text>`, `class="at">refusal</text>`, `<title>model-a · direct</title>`} {
		if !strings.Contains(bars, want) {
			t.Errorf("bars lack %s", want)
		}
	}
	tb.Rows[0][1] = T("4 explicit manipulation")
	heat := tb.Charts[1].SVG(tb, nil)
	for _, want := range []string{`frame →`, `model ↓`, `>4 explicit</tspan>`, `>manipulation</tspan>`, `<title>4 explicit manipulation</title>`} {
		if !strings.Contains(heat, want) {
			t.Errorf("heatmap lacks %s", want)
		}
	}
}

// A table marked as a matrix reads as one in Markdown: a line per row key,
// a column per column key, n last when a line's cells share it.
func TestMarkdownMatrix(t *testing.T) {
	r := &Report{Title: "m"}
	tb := r.AddSection("s", "").Add(&Table{ID: "c", Title: "confusion", Columns: Cols("gold", "predicted", "share"), Matrix: &Matrix{0, 1, 2}})
	tb.Rows = [][]Cell{
		{T("a"), T("a"), P(0.75, 4)}, {T("a"), T("b"), P(0.25, 4)},
		{T("b"), T("a"), P(0, 2)}, {T("b"), T("b"), P(1, 2)},
	}
	var b strings.Builder
	if err := Render(&b, r, Markdown); err != nil {
		t.Fatal(err)
	}
	want := "| gold \\ predicted | a | b | n |\n| --- | --- | --- | --- |\n| a | 75.0 | 25.0 | 4 |\n| b | 0.0 | 100.0 | 2 |\n"
	if !strings.Contains(b.String(), want) {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
}
