package report

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Format names a renderer.
type Format string

// Output formats.
const (
	Markdown Format = "md"
	CSV      Format = "csv"
	JSON     Format = "json"
	LaTeX    Format = "tex"
	HTML     Format = "html"
)

// ParseFormat validates a format name.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case Markdown, CSV, JSON, LaTeX, HTML:
		return f, nil
	}
	return "", fmt.Errorf("format %q: use md, csv, json, tex or html", s)
}

// Render writes the report in a format. CSV writes every table one after the
// other, each preceded by a "# table-id" line; use RenderCSVTable for one file
// per table.
func Render(w io.Writer, r *Report, f Format) error {
	switch f {
	case Markdown:
		return renderMarkdown(w, r)
	case CSV:
		for i, t := range r.Tables() {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "# %s\n", t.ID)
			if err := RenderCSVTable(w, t); err != nil {
				return err
			}
		}
		return nil
	case JSON:
		return renderJSON(w, r)
	case LaTeX:
		return renderLaTeX(w, r)
	case HTML:
		return renderHTML(w, r)
	}
	return fmt.Errorf("unknown format %q", f)
}

// pct formats a proportion as a percentage with one decimal.
func pct(v float64) string {
	if isNaN(v) {
		return "NA"
	}
	return strconv.FormatFloat(100*v, 'f', 1, 64)
}

