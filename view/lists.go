package view

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/fallacylab/fallacylab/report"
)

// SortKey is one sortable column of a list: its name in ?sort= and how two
// rows compare on it.
type SortKey[T any] struct {
	Name, Label string
	cmp         func(a, b T) int
}

// SortHead is a column header of a list: a link that sorts by it, the
// other way round when it is the current sort.
type SortHead struct {
	Label, Link string
	Current     bool
	Desc        bool
}

// SortRows sorts rows in place by ?sort= and ?desc=1 (stable: equal rows
// keep the run's order) and returns the headers to show.
func SortRows[T any](r *http.Request, rows []T, keys []SortKey[T]) []SortHead {
	q := r.URL.Query()
	by, desc := q.Get("sort"), q.Get("desc") == "1"
	var heads []SortHead
	for _, k := range keys {
		h := SortHead{Label: k.Label, Current: k.Name == by, Desc: desc}
		lq := r.URL.Query()
		lq.Set("sort", k.Name)
		lq.Del("page")
		lq.Del("desc")
		if h.Current && !desc {
			lq.Set("desc", "1")
		}
		h.Link = r.URL.Path + "?" + lq.Encode()
		heads = append(heads, h)
		if h.Current {
			slices.SortStableFunc(rows, func(a, b T) int {
				if desc {
					return k.cmp(b, a)
				}
				return k.cmp(a, b)
			})
		}
	}
	return heads
}

// By makes a sort key from a field.
func By[T any, V cmp.Ordered](name, label string, f func(T) V) SortKey[T] {
	return SortKey[T]{Name: name, Label: label, cmp: func(a, b T) int { return cmp.Compare(f(a), f(b)) }}
}

// PageSize is the number of rows per page.
const PageSize = 50

// Pager is the position of one page in a list, with links to every page
// near it and a form to jump to any.
type Pager struct {
	Page, Pages, Total, From, To int
	Prev, Next                   string
	Near                         []PageLink // first, last and the pages around this one; 0 = a gap
	Keep                         [][2]string
	Export                       map[string]string // format → link to every row of the list
}

// PageLink is a link to one page of a list (N 0: a gap).
type PageLink struct {
	N    int
	Link string
}

// Paginate is the page ?page= asks for of a list of total rows.
func Paginate(r *http.Request, total int) Pager {
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	pages := max(1, (total+PageSize-1)/PageSize)
	page = min(max(page, 1), pages)
	p := Pager{Page: page, Pages: pages, Total: total, From: (page - 1) * PageSize, To: min(total, page*PageSize)}
	link := func(n int) string {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(n))
		return r.URL.Path + "?" + q.Encode()
	}
	if page > 1 {
		p.Prev = link(page - 1)
	}
	if page < pages {
		p.Next = link(page + 1)
	}
	last := 0
	for n := 1; n <= pages; n++ {
		if n != 1 && n != pages && (n < page-2 || n > page+2) {
			continue
		}
		if last != 0 && n > last+1 {
			p.Near = append(p.Near, PageLink{}) // …
		}
		p.Near = append(p.Near, PageLink{N: n, Link: link(n)})
		last = n
	}
	// The jump form sends the list's filters along as hidden fields.
	q := r.URL.Query()
	keys := make([]string, 0, len(q))
	for k := range q {
		if k != "page" && k != "export" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range q[k] {
			p.Keep = append(p.Keep, [2]string{k, v})
		}
	}
	p.Export = map[string]string{}
	for _, f := range ExportFormats {
		eq := r.URL.Query()
		eq.Del("page")
		eq.Set("export", f)
		p.Export[f] = r.URL.Path + "?" + eq.Encode()
	}
	return p
}

// ExportFormats are the files every list exports: "csv", whose cells are
// the stored text byte for byte (for pandas, R, csvkit); "spreadsheet", the
// same CSV with every cell a spreadsheet would run as a formula guarded by
// a leading ' (report.CSVSafe: Excel and LibreOffice evaluate a cell that
// starts with = + - @ — "- a bullet" shows as #NAME? — so text that starts
// so is guarded, and plain numbers are not); and "jsonl", one object a row.
var ExportFormats = []string{"csv", "spreadsheet", "jsonl"}

// Export writes every filtered row of a list as CSV (the header, then
// one line per row) or JSONL (one object per row) when ?export= asks for
// it, and reports whether it did. The file is named after the run and list
// (the spreadsheet CSV as NAME.spreadsheet.csv).
func Export(w http.ResponseWriter, r *http.Request, name string, header []string, rows func(yield func(rec []string, obj any) bool)) bool {
	format := r.URL.Query().Get("export")
	if format == "" {
		return false
	}
	file := name + "." + format
	var cw interface {
		Write([]string) error
		Flush()
	}
	switch format {
	case "csv":
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		cw = csv.NewWriter(w) // the stored text, exactly
	case "spreadsheet":
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		file = name + ".spreadsheet.csv"
		cw = report.NewCSVWriter(w) // no cell is run as a formula
	case "jsonl":
		w.Header().Set("Content-Type", "application/x-ndjson; charset=utf-8")
	default:
		http.Error(w, fmt.Sprintf("export %q: use %s", format, strings.Join(ExportFormats, ", ")), http.StatusBadRequest)
		return true
	}
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s"`, url.PathEscape(file)))
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if cw != nil {
		cw.Write(header)
	}
	rows(func(rec []string, obj any) bool {
		if cw != nil {
			return cw.Write(rec) == nil
		}
		return enc.Encode(obj) == nil
	})
	if cw != nil {
		cw.Flush()
	}
	return true
}

// JoinNonEmpty joins the non-empty parts.
func JoinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}
