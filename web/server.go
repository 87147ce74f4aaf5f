// Package web is fallacylab's local results viewer: a list of the runs in a
// store and, per benchmark, the report with charts, the generations behind
// every heatmap cell with both judges' labels side by side, judge
// disagreements, full-text search, and the pages each Task declares (bench.Views). Model
// output is untrusted: every page escapes it (html/template, no
// template.HTML on model text) and a Content-Security-Policy forbids scripts.
package web

import (
	"context"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fallacylab/fallacylab/study"
	"github.com/fallacylab/fallacylab/view"

	"github.com/spf13/pflag"

	"github.com/fallacylab/fallacylab/backend"
	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store"
)

//go:embed templates/*.html
var templatesFS embed.FS

// PageSize is the number of rows per page.
const PageSize = view.PageSize

// CSP is the Content-Security-Policy of every response: no scripts at all,
// styles only from the viewer itself.
const CSP = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// Server serves the viewer for one store.
type Server struct {
	st    backend.Store
	tmpl  *template.Template
	mu    sync.Mutex
	cache map[int64]*runData
	// Resamples for DeflectBench reports computed by the viewer.
	Resamples int
	// Refresh is how often, at most, a run in progress is loaded and
	// analysed again as it moves on (default 3 s): watching a live run
	// costs one analysis per Refresh, not one per request.
	Refresh time.Duration

	command func(args string) string // SetCommand's (nil: "fallacylab " + args)

	hold chan struct{} // tests: loads wait for this to close
	// Annotators' drafts (answers given, not saved): see keepDraft.
	draftsMu sync.Mutex
	drafts   map[draftKey]study.Annotation
	mounts   []mount // other applications under the viewer (Mount)
}

// runData is a run loaded once and kept in memory. It is loaded in the
// background; ready closes when it is. The DeflectBench report is
// analysed apart (analyze), once, after the load: pages that list records
// do not wait for it.
type runData struct {
	stamp    string
	status   string // the run's status when the load began
	bench    string
	loadedAt time.Time
	ready    chan struct{}
	err      error
	run      store.Run
	rep      *report.Report
	task     *view.Run // a Task's own pages (bench.Views)

	analyze func() (*report.Report, error) // nil: rep is set by the load
	repOnce sync.Once
	repErr  error
}

// report is the run's report, analysed on first use.
func (d *runData) report() (*report.Report, error) {
	d.repOnce.Do(func() {
		if d.analyze != nil {
			d.rep, d.repErr = d.analyze()
		}
	})
	return d.rep, d.repErr
}

// isReady reports whether the load has finished.
func (d *runData) isReady() bool {
	select {
	case <-d.ready:
		return true
	default:
		return false
	}
}

// New builds a viewer over a store.
func New(st backend.Store) (*Server, error) {
	t, err := template.New("").Funcs(funcs).ParseFS(templatesFS, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("viewer templates: %w", err)
	}
	if err := parseTaskTemplates(t); err != nil {
		return nil, err
	}
	return &Server{st: st, tmpl: t, cache: map[int64]*runData{}, Resamples: 1000, Refresh: 3 * time.Second}, nil
}

// SetCommand makes the command lines the pages suggest as cmd writes them
// (bench.Env.Command): the CLI's viewer of a store chosen by --db names it,
// so that a command copied from a page reads this store, not
// ./fallacylab.db. Call it before serving.
func (s *Server) SetCommand(cmd func(args string) string) {
	s.command = cmd
	s.tmpl.Funcs(template.FuncMap{"fl": cmd})
}

// cmd is a command line a page suggests (SetCommand).
func (s *Server) cmd(args string) string {
	if s.command == nil {
		return "fallacylab " + args
	}
	return s.command(args)
}

// Handler returns the viewer's routes for loopback use only (see
// HandlerWith).
func (s *Server) Handler() http.Handler { return s.HandlerWith(Access{}) }

