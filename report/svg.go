package report

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// Chart asks the HTML renderer to draw a table's column as an SVG chart.
type Chart struct {
	Kind  string // "bars" or "heatmap"
	Title string
	// Label lists the columns whose text names a bar (bars), or the row and
	// column keys of the grid (heatmap: exactly two).
	Label []int
	Value int // the column drawn
}

// LinkFunc returns a URL for a chart element (heatmap cell: row and column
// key; bars: the bar label and ""), or "" for none. Reports use nil; the
// viewer links cells to their generations.
type LinkFunc func(row, col string) string

func esc(s string) string { return html.EscapeString(s) }

// SVG draws a chart of table t. Every text is escaped.
func (c Chart) SVG(t *Table, link LinkFunc) string {
	if c.Kind == "heatmap" {
		return c.heatmap(t, link)
	}
	return c.bars(t, link)
}

func (c Chart) labelOf(row []Cell) string {
	var parts []string
	for _, i := range c.Label {
		if i < len(row) {
			parts = append(parts, row[i].Plain())
		}
	}
	return strings.Join(parts, " · ")
}

// scale maps a cell to [0, 1] of the drawing range.
type scale struct{ lo, hi float64 }

func (s scale) at(v float64) float64 {
	if s.hi == s.lo {
		return 0
	}
	return (v - s.lo) / (s.hi - s.lo)
}

