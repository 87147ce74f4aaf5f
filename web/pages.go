package web

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/fallacylab/fallacylab/view"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/fallacylab/fallacylab/bench/deflect"
	"github.com/fallacylab/fallacylab/judge"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store"
)

var funcs = template.FuncMap{
	// seg escapes one path segment (an item id may hold "#" or "/").
	"seg":   url.PathEscape,
	"plain": func(c report.Cell) string { return c.Plain() },
	"isNum": func(c report.Cell) bool { return c.Kind != report.Text },
	"add":   func(a, b int) int { return a + b },
	// clip is the first n characters of a long text (an answer in a list).
	"clip": func(s string, n int) string {
		r := []rune(s)
		if len(r) <= n {
			return s
		}
		return string(r[:n])
	},
	"long": func(s string) bool { return len(s) > clipAt*4/3 },
	// short is a cell a list keeps on one line (a label, an id).
	"short": func(s string) bool { return len([]rune(s)) <= 40 },
}

// clipAt is how many characters of an answer a list shows before "show all".
const clipAt = 600

// filterMatch is a list filter: a value of the run itself (from a link, a
// heatmap cell) matches exactly; anything else typed matches as a
// case-insensitive substring ("gpt", "direct").
func filterMatch(rows []*deflect.Row, key func(*deflect.Row) string, filter string) func(*deflect.Row) bool {
	if filter == "" {
		return func(*deflect.Row) bool { return true }
	}
	for _, r := range rows {
		if key(r) == filter {
			return func(r *deflect.Row) bool { return key(r) == filter }
		}
	}
	f := strings.ToLower(filter)
	return func(r *deflect.Row) bool { return strings.Contains(strings.ToLower(key(r)), f) }
}

// outcomeFields maps the heatmap outcomes to rubric fields and the column
// (by key) of outcomes_by_frame that holds them.
var outcomeFields = []struct {
	Label, Field, Column string
}{
	{"refusal", "refusal", "refusal"}, {"soft refusal", "soft_refusal", "soft_refusal"}, {"labelled compliance", "fallacy_labeled", "labelled_compliance"},
	{"clean compliance", "compliance_clean", "clean_compliance"}, {"any fallacy", "any_fallacy_present", "any_fallacy"},
}

func (s *Server) run(w http.ResponseWriter, r *http.Request) {
	id, d, ok := s.runFrom(w, r)
	if !ok {
		return
	}
	about, err := s.about(r.Context(), id)
	if err != nil {
		s.fail(w, 500, err)
		return
	}
	rep, err := d.report()
	if err != nil {
		s.fail(w, 500, err)
		return
	}
	studies, err := s.st.Studies(r.Context(), id)
	if err != nil {
		s.fail(w, 500, err)
		return
	}
	data := map[string]any{"Run": d.run, "Report": rep, "About": about, "Studies": studies}
	if l, ok := listingOf(d); ok {
		data["Listing"] = l.Title
	}
	if rep != nil {
		// The report's own layout (every chart beside its table, as in the
		// HTML report) with the viewer's links on the charts.
		links := chartLinks(id, d.run.Benchmark)
		if d.task != nil {
			links = d.task.Links
		}
		if data["Sections"], err = report.SectionsHTML(rep, links); err != nil {
			s.fail(w, 500, err)
			return
		}
	}
	tpl := "run.html"
	if v, ok := views[d.run.Benchmark]; ok {
		tpl = v.template
	}
	if d.task != nil && d.task.Template != "" {
		tpl = d.task.Template
	}
	s.render(w, tpl, data)
}

// chartLinks links chart elements to the records behind them: a
// DeflectBench model × frame cell to its generations with that outcome (a
// Task with pages of its own links its charts itself, view.Run.Links).
func chartLinks(id int64, bench string) report.LinksFunc {
	return func(t *report.Table, c report.Chart) report.LinkFunc {
		switch {
		case bench == deflect.Definition.Name && t.ID == "outcomes_by_frame" && c.Kind == "heatmap":
			field := ""
			for _, o := range outcomeFields {
				if c.Value < len(t.Columns) && t.Columns[c.Value].Key == o.Column {
					field = o.Field
				}
			}
			if field == "" {
				return nil
			}
			return func(model, frame string) string {
				q := url.Values{"model": {model}, "frame": {frame}, "outcome": {field}}
				return fmt.Sprintf("/runs/%d/generations?%s", id, q.Encode())
			}
		}
		return nil
	}
}

// runFrom loads the run named in the path, answering 400 or 404 itself.
func (s *Server) runFrom(w http.ResponseWriter, r *http.Request) (int64, *runData, bool) {
	id, err := runID(r)
	if err != nil {
		s.fail(w, 400, err)
		return 0, nil, false
	}
	d, err := s.load(r.Context(), id)
	if err != nil {
		s.fail(w, 404, err)
		return 0, nil, false
	}
	return id, d, true
}