// HandlerWith returns the viewer's routes behind the access rules: requests
// must name a loopback host (or one of a.Hosts), and with a.Token set carry
// the token.
func (s *Server) HandlerWith(a Access) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.index)
	mux.HandleFunc("GET /runs/{id}", s.run)
	mux.HandleFunc("GET /runs/{id}/{page...}", s.taskPage) // a Task's own pages (bench.Views)
	mux.HandleFunc("GET /runs/{id}/records", s.records)
	mux.HandleFunc("GET /runs/{id}/records/{key}", s.record)
	mux.HandleFunc("GET /runs/{id}/calls", s.runCalls)
	mux.HandleFunc("GET /calls/{key}", s.call)
	mux.HandleFunc("GET /compare", s.compare)
	mux.HandleFunc("GET /studies", s.studies)
	mux.HandleFunc("GET /studies/{sid}", s.studyReport)
	mux.HandleFunc("GET /studies/{sid}/adjudicate", s.adjudicate)
	mux.HandleFunc("POST /studies/{sid}/adjudicate", s.saveAdjudication)
	mux.HandleFunc("GET /annotate/login/{token}", s.signIn)
	mux.HandleFunc("GET /annotate/join/{token}", s.join)
	mux.HandleFunc("GET /annotate", s.resume)
	mux.HandleFunc("GET /annotate/codebook", s.codebook)
	mux.HandleFunc("GET /annotate/practice/{n}", s.practice)
	mux.HandleFunc("POST /annotate/practice/{n}", s.practice)
	mux.HandleFunc("GET /annotate/{n}", s.annotate)
	mux.HandleFunc("POST /annotate/{n}", s.save)
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent) // no icon, and no 404 in the browser's console
	})
	mux.HandleFunc("GET /static/studio.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Write([]byte(studioJS))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { // every other path: the viewer's own 404, in its theme
		s.fail(w, http.StatusNotFound, fmt.Errorf("no page %s in this viewer", r.URL.Path))
	})
	mux.HandleFunc("GET /static/app.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		w.Write([]byte(report.CSS + viewerCSS))
	})
	for _, m := range s.mounts {
		mux.Handle(m.prefix, m.handler())
	}
	return secure(a.guard(mux))
}

func secure(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", CSP)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		w.Header().Set("X-Frame-Options", "DENY")
		h.ServeHTTP(w, r)
	})
}

func (s *Server) render(w http.ResponseWriter, name string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := s.tmpl.ExecuteTemplate(w, name, data); err != nil {
		http.Error(w, "render: "+err.Error(), http.StatusInternalServerError)
	}
}

func (s *Server) fail(w http.ResponseWriter, status int, err error) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	s.tmpl.ExecuteTemplate(w, "error.html", map[string]any{"Status": status, "Err": err.Error()})
}

// load returns a run's data once it is loaded (see entry).
func (s *Server) load(ctx context.Context, id int64) (*runData, error) {
	d, err := s.entry(ctx, id)
	if err != nil {
		return nil, err
	}
	select {
	case <-d.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return d, d.err
}

// entry returns a run's data, loaded or loading: the load starts on first
// use and again when the run has moved on (new status, calls or records) —
// for a run still running, at most once per Refresh — so a run in progress
// can be watched. Once loaded, the report is analysed in the background.
func (s *Server) entry(ctx context.Context, id int64) (*runData, error) {
	stamp, r, err := s.stamp(ctx, id)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.cache[id]
	if d != nil && d.stamp != stamp && !s.stillFresh(d, r.Status) {
		d = nil
	}
	if d == nil {
		d = &runData{stamp: stamp, status: r.Status, bench: r.Benchmark, ready: make(chan struct{})}
		s.cache[id] = d
		go func() {
			if s.hold != nil {
				<-s.hold
			}
			d.err = s.fill(context.Background(), id, d)
			d.loadedAt = time.Now()
			close(d.ready)
			if d.err == nil {
				d.report() // ready when the run page is asked for
			}
		}()
	}
	return d, nil
}

// stillFresh reports whether d, loaded for a running run, may still be
// shown although the run has moved on: both then and now running, and
// loading (or loaded) less than Refresh ago.
func (s *Server) stillFresh(d *runData, status string) bool {
	if d.status != store.RunRunning || status != store.RunRunning {
		return false
	}
	if !d.isReady() {
		return true // the load under way is the newest there is
	}
	return time.Since(d.loadedAt) < s.Refresh
}

// stamp summarises what makes a run's loaded data stale.
func (s *Server) stamp(ctx context.Context, id int64) (string, store.Run, error) {
	r, ok, err := s.st.Run(ctx, id)
	if err != nil {
		return "", r, err
	}
	if !ok {
		return "missing", r, nil
	}
	n, err := s.st.CountRecords(ctx, id)
	if err != nil {
		return "", r, err
	}
	return fmt.Sprintf("%s/%d/%d/%d/%d", r.Status, r.Calls, r.Cached, n, r.RecordsVersion), r, nil
}

func (s *Server) fill(ctx context.Context, id int64, d *runData) error {
	runs, err := s.st.Runs(ctx)
	if err != nil {
		return err
	}
	found := false
	for _, r := range withStates(runs) {
		if r.ID == id {
			d.run, found = r, true
		}
	}
	if !found {
		return fmt.Errorf("no run %d in %s", id, s.st.Path())
	}
	if ok, err := s.loadTaskView(ctx, d); ok {
		return err
	}
	if t, ok := bench.TaskOf(d.run.Benchmark); ok {
		if r, ok := t.(bench.Reports); ok {
			// A Task's run page shows the report its `report` command
			// makes with its defaults, from the stored records.
			build, run := r.BindReport(pflag.NewFlagSet(d.run.Benchmark, pflag.ContinueOnError)), d.run
			d.analyze = func() (*report.Report, error) {
				rep, err := build(context.Background(), s.taskEnv(), run)
				if err == nil && run.Status != store.RunDone {
					rep.Meta = append(rep.Meta, [2]string{"partial", fmt.Sprintf("run %d did not finish (%s): this report covers the records it holds", run.ID, run.Status)})
				}
				return rep, err
			}
		}
	}
	return nil
}

func runID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("run id %q is not a number", r.PathValue("id"))
	}
	if id <= 0 {
		return 0, fmt.Errorf("no run %d: run ids start at 1", id)
	}
	return id, nil
}