func num(v float64, d int) string {
	if isNaN(v) {
		return "NA"
	}
	if d < 0 { // p-values: three significant digits
		if v == 0 {
			return "< 1e-300" // underflowed double precision: never "0"
		}
		if v < 1e-3 {
			return strconv.FormatFloat(v, 'e', 2, 64)
		}
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	out := strconv.FormatFloat(v, 'f', d, 64)
	if strings.HasPrefix(out, "-") && strings.Trim(out, "-0.") == "" {
		return out[1:] // a value that rounds to zero prints "0.000", never "-0.000"
	}
	return out
}

// Plain renders a cell as text.
func (c Cell) Plain() string {
	switch c.Kind {
	case Text:
		return c.Text
	case Int:
		return strconv.FormatInt(int64(c.Value), 10)
	case Num:
		s := num(c.Value, c.Digits)
		if c.HasCI {
			s += fmt.Sprintf(" [%s, %s]", num(c.Lo, c.Digits), num(c.Hi, c.Digits))
		}
		return s
	case Prop:
		s := pct(c.Value)
		if c.HasCI {
			s += fmt.Sprintf(" [%s, %s]", pct(c.Lo), pct(c.Hi))
		}
		if c.N > 0 || c.HasCI {
			s += fmt.Sprintf(" (n=%d)", c.N)
		}
		return s
	}
	return "–"
}

func mdEscape(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

// legend says how a proportion cell reads; a report says it only where it
// has one (a comparison's or Missci's figures are plain numbers).
const legend = "Proportions are percentages with 95 % confidence intervals in brackets and the number of rows in parentheses."

func renderMarkdown(w io.Writer, r *Report) error {
	fmt.Fprintf(w, "# %s\n\n", mdEscape(r.Title))
	for _, m := range r.Meta {
		fmt.Fprintf(w, "- **%s**: %s\n", mdEscape(m[0]), mdEscape(m[1]))
	}
	if len(r.Meta) > 0 {
		fmt.Fprintln(w)
	}
	if r.HasProportions() {
		fmt.Fprint(w, legend+"\n\n")
	}
	for _, s := range r.Sections {
		fmt.Fprintf(w, "## %s\n\n", mdEscape(s.Title))
		if s.Intro != "" {
			fmt.Fprintf(w, "%s\n\n", s.Intro)
		}
		for _, t := range s.Tables {
			fmt.Fprintf(w, "### %s\n\n", mdEscape(t.Title))
			if t.Note != "" {
				fmt.Fprintf(w, "%s\n\n", t.Note)
			}
			if t.Matrix != nil {
				markdownMatrix(w, t)
				continue
			}
			var hdr, sep []string
			for _, c := range t.Columns {
				hdr = append(hdr, mdEscape(c.Label))
				sep = append(sep, "---")
			}
			fmt.Fprintf(w, "| %s |\n| %s |\n", strings.Join(hdr, " | "), strings.Join(sep, " | "))
			for _, row := range t.Rows {
				var cells []string
				for _, c := range row {
					cells = append(cells, mdEscape(c.Plain()))
				}
				fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
			}
			fmt.Fprintln(w)
		}
	}
	return nil
}

// markdownMatrix writes a long table as its matrix: one line per row key,
// one column per column key, and n (the rows' count) last when every cell
// of a line has the same.
func markdownMatrix(w io.Writer, t *Table) {
	m := t.Matrix
	var rows, cols []string
	cell := map[[2]string]Cell{}
	for _, r := range t.Rows {
		rk, ck := r[m.Row].Plain(), r[m.Col].Plain()
		if !slices.Contains(rows, rk) {
			rows = append(rows, rk)
		}
		if !slices.Contains(cols, ck) {
			cols = append(cols, ck)
		}
		cell[[2]string{rk, ck}] = r[m.Value]
	}
	hdr := []string{mdEscape(t.Columns[m.Row].Label + " \\ " + t.Columns[m.Col].Label)}
	sep := []string{"---"}
	for _, c := range cols {
		hdr, sep = append(hdr, mdEscape(c)), append(sep, "---")
	}
	fmt.Fprintf(w, "| %s | n |\n| %s | --- |\n", strings.Join(hdr, " | "), strings.Join(sep, " | "))
	for _, r := range rows {
		line := []string{mdEscape(r)}
		n, same := -1, true
		for _, c := range cols {
			v, ok := cell[[2]string{r, c}]
			if !ok {
				line = append(line, "")
				continue
			}
			txt := v.Plain()
			if i := strings.Index(txt, " (n="); i > 0 {
				txt = txt[:i]
			}
			line = append(line, mdEscape(txt))
			if n >= 0 && v.N != n {
				same = false
			}
			n = v.N
		}
		nTxt := ""
		if same && n >= 0 {
			nTxt = strconv.Itoa(n)
		}
		fmt.Fprintf(w, "| %s | %s |\n", strings.Join(line, " | "), nTxt)
	}
	fmt.Fprintln(w)
}

// RenderCSVTable writes one table as CSV. A proportion or number with an
// interval becomes four columns: value, lo, hi and n (proportions as
// fractions, not percentages, so nothing is lost).
func RenderCSVTable(w io.Writer, t *Table) error {
	cw := NewCSVWriter(w) // no cell is run as a formula (csvsafe.go)
	var hdr []string
	wide := make([]bool, len(t.Columns))
	for j, c := range t.Columns {
		for _, row := range t.Rows {
			if j < len(row) && (row[j].Kind == Prop || row[j].HasCI) {
				wide[j] = true
				break
			}
		}
		if wide[j] {
			hdr = append(hdr, c.Key, c.Key+"_lo", c.Key+"_hi", c.Key+"_n")
		} else {
			hdr = append(hdr, c.Key)
		}
	}
	cw.Write(hdr)
	for _, row := range t.Rows {
		var rec []string
		for j, c := range row {
			if j < len(wide) && wide[j] {
				lo, hi := "", ""
				if c.HasCI {
					lo, hi = csvNum(c.Lo), csvNum(c.Hi)
				}
				n := ""
				if c.Kind == Prop {
					n = strconv.Itoa(c.N)
				}
				v := csvNum(c.Value)
				if c.Kind == Text || c.Kind == Empty {
					v = c.Plain()
				}
				rec = append(rec, v, lo, hi, n)
				continue
			}
			switch c.Kind {
			case Num, Int:
				rec = append(rec, csvNum(c.Value))
			case Empty:
				rec = append(rec, "")
			default:
				rec = append(rec, c.Plain())
			}
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

func csvNum(v float64) string {
	if isNaN(v) {
		return "NA"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// jsonCell is the JSON contract of a cell: NaN becomes null.
type jsonCell struct {
	Kind  Kind     `json:"kind"`
	Text  string   `json:"text,omitempty"`
	Value *float64 `json:"value,omitempty"`
	Lo    *float64 `json:"lo,omitempty"`
	Hi    *float64 `json:"hi,omitempty"`
	N     *int     `json:"n,omitempty"`
	Note  string   `json:"note,omitempty"`
}

func fptr(v float64) *float64 {
	if isNaN(v) {
		return nil
	}
	return &v
}

func toJSONCell(c Cell) jsonCell {
	j := jsonCell{Kind: c.Kind, Text: c.Text, Note: c.Note}
	switch c.Kind {
	case Int, Num, Prop:
		j.Value = fptr(c.Value)
		if c.HasCI {
			j.Lo, j.Hi = fptr(c.Lo), fptr(c.Hi)
		}
		if c.Kind == Prop {
			n := c.N
			j.N = &n
		}
	}
	return j
}

func renderJSON(w io.Writer, r *Report) error {
	type jt struct {
		ID      string       `json:"id"`
		Title   string       `json:"title"`
		Note    string       `json:"note,omitempty"`
		Columns []Column     `json:"columns"`
		Rows    [][]jsonCell `json:"rows"`
	}
	type js struct {
		Title  string `json:"title"`
		Intro  string `json:"intro,omitempty"`
		Tables []jt   `json:"tables"`
	}
	out := struct {
		Schema    string            `json:"schema"`
		Title     string            `json:"title"`
		Benchmark string            `json:"benchmark"`
		Meta      map[string]string `json:"meta"`
		Sections  []js              `json:"sections"`
	}{Schema: "fallacylab-report/1", Title: r.Title, Benchmark: r.Benchmark, Meta: map[string]string{}}
	for _, m := range r.Meta {
		out.Meta[m[0]] = m[1]
	}
	// Lists are never null, so that `for t in s["tables"]` always works.
	out.Sections = []js{}
	for _, s := range r.Sections {
		sec := js{Title: s.Title, Intro: s.Intro, Tables: []jt{}}
		for _, t := range s.Tables {
			tt := jt{ID: t.ID, Title: t.Title, Note: t.Note, Columns: t.Columns, Rows: [][]jsonCell{}}
			if tt.Columns == nil {
				tt.Columns = []Column{}
			}
			for _, row := range t.Rows {
				cells := []jsonCell{}
				for _, c := range row {
					cells = append(cells, toJSONCell(c))
				}
				tt.Rows = append(tt.Rows, cells)
			}
			sec.Tables = append(sec.Tables, tt)
		}
		out.Sections = append(out.Sections, sec)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(out)
}

func texCell(c Cell) string {
	switch c.Kind {
	case Prop:
		s := pct(c.Value)
		if c.HasCI {
			s += fmt.Sprintf(" {\\scriptsize[%s, %s]}", pct(c.Lo), pct(c.Hi))
		}
		return s
	case Num:
		s := num(c.Value, c.Digits)
		if c.HasCI {
			s += fmt.Sprintf(" {\\scriptsize[%s, %s]}", num(c.Lo, c.Digits), num(c.Hi, c.Digits))
		}
		return s
	}
	return texText(c.Plain())
}

func renderLaTeX(w io.Writer, r *Report) error {
	fmt.Fprintf(w, "%% %s -- generated by fallacylab; needs \\usepackage{booktabs}\n", texComment(r.Title))
	for _, t := range r.Tables() {
		fmt.Fprintf(w, "\\begin{table}[ht]\n\\centering\n\\caption{%s}\n\\label{tab:%s}\n", texText(t.Title), t.ID)
		fmt.Fprintf(w, "\\begin{tabular}{l%s}\n\\toprule\n", strings.Repeat("r", max(0, len(t.Columns)-1)))
		var hdr []string
		for _, c := range t.Columns {
			hdr = append(hdr, texText(c.Label))
		}
		fmt.Fprintf(w, "%s \\\\\n\\midrule\n", strings.Join(hdr, " & "))
		for _, row := range t.Rows {
			var cells []string
			for _, c := range row {
				cells = append(cells, texCell(c))
			}
			fmt.Fprintf(w, "%s \\\\\n", strings.Join(cells, " & "))
		}
		fmt.Fprint(w, "\\bottomrule\n\\end{tabular}\n")
		if t.Note != "" {
			fmt.Fprintf(w, "\\par\\footnotesize %s\n", texText(t.Note))
		}
		fmt.Fprint(w, "\\end{table}\n\n")
	}
	return nil
}

// CSS is the style sheet of HTML reports and the viewer. Nothing in a page
// is styled inline (the viewer's Content-Security-Policy allows styles from
// its style sheet only): a proportion's bar takes its width from one of the
// classes bw0…bw100 (whole per cents: a 3-pixel bar in a cell).
var CSS = baseCSS + barWidths()

// barWidths are the classes of the bars' widths.
func barWidths() string {
	var b strings.Builder
	for i := 0; i <= 100; i++ {
		fmt.Fprintf(&b, ".bw%d{width:%d%%}", i, i)
	}
	return b.String() + "\n"
}

const baseCSS = `body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:1200px;padding:0 1rem;color:#1d2330}
h1{font-size:1.6rem}h2{border-bottom:1px solid #d8dce3;padding-bottom:.2rem;margin-top:2.2rem}h3{font-size:1.05rem;margin-top:1.6rem}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-variant-numeric:tabular-nums}
th,td{padding:.25rem .6rem;border-bottom:1px solid #e6e9ef;text-align:left;vertical-align:top}
td.n{text-align:right;white-space:nowrap;position:relative}
td.n span.b{position:absolute;left:0;bottom:0;height:3px;background:#7aa5e6}
th{background:#f3f5f8;font-weight:600}.note{color:#5b6474;font-size:.9em}dl{display:grid;grid-template-columns:max-content auto;gap:.2rem 1rem}
dt{font-weight:600}svg.chart{display:block;margin:.6rem 0;font-size:11px}svg .ct{font-weight:600;font-size:12px}
svg .bl{text-anchor:end}svg .bv,svg .lg{text-anchor:start}svg .cv{text-anchor:middle}svg .cv.hi{fill:#fff}svg .bar{fill:#4a7fd1}svg .whisker{stroke:#1d2330;fill:none}
svg .axis{stroke:#9aa3b2}svg .grid{stroke:#e6e9ef}svg .tk,svg .hl{text-anchor:middle}svg .at{font-style:italic;fill:#5b6474}svg .tk{fill:#5b6474}
svg text.at:not(.bl){text-anchor:start}svg a .cell rect:hover{stroke:#1d2330;stroke-width:2}
div.pair{display:flex;flex-wrap:wrap;gap:0 2rem;align-items:flex-start}div.pair>div.tbl{flex:1 1 26rem;min-width:0}div.pair>div.charts{min-width:0;max-width:100%}details.long>summary{cursor:pointer;color:#5b6474}
.resp{white-space:pre-wrap;max-width:38rem}.pager a,.pager span{margin-right:.6rem}form.filters{margin:.6rem 0}
div.tbl{overflow-x:auto;max-width:100%}div.tbl>table th:first-child,div.tbl>table td:first-child{position:sticky;left:0;z-index:1;background:#fff}
div.tbl>table th:first-child{background:#f3f5f8}div.tbl>table td:first-child{min-width:12rem}nav.toc{border:1px solid #e6e9ef;border-radius:4px;padding:.3rem 1rem;margin:1rem 0}
nav.toc ol{margin:.2rem 0;padding-left:1.4rem}nav.toc>ol>li{margin:.15rem 0}nav.toc ol ol{font-size:.92em;color:#5b6474}
/* dark mode: last, so it wins */@media (prefers-color-scheme:dark){body{background:#15181e;color:#dfe3ea}th{background:#222733}th,td{border-bottom-color:#2c3240}
a{color:#8cb4ff}.note,svg .at,svg .tk{color:#9aa3b2;fill:#9aa3b2}h2{border-bottom-color:#2c3240}svg text{fill:#dfe3ea}svg .cv{fill:#15181e}svg .cv.hi{fill:#fff}
svg .grid{stroke:#2c3240}svg .whisker{stroke:#dfe3ea}svg .bar{fill:#5b8fe0}div.tbl>table td:first-child{background:#15181e}div.tbl>table th:first-child{background:#222733}
nav.toc{border-color:#2c3240}td.n span.b{background:#3d68a8}}`

var htmlFuncs = template.FuncMap{
	"plain": func(c Cell) string { return c.Plain() },
	"isNum": func(c Cell) bool { return c.Kind != Text },
	"bar": func(c Cell) string {
		if c.Kind != Prop || isNaN(c.Value) {
			return ""
		}
		return strconv.Itoa(int(math.Round(math.Max(0, math.Min(100, 100*c.Value)))))
	},
}

// htmlSections lays out the sections: a table of contents, then each table
// with its charts beside it (they wrap below on a narrow window). A table
// whose every column heatmaps draw is shown as those matrices, its long
// form folded away.
var htmlSections = template.Must(template.New("sections").Funcs(htmlFuncs).Parse(`{{if gt (len .) 1}}<nav class="toc"><strong>Contents</strong><ol>{{range $i, $s := .}}<li><a href="#section-{{$i}}">{{$s.Title}}</a>{{if $s.Tables}}<ol>{{range $s.Tables}}<li><a href="#{{.T.ID}}">{{.T.Title}}</a></li>{{end}}</ol>{{end}}</li>{{end}}</ol></nav>
{{end}}{{range $i, $s := .}}<section id="section-{{$i}}"><h2>{{.Title}}</h2>{{if .Intro}}<p>{{.Intro}}</p>{{end}}
{{range .Tables}}<h3 id="{{.T.ID}}">{{.T.Title}}</h3>{{if .T.Note}}<p class="note">{{.T.Note}}</p>{{end}}{{if .Heat}}{{.Charts}}
<details class="long"><summary>the table ({{len .T.Rows}} rows)</summary>{{template "table" .T}}</details>{{else if .Charts}}<div class="pair"><div class="charts">{{.Charts}}</div>{{template "table" .T}}</div>{{else}}{{template "table" .T}}{{end}}
{{end}}</section>
{{end}}{{define "table"}}<div class="tbl"><table><thead><tr>{{range .Columns}}<th>{{.Label}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr>{{range .}}{{if isNum .}}<td class="n">{{plain .}}{{with bar .}}<span class="b bw{{.}}"></span>{{end}}</td>{{else}}<td>{{plain .}}</td>{{end}}{{end}}</tr>
{{end}}</tbody></table></div>{{end}}`))

// sectionView and tableView are what htmlSections lays out.
type sectionView struct {
	Title, Intro string
	Tables       []tableView
}

type tableView struct {
	T      *Table
	Charts template.HTML
	Heat   bool // heatmaps draw every column: the matrices are the table
}

// LinksFunc gives the links of one chart of a table (nil: none).
type LinksFunc func(t *Table, c Chart) LinkFunc

// SectionsHTML renders a report's sections as an HTML fragment — contents,
// tables, each table's charts beside it, with links from links (nil for
// none) — for a page of its own; the HTML format wraps it in a document.
// Every text is escaped.
func SectionsHTML(r *Report, links LinksFunc) (template.HTML, error) {
	var secs []sectionView
	for _, s := range r.Sections {
		sv := sectionView{Title: s.Title, Intro: s.Intro}
		for _, t := range s.Tables {
			tv := tableView{T: t}
			var b strings.Builder
			drawn := map[int]bool{} // columns a heatmap shows, or names
			for _, c := range t.Charts {
				var link LinkFunc
				if links != nil {
					link = links(t, c)
				}
				if svg := c.SVG(t, link); svg != "" { // a wide chart scrolls in its box, as a wide table does
					b.WriteString(`<div class="tbl">` + svg + `</div>`)
				}
				if c.Kind == "heatmap" {
					drawn[c.Value] = true
					for _, l := range c.Label {
						drawn[l] = true
					}
				}
			}
			tv.Heat = len(drawn) > 0
			for j := range t.Columns {
				tv.Heat = tv.Heat && drawn[j]
			}
			// Safe: the SVG is built by this package and escapes every text it holds.
			tv.Charts = template.HTML(b.String())
			sv.Tables = append(sv.Tables, tv)
		}
		secs = append(secs, sv)
	}
	var b strings.Builder
	if err := htmlSections.Execute(&b, secs); err != nil {
		return "", fmt.Errorf("report sections: %w", err)
	}
	// Safe: html/template escaped every text of the fragment.
	return template.HTML(b.String()), nil
}

// HeadlineHTML renders the report's headline table (Report.Headline)
// alone, without its charts, under its title with a link to its place in
// the sections, and the report's Lead above it: the first screen of a
// page. "" when the report names no headline table or has none by that ID.
func HeadlineHTML(r *Report) (template.HTML, error) {
	if r == nil || r.Headline == "" {
		return "", nil
	}
	t := r.Table(r.Headline)
	if t == nil {
		return "", nil
	}
	var b strings.Builder
	if err := htmlHeadline.Execute(&b, map[string]any{"Lead": r.Lead, "T": t}); err != nil {
		return "", fmt.Errorf("report headline: %w", err)
	}
	// Safe: html/template escaped every text of the fragment.
	return template.HTML(b.String()), nil
}

var htmlHeadline = template.Must(template.Must(htmlSections.Clone()).New("headline").Parse(`<section class="headline"><h2>{{.T.Title}} <a class="note" href="#{{.T.ID}}">in the report</a></h2>{{with .Lead}}<p>{{.}}</p>{{end}}{{template "table" .T}}</section>
`))

var htmlPage = template.Must(template.New("report").Funcs(template.FuncMap{
	"css":      func() template.CSS { return template.CSS(CSS) },
	"legend":   func() string { return legend },
	"sections": func(r *Report) (template.HTML, error) { return SectionsHTML(r, nil) },
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>{{css}}</style></head><body>
<h1>{{.Title}}</h1>
<dl>{{range .Meta}}<dt>{{index . 0}}</dt><dd>{{index . 1}}</dd>{{end}}</dl>
{{if .HasProportions}}<p class="note">{{legend}}</p>
{{end}}{{sections .}}</body></html>
`))

func renderHTML(w io.Writer, r *Report) error {
	return htmlPage.Execute(w, r)
}