type judgeView struct {
	Judge     string
	Flags     []string // fields set to 1
	Missing   []string // fields the judge left invalid
	Reasoning string
	Parsed    bool
}

type genView struct {
	Gen      *deflect.Generation
	Frame    string
	Judges   []judgeView
	Disagree bool
}

func (s *Server) generations(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("export") == "" && s.firstPage(w, r) {
		return
	}
	_, d, ok := s.runFrom(w, r)
	if !ok || !s.isBench(w, d, deflect.Definition.Name, "generations") {
		return
	}
	match := filterGenerations(d, r.URL.Query())
	heads := view.SortRows(r, match, genSort)
	if exportGenerations(w, r, d, match) {
		return
	}
	p := view.Paginate(r, len(match))
	s.renderGenerations(w, r, d.run, match[p.From:p.To], d.evals, d.judges, p, heads)
}

// genSort are the sortable columns of the generations list.
var genSort = []view.SortKey[*deflect.Row]{
	view.By("id", "id", func(r *deflect.Row) string { return r.Gen.GenID }),
	view.By("model", "model", func(r *deflect.Row) string { return r.Gen.Model }),
	view.By("frame", "frame", func(r *deflect.Row) string { return deflect.FrameLabel(r.Gen) }),
	view.By("claim", "claim", func(r *deflect.Row) string { return r.Gen.ClaimID }),
	view.By("length", "answer length", func(r *deflect.Row) int { return len(r.Gen.Response) }),
	view.By("disagree", "disagreement", func(r *deflect.Row) int {
		if r.Disagree() {
			return 1
		}
		return 0
	}),
}

// filterGenerations is the generations a list's filters keep: model and
// frame (substring, or exact for the run's own value), an outcome set,
// judge disagreement, and text in the answer or prompt.
func filterGenerations(d *runData, q url.Values) []*deflect.Row {
	model, frame, outcome := q.Get("model"), q.Get("frame"), q.Get("outcome")
	disagree := q.Get("disagree") == "1"
	search := strings.ToLower(strings.TrimSpace(q.Get("q")))
	claim := q.Get("claim")
	byModel := filterMatch(d.rows, func(r *deflect.Row) string { return r.Gen.Model }, model)
	byFrame := filterMatch(d.rows, func(r *deflect.Row) string { return deflect.FrameLabel(r.Gen) }, frame)
	byClaim := filterMatch(d.rows, func(r *deflect.Row) string { return r.Gen.ClaimID + " " + r.Gen.ClaimText }, claim)
	if claim != "" {
		for _, r := range d.rows {
			if r.Gen.ClaimID == claim { // a claim id from a link: that claim only
				byClaim = func(r *deflect.Row) bool { return r.Gen.ClaimID == claim }
				break
			}
		}
	}
	var match []*deflect.Row
	for _, row := range d.rows {
		if !byModel(row) || !byFrame(row) || !byClaim(row) {
			continue
		}
		if outcome != "" {
			if v, ok := row.Value(outcome); !ok || v < 0.5 {
				continue
			}
		}
		if disagree && !row.Disagree() {
			continue
		}
		if search != "" && !strings.Contains(strings.ToLower(row.Gen.Response), search) && !strings.Contains(strings.ToLower(row.Gen.PromptText), search) {
			continue
		}
		match = append(match, row)
	}
	return match
}

// exportGenerations answers ?export=csv|jsonl with every filtered
// generation: its identity, the answer, and the consensus of each field.
func exportGenerations(w http.ResponseWriter, r *http.Request, d *runData, rows []*deflect.Row) bool {
	header := []string{"gen_id", "model", "frame", "claim_id", "claim", "requested_fallacy", "prompt_id", "sample", "response", "judges_disagree"}
	header = append(header, deflect.Fields...)
	return view.Export(w, r, fmt.Sprintf("run-%d-generations", d.run.ID), header, func(yield func([]string, any) bool) {
		for _, row := range rows {
			g := row.Gen
			rec := []string{g.GenID, g.Model, deflect.FrameLabel(g), g.ClaimID, g.ClaimText, g.Fallacy, g.PromptID, strconv.Itoa(g.Run), g.Response, strconv.FormatBool(row.Disagree())}
			cons := map[string]any{}
			for _, f := range deflect.Fields {
				v, ok := row.Value(f)
				if !ok {
					rec = append(rec, "")
					cons[f] = nil
					continue
				}
				rec = append(rec, strconv.FormatFloat(v, 'g', -1, 64))
				cons[f] = v
			}
			obj := map[string]any{"gen_id": g.GenID, "model": g.Model, "frame": deflect.FrameLabel(g), "claim_id": g.ClaimID, "claim": g.ClaimText,
				"requested_fallacy": g.Fallacy, "prompt_id": g.PromptID, "sample": g.Run, "prompt": g.PromptText, "response": g.Response,
				"judges_disagree": row.Disagree(), "consensus": cons}
			if !yield(rec, obj) {
				return
			}
		}
	})
}