func (c Chart) bars(t *Table, link LinkFunc) string {
	const labelW, barW, rowH, valW, axisH = 260.0, 360.0, 20.0, 150.0, 40.0
	sc := scale{0, 1}
	isProp := true
	for _, row := range t.Rows {
		v := row[c.Value]
		if v.Kind != Prop {
			isProp = false
		}
		for _, x := range []float64{v.Value, v.Lo, v.Hi} {
			if !isNaN(x) && (v.HasCI || x == v.Value) {
				sc.lo, sc.hi = math.Min(sc.lo, x), math.Max(sc.hi, x)
			}
		}
	}
	ticks := niceTicks(sc.lo, sc.hi, 5)
	if isProp {
		sc, ticks = scale{0, 1}, []float64{0, .25, .5, .75, 1}
	} else if len(ticks) > 1 {
		sc = scale{ticks[0], ticks[len(ticks)-1]}
	}
	plotH := rowH * float64(len(t.Rows))
	h := plotH + 22 + axisH
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="%g" height="%g" role="img" aria-label="%s">`, labelW+barW+valW, h, esc(c.Title))
	fmt.Fprintf(&b, `<text x="0" y="12" class="ct">%s</text>`, esc(c.Title))
	// The value axis: ticks, grid lines and the column's name below.
	base := 22 + plotH
	fmt.Fprintf(&b, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" class="axis"/>`, labelW, base, labelW+barW, base)
	for _, tv := range ticks {
		x := labelW + barW*sc.at(tv)
		lbl := num(tv, tickDigits(ticks))
		if isProp {
			lbl = strconv.FormatFloat(100*tv, 'f', 0, 64) + " %"
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="18" x2="%.1f" y2="%.1f" class="grid"/><line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" class="axis"/><text x="%.1f" y="%.1f" class="tk">%s</text>`,
			x, x, base, x, base, x, base+4, x, base+15, esc(lbl))
	}
	if c.Value < len(t.Columns) {
		fmt.Fprintf(&b, `<text x="%g" y="%.1f" class="at">%s</text>`, labelW+barW/2, base+32, esc(t.Columns[c.Value].Label))
	}
	zero := labelW + barW*sc.at(0)
	fmt.Fprintf(&b, `<line x1="%.1f" y1="18" x2="%.1f" y2="%.1f" class="axis"/>`, zero, zero, base)
	for i, row := range t.Rows {
		y := 22 + rowH*float64(i)
		v := row[c.Value]
		label := c.labelOf(row)
		fmt.Fprintf(&b, `<text x="%g" y="%.1f" class="bl">%s<title>%s</title></text>`, labelW-6, y+13, esc(truncRunes(label, 40)), esc(label))
		if v.Kind == Empty || isNaN(v.Value) {
			continue
		}
		x0, x1 := math.Min(zero, labelW+barW*sc.at(v.Value)), math.Max(zero, labelW+barW*sc.at(v.Value))
		rect := fmt.Sprintf(`<rect x="%.1f" y="%.1f" width="%.1f" height="%g" class="bar"><title>%s: %s</title></rect>`, x0, y+3, math.Max(0.5, x1-x0), rowH-6, esc(label), esc(v.Plain()))
		if link != nil {
			if u := link(label, ""); u != "" {
				rect = fmt.Sprintf(`<a href="%s">%s</a>`, esc(u), rect)
			}
		}
		b.WriteString(rect)
		if v.HasCI && !isNaN(v.Lo) && !isNaN(v.Hi) {
			lo, hi := labelW+barW*sc.at(v.Lo), labelW+barW*sc.at(v.Hi)
			yc := y + rowH/2
			fmt.Fprintf(&b, `<path d="M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f %.1fV%.1f" class="whisker"/>`, lo, yc, hi, lo, yc-4, yc+4, hi, yc-4, yc+4)
		}
		txt := v.Plain()
		if i := strings.Index(txt, " (n="); i > 0 {
			txt = txt[:i]
		}
		fmt.Fprintf(&b, `<text x="%g" y="%.1f" class="bv">%s</text>`, labelW+barW+6, y+13, esc(txt))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// niceTicks are about n round values (steps of 1, 2 or 5 × 10^k) covering
// [lo, hi]. Written here: a dozen lines, and no plotting library is a
// dependency of the reports.
func niceTicks(lo, hi float64, n int) []float64 {
	if !(hi > lo) {
		return []float64{lo}
	}
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	pow := math.Pow(10, float64(max(0, int(math.Ceil(-math.Log10(step)-1e-9)))))
	var out []float64
	for k := math.Floor(lo / step); k <= math.Ceil(hi/step-1e-9); k++ {
		out = append(out, math.Round(k*step*pow)/pow) // 0.6, not 0.6000000000000001
	}
	return out
}

// tickDigits is how many decimals tell the ticks apart.
func tickDigits(ticks []float64) int {
	if len(ticks) < 2 {
		return 0
	}
	step := ticks[1] - ticks[0]
	return max(0, int(math.Ceil(-math.Log10(step)-1e-9)))
}

// wrapWords breaks a label into lines of at most w runes (a longer word is
// cut), at most lines of them, the last ending in "…" when text is left.
func wrapWords(s string, w, lines int) []string {
	var out []string
	cur := ""
	for _, word := range strings.Fields(s) {
		switch {
		case cur == "":
			cur = word
		case len([]rune(cur))+1+len([]rune(word)) <= w:
			cur += " " + word
		default:
			out = append(out, cur)
			cur = word
		}
		for len([]rune(cur)) > w {
			r := []rune(cur)
			out = append(out, string(r[:w]))
			cur = string(r[w:])
		}
	}
	if cur != "" {
		out = append(out, cur)
	}
	if len(out) > lines {
		out = append(out[:lines-1], truncRunes(strings.Join(out[lines-1:], " "), w))
	}
	return out
}

func truncRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// heatColor maps [0, 1] to a white → blue ramp.
func heatColor(v float64) string {
	v = math.Max(0, math.Min(1, v))
	r := int(247 - v*(247-33))
	g := int(251 - v*(251-102))
	b := int(255 - v*(255-172))
	return fmt.Sprintf("#%02x%02x%02x", r, g, b)
}

func (c Chart) heatmap(t *Table, link LinkFunc) string {
	if len(c.Label) != 2 {
		return ""
	}
	var rows, cols []string
	seenR, seenC := map[string]bool{}, map[string]bool{}
	val := map[[2]string]Cell{}
	for _, row := range t.Rows {
		r, col := row[c.Label[0]].Plain(), row[c.Label[1]].Plain()
		if !seenR[r] {
			seenR[r] = true
			rows = append(rows, r)
		}
		if !seenC[col] {
			seenC[col] = true
			cols = append(cols, col)
		}
		val[[2]string{r, col}] = row[c.Value]
	}
	const labelW, cellW, cellH, lineH = 200.0, 92.0, 30.0, 12.0
	colLines := make([][]string, len(cols))
	most := 1
	for j, col := range cols {
		colLines[j] = wrapWords(col, 15, 3)
		most = max(most, len(colLines[j]))
	}
	rowKey, colKey := "", ""
	if c.Label[0] < len(t.Columns) && c.Label[1] < len(t.Columns) {
		rowKey, colKey = t.Columns[c.Label[0]].Label, t.Columns[c.Label[1]].Label
	}
	headH := 40 + lineH*float64(most)
	w := labelW + cellW*float64(len(cols)) + 20
	h := headH + cellH*float64(len(rows)) + 50
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="%g" height="%g" role="img" aria-label="%s">`, w, h, esc(c.Title))
	fmt.Fprintf(&b, `<text x="0" y="12" class="ct">%s</text>`, esc(c.Title))
	// Axis titles: the column key above the column labels, the row key
	// above the row labels.
	fmt.Fprintf(&b, `<text x="%g" y="30" class="at">%s →</text><text x="%g" y="%g" class="bl at">%s ↓</text>`, labelW, esc(colKey), labelW-6, headH-6, esc(rowKey))
	for j, col := range cols {
		x := labelW + cellW*float64(j) + cellW/2 - 1
		fmt.Fprintf(&b, `<text x="%.1f" y="%g" class="hl">`, x, headH-6-lineH*float64(len(colLines[j])-1))
		for k, line := range colLines[j] {
			dy := "0"
			if k > 0 {
				dy = fmt.Sprint(lineH)
			}
			fmt.Fprintf(&b, `<tspan x="%.1f" dy="%s">%s</tspan>`, x, dy, esc(line))
		}
		fmt.Fprintf(&b, `<title>%s</title></text>`, esc(col))
	}
	for i, r := range rows {
		y := headH + cellH*float64(i)
		fmt.Fprintf(&b, `<text x="%g" y="%.1f" class="bl">%s<title>%s</title></text>`, labelW-6, y+cellH/2+4, esc(truncRunes(r, 30)), esc(r))
		for j, col := range cols {
			x := labelW + cellW*float64(j)
			cell, ok := val[[2]string{r, col}]
			fill, txt, cv := "#eeeeee", "–", "cv"
			if ok && cell.Kind != Empty && !isNaN(cell.Value) {
				fill = heatColor(cell.Value)
				if cell.Value > 0.6 {
					cv = "cv hi" // light text on a dark cell
				}
				txt = pct(cell.Value)
				if cell.Kind != Prop {
					txt = num(cell.Value, max(cell.Digits, 1))
				}
			}
			title := fmt.Sprintf("%s · %s: %s", r, col, cell.Plain())
			g := fmt.Sprintf(`<g class="cell" data-row="%s" data-col="%s"><rect x="%.1f" y="%.1f" width="%g" height="%g" fill="%s"><title>%s</title></rect><text x="%.1f" y="%.1f" class="%s">%s</text></g>`,
				esc(r), esc(col), x, y, cellW-2, cellH-2, fill, esc(title), x+cellW/2-1, y+cellH/2+4, cv, esc(txt))
			if link != nil {
				if u := link(r, col); u != "" {
					g = fmt.Sprintf(`<a href="%s">%s</a>`, esc(u), g)
				}
			}
			b.WriteString(g)
		}
	}
	// Legend.
	ly := headH + cellH*float64(len(rows)) + 16
	for k := 0; k <= 10; k++ {
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="16" height="10" fill="%s"/>`, labelW+16*float64(k), ly, heatColor(float64(k)/10))
	}
	fmt.Fprintf(&b, `<text x="%g" y="%.1f" class="bl">0 %%</text><text x="%g" y="%.1f" class="lg">100 %%</text>`, labelW-6, ly+9, labelW+16*11+4, ly+9)
	b.WriteString(`</svg>`)
	return b.String()
}