// runRow is a line of the run list: the run, the models it called and
// what it spent ("n/a" for a run that called none, an import say).
type runRow struct {
	store.Run
	Models string
	Spend  string
	cost   float64
	// Twins are the other runs of the same name ("3, 7"): the list tells
	// them apart by id, and says so.
	Twins string
}

// runSort are the run list's sortable columns (default: newest first).
var runSort = []view.SortKey[runRow]{
	view.By("id", "id", func(r runRow) int64 { return r.ID }),
	view.By("name", "name", func(r runRow) string { return strings.ToLower(r.Name) }),
	view.By("benchmark", "benchmark", func(r runRow) string { return r.Benchmark }),
	view.By("status", "status", func(r runRow) string { return r.Status }),
	view.By("started", "started", func(r runRow) int64 { return r.Started.UnixNano() }),
	view.By("calls", "calls", func(r runRow) int { return r.Calls }),
	view.By("spend", "spend", func(r runRow) float64 { return r.cost }),
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// phaseModels names the models a run's phases ran ("" if none): for a run
// without calls, the detector it audited, from its phase counts.
func (s *Server) phaseModels(ctx context.Context, id int64) (string, error) {
	phases, err := s.st.Phases(ctx, id)
	if err != nil {
		return "", err
	}
	var names []string
	for _, p := range phases {
		if p.Model != "" && !slices.Contains(names, p.Model) {
			names = append(names, p.Model)
		}
	}
	return strings.Join(names, ", "), nil
}

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	runs, err := s.st.Runs(r.Context())
	if err != nil {
		s.fail(w, 500, err)
		return
	}
	bench := r.URL.Query().Get("bench")
	benches := map[string]bool{}
	byName := map[string][]string{}
	for _, run := range runs {
		byName[run.Name] = append(byName[run.Name], strconv.FormatInt(run.ID, 10))
	}
	var rows []runRow
	for _, run := range withStates(runs) {
		benches[run.Benchmark] = true
		if bench != "" && run.Benchmark != bench {
			continue
		}
		stats, err := s.st.RunModelStats(r.Context(), run.ID)
		if err != nil {
			s.fail(w, 500, err)
			return
		}
		row := runRow{Run: run, Spend: "n/a"}
		if ids := byName[run.Name]; len(ids) > 1 {
			row.Twins = strings.Join(slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id == strconv.FormatInt(run.ID, 10) }), ", ")
		}
		var names []string
		var cost float64
		unpriced := 0
		for _, m := range stats {
			names = append(names, m.Provider+":"+m.Model)
			cost += m.Cost
			unpriced += m.UnpricedCalls
		}
		if len(stats) > 0 {
			row.Models, row.Spend, row.cost = strings.Join(names, ", "), spend(cost, unpriced), cost
		} else if models, err := s.phaseModels(r.Context(), run.ID); err == nil {
			row.Models = models // a run without calls (an audit of a built-in detector): what its phases ran
		}
		if q := strings.ToLower(strings.TrimSpace(r.URL.Query().Get("q"))); q != "" &&
			!strings.Contains(strings.ToLower(strings.Join([]string{strconv.FormatInt(run.ID, 10), run.Name, run.Benchmark, row.Models, run.Status}, " ")), q) {
			continue
		}
		rows = append(rows, row)
	}
	heads := view.SortRows(r, rows, runSort)
	if r.URL.Query().Get("sort") == "" {
		// Unsorted: the runs still running first (newest first among
		// each), so a live run is at the top of the list.
		slices.SortStableFunc(rows, func(a, b runRow) int {
			return cmpBool(b.Status == store.RunRunning, a.Status == store.RunRunning)
		})
	}
	var names []string
	for b := range benches {
		names = append(names, b)
	}
	sort.Strings(names)
	s.render(w, "index.html", map[string]any{"Runs": rows, "DB": s.st.Path(), "Now": time.Now(), "Bench": bench, "Benches": names,
		"Q": r.URL.Query().Get("q"), "Sort": heads, "Try": tryCommands()})
}

// tryCommands are what the index suggests in a store without runs: every
// benchmark's run command that needs no file of the user's.
func tryCommands() []string {
	var try []string
	for _, t := range bench.Tasks() {
		_, takesArgs := t.(bench.TakesArgs)
		if run, _ := bench.Commandline(t); run != "" && !takesArgs {
			try = append(try, "fallacylab "+run)
		}
	}
	return try
}