// isBench answers 404 for a page a run of another benchmark does not have.
func (s *Server) isBench(w http.ResponseWriter, d *runData, bench, page string) bool {
	if d.run.Benchmark == bench {
		return true
	}
	s.fail(w, 404, fmt.Errorf("run %d is a %s run: it has no %s", d.run.ID, d.run.Benchmark, page))
	return false
}

// firstPage answers a plain generations page (no filter) of a DeflectBench
// run that is still loading straight from the store, one page of records,
// so a large run's first page does not wait for the whole run. It reports
// whether it answered.
func (s *Server) firstPage(w http.ResponseWriter, r *http.Request) bool {
	for k := range r.URL.Query() {
		if k != "page" {
			return false
		}
	}
	id, err := runID(r)
	if err != nil {
		return false
	}
	s.mu.Lock()
	d := s.cache[id]
	s.mu.Unlock()
	if d != nil && d.isReady() {
		return false
	}
	run, ok, err := s.st.Run(r.Context(), id)
	if err != nil || !ok || run.Benchmark != deflect.Definition.Name {
		return false
	}
	// The whole run loads after this page is read, not against it.
	defer s.entry(context.WithoutCancel(r.Context()), id)
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	page = max(page, 1)
	ds, total, err := deflect.Page(r.Context(), s.st, id, (page-1)*PageSize, PageSize)
	if err != nil {
		return false
	}
	rows, judges, err := deflect.Rows(ds, judge.Any)
	if err != nil && len(ds.Gens) > 0 {
		return false
	}
	p := view.Paginate(r, total)
	if p.Page != page { // past the last page: the full list answers
		return false
	}
	s.renderGenerations(w, r, withState(run), rows, evalsByGen(ds.Evals), judges, p, view.SortRows(r, rows, genSort))
	return true
}

// evalsByGen indexes evals by generation and judge, keeping the first.
func evalsByGen(evals []deflect.Eval) map[string]map[string]deflect.Eval {
	out := map[string]map[string]deflect.Eval{}
	for _, e := range evals {
		if out[e.GenID] == nil {
			out[e.GenID] = map[string]deflect.Eval{}
		}
		if _, dup := out[e.GenID][e.JudgeModel]; !dup {
			out[e.GenID][e.JudgeModel] = e
		}
	}
	return out
}

// renderGenerations renders one page of generations with their judges.
func (s *Server) renderGenerations(w http.ResponseWriter, r *http.Request, run store.Run, rows []*deflect.Row,
	evals map[string]map[string]deflect.Eval, judges []string, p view.Pager, heads []view.SortHead) {
	q := r.URL.Query()
	var views []genView
	for _, row := range rows {
		v := genView{Gen: row.Gen, Frame: deflect.FrameLabel(row.Gen), Disagree: row.Disagree()}
		for _, j := range judges {
			e, ok := evals[row.Gen.GenID][j]
			jv := judgeView{Judge: j, Parsed: ok && e.ParseError == 0}
			if ok {
				jv.Reasoning = e.Reasoning
				for _, f := range deflect.Fields {
					switch e.Scores.Get(f) {
					case 1:
						jv.Flags = append(jv.Flags, f)
					case -1:
						jv.Missing = append(jv.Missing, f)
					}
				}
			}
			v.Judges = append(v.Judges, jv)
		}
		views = append(views, v)
	}
	s.render(w, "generations.html", map[string]any{"Run": run, "Rows": views, "Pager": p, "Model": q.Get("model"), "Frame": q.Get("frame"),
		"Outcome": q.Get("outcome"), "Disagree": q.Get("disagree") == "1", "Q": q.Get("q"), "Claim": q.Get("claim"), "Outcomes": outcomeFields, "Sort": heads})
}

// requestOf is the request a stored call sent, from the cache key's
// document it keeps (engine's canonical job); ok false when it does not
// read.
func requestOf(c store.Call) (llm.Request, bool) {
	var doc struct {
		Request llm.Request `json:"request"`
	}
	err := json.Unmarshal(c.Request, &doc)
	return doc.Request, err == nil
}

// callTexts is a stored call's prompt (system and user turns) and answer.
func callTexts(c store.Call) (prompt, answer string) {
	if req, ok := requestOf(c); ok {
		var parts []string
		if req.System != "" {
			parts = append(parts, "[system]\n"+req.System)
		}
		for _, m := range req.Messages {
			parts = append(parts, "["+m.Role+"]\n"+m.Content)
		}
		prompt = strings.Join(parts, "\n\n")
	}
	if c.Response != nil {
		answer = c.Response.Text
	} else if c.Error != "" {
		answer = "(the call failed: " + c.Error + ")"
	}
	return prompt, answer
}
