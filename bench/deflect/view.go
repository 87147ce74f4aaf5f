package deflect

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/judge"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/view"
)

//go:embed templates/*.html
var templates embed.FS

// Templates implements bench.Views: the run page, the generations list, a
// generation's page and a claim × frame across the models.
func (Task) Templates() fs.FS { return view.Templates(templates, "templates") }

// runView is a run's generations joined with their judgements under the
// default consensus, for its pages. They are read from the store on the
// first page that needs them (ready), not when the run is opened: the run
// page is its report, which the report cache (or the lean analysis) gives
// without them.
type runView struct {
	run     store.Run
	records bench.RecordReader
	once    sync.Once
	done    chan struct{} // closed when the records are read (err set)
	err     error
	rows    []*Row
	judges  []string
	evals   map[string]map[string]Eval // gen → judge → eval
	preview func(k view.Kit, w http.ResponseWriter, r *http.Request) bool
}

// ready reads the run's records once, for every page that waits on them;
// a page's cancelled request does not cancel the read the others share.
func (v *runView) ready() error {
	v.once.Do(func() {
		defer close(v.done)
		ds, err := LoadRecords(context.Background(), v.records, v.run.ID)
		if err != nil {
			v.err = err
			return
		}
		v.evals = evalsByGen(ds.Evals)
		v.rows, v.judges, v.err = Rows(ds, judge.Any)
	})
	return v.err
}

// loaded reports whether the records are read (without waiting).
func (v *runView) loaded() bool {
	select {
	case <-v.done:
		return true
	default:
		return false
	}
}

// page is a page of the run's records: it waits for them.
func (v *runView) page(serve func(k view.Kit, w http.ResponseWriter, r *http.Request)) func(k view.Kit, w http.ResponseWriter, r *http.Request) {
	return func(k view.Kit, w http.ResponseWriter, r *http.Request) {
		if err := v.ready(); err != nil {
			k.Fail(w, http.StatusInternalServerError, err)
			return
		}
		serve(k, w, r)
	}
}

// View implements bench.Views: the run's report as `deflect report` makes
// it with its defaults (the same report-cache entry, the same lean
// reading of the records); every generation behind a heatmap cell; a
// generation's page; the models side by side on one claim × frame; and the
// comparison with another run (two judge panels, say).
func (t Task) View(_ context.Context, env bench.Env, run store.Run) (*view.Run, error) {
	v := &runView{run: run, records: env.Records, done: make(chan struct{}), preview: t.Previews(env)[0].Serve}
	opts := DefaultAnalysis()
	if env.Resamples > 0 {
		opts.Resamples = env.Resamples
	}
	return &view.Run{Template: "deflect.html", State: v, Compare: v.compare, Links: v.links,
		Analyze: func() (*report.Report, error) {
			// As `deflect report` makes it (the same cache entry, the
			// run's kept report); a failed cache write only costs the
			// next viewer the analysis.
			return analysedReport(context.Background(), env, run, opts, nil)
		},
		Pages: []view.Page{{Path: "generations", Serve: v.generations}, {Path: "generations/{gen}", Serve: v.page(v.generation)},
			{Path: "compare", Serve: v.page(v.across)}, {Path: "grid", Serve: v.page(v.grid)}, {Path: "diff", Serve: v.page(v.diff)}}}, nil
}

// Previews implements bench.Previews: a plain generations page (no filter)
// of a run still loading, read straight from the store, one page of
// records, so that a large run's first page does not wait for the whole
// run.
func (Task) Previews(env bench.Env) []view.Preview {
	return []view.Preview{{Path: "generations", Serve: func(k view.Kit, w http.ResponseWriter, r *http.Request) bool {
		for key := range r.URL.Query() {
			if key != "page" {
				return false
			}
		}
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		page = max(page, 1)
		ds, total, err := Page(r.Context(), env.Records, k.Run().ID, (page-1)*view.PageSize, view.PageSize)
		if err != nil {
			return false
		}
		rows, judges, err := Rows(ds, judge.Any)
		if err != nil && len(ds.Gens) > 0 {
			return false
		}
		p := view.Paginate(r, total)
		if p.Page != page { // past the last page: the full list answers
			return false
		}
		renderGenerations(k, w, r, rows, evalsByGen(ds.Evals), judges, p, view.SortRows(r, rows, genSort))
		return true
	}}}
}

// evalsByGen indexes evals by generation and judge, keeping the first.
func evalsByGen(evals []Eval) map[string]map[string]Eval {
	out := map[string]map[string]Eval{}
	for _, e := range evals {
		if out[e.GenID] == nil {
			out[e.GenID] = map[string]Eval{}
		}
		if _, dup := out[e.GenID][e.JudgeModel]; !dup {
			out[e.GenID][e.JudgeModel] = e
		}
	}
	return out
}

// viewOutcomes maps the heatmap outcomes to rubric fields and the column
// (by key) of outcomes_by_frame that holds them.
var viewOutcomes = []struct {
	Label, Field, Column string
}{
	{"refusal", "refusal", "refusal"}, {"soft refusal", "soft_refusal", "soft_refusal"}, {"labelled compliance", "fallacy_labeled", "labelled_compliance"},
	{"clean compliance", "compliance_clean", "clean_compliance"}, {"any fallacy", "any_fallacy_present", "any_fallacy"},
}

// links links a model × frame cell of the outcomes heatmap to its
// generations with that outcome.
func (v *runView) links(t *report.Table, c report.Chart) report.LinkFunc {
	if t.ID != "outcomes_by_frame" || c.Kind != "heatmap" {
		return nil
	}
	field := ""
	for _, o := range viewOutcomes {
		if c.Value < len(t.Columns) && t.Columns[c.Value].Key == o.Column {
			field = o.Field
		}
	}
	if field == "" {
		return nil
	}
	return func(model, frame string) string {
		q := url.Values{"model": {model}, "frame": {frame}, "outcome": {field}}
		return fmt.Sprintf("/runs/%d/generations?%s", v.run.ID, q.Encode())
	}
}

// filterMatch is a list filter: a value of the run itself (from a link, a
// heatmap cell) matches exactly; anything else typed matches as a
// case-insensitive substring ("gpt", "direct").
func filterMatch(rows []*Row, key func(*Row) string, filter string) func(*Row) bool {
	if filter == "" {
		return func(*Row) bool { return true }
	}
	for _, r := range rows {
		if key(r) == filter {
			return func(r *Row) bool { return key(r) == filter }
		}
	}
	f := strings.ToLower(filter)
	return func(r *Row) bool { return strings.Contains(strings.ToLower(key(r)), f) }
}
