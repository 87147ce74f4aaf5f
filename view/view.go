// Package view is the contract between the viewer and a Task's own pages:
// a Task that shows its runs with pages of its own (bench.Views) loads a
// stored run into a Run — its run page's template and report, its pages
// under /runs/ID/, its comparison with another run of its benchmark — and
// the viewer serves them with its layout, its escaping and its access
// rules. The list helpers every page shares (sorting, pages, CSV and JSONL
// export) live here too, so a Task's list reads like the viewer's own.
package view

import (
	"context"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"

	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store"
)

// Run is a stored run as a Task's pages show it, loaded once (the viewer
// keeps it until the run's records change).
type Run struct {
	// Template is the run page's template (the Task's own, defined in its
	// Templates; "" : the generic run page). It is given Run, Report,
	// About, Studies and Sections, as the generic one is.
	Template string
	// Report is the run page's report (nil: none, or Analyze makes it).
	Report *report.Report
	// Analyze makes the run page's report apart, once, on first use after
	// the run is loaded, so that the run's lists do not wait for an
	// analysis (nil: Report is the report).
	Analyze func() (*report.Report, error)
	// Variant is the run page's report for a query that asks for another
	// cut of it (Missci's ?k=3), and ok false when the query asks for
	// none (nil: the run page has one report).
	Variant func(q url.Values) (rep *report.Report, ok bool, err error)
	// Pages are the run's pages under /runs/ID/.
	Pages []Page
	// Links links the report's chart elements to the pages of the records
	// behind them (nil: none).
	Links report.LinksFunc
	// Compare compares the run (a) with another of its benchmark (b),
	// item by item (nil: its runs do not compare).
	Compare func(b *Run) ([]PairRow, []PairSummary, error)
	// State is what the Task loaded, for Compare to read the other run's.
	State any
}

// Page is one of a run's pages: /runs/ID/<Path>, where Path may name
// parts ("arguments/{arg}", read with r.PathValue).
type Page struct {
	Path  string
	Serve func(k Kit, w http.ResponseWriter, r *http.Request)
	// Title, for a page without parts, is what the viewer's own run page
	// links it as ("every argument with its passages"; "" : no link).
	Title string
}

// Preview is a page that may answer before its run is loaded — a large
// run's first page straight from the store while the rest loads: Serve
// answers false (writing nothing) when the request needs the loaded run.
type Preview struct {
	Path  string
	Serve func(k Kit, w http.ResponseWriter, r *http.Request) bool
}

// Kit is what the viewer gives a page while it serves one request.
type Kit interface {
	// Run is the run the page shows.
	Run() store.Run
	// Render writes the template name (the viewer's or the Task's) with
	// data, escaped.
	Render(w http.ResponseWriter, name string, data map[string]any)
	// Fail answers with an error page.
	Fail(w http.ResponseWriter, code int, err error)
	// Call is a stored call's prompt (system and user turns, as sent) and
	// its answer (ok false: the store has no such call).
	Call(ctx context.Context, key string) (prompt, answer string, ok bool, err error)
}

// PairRow is one item of a two-run comparison: what each run gave it.
type PairRow struct {
	ID, Text   string
	Link       [2]string // each run's page of the item ("" for none)
	Values     [2]string
	Gold       string
	Right      [2]bool
	HasGold    bool
	Different  bool
	DiffFields []string
}

// PairSummary is one line of a comparison's summary table.
type PairSummary struct {
	Label      string
	Both, Same int
	A, B       string // each run's own figure, where one is defined
}

// Share formats Same/Both.
func (p PairSummary) Share() string {
	if p.Both == 0 {
		return "–"
	}
	return strconv.FormatFloat(100*float64(p.Same)/float64(p.Both), 'f', 1, 64) + " %"
}

// Templates is the folder dir of an embedded file system, for a Task's
// Templates (bench.Views): a folder that is not there is a programming
// error, found by the first test that starts a viewer.
func Templates(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic("view: templates: " + err.Error())
	}
	return sub
}
