package web

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/fallacylab/fallacylab/bench/deflect"
	"github.com/fallacylab/fallacylab/bench/foils"
	"github.com/fallacylab/fallacylab/bench/missci"
	"github.com/fallacylab/fallacylab/internal/records"
	"github.com/fallacylab/fallacylab/judge"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store"
)

var funcs = template.FuncMap{
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
	data := map[string]any{"Run": d.run, "Report": rep, "About": about}
	if rep != nil {
		// The report's own layout (every chart beside its table, as in the
		// HTML report) with the viewer's links on the charts.
		if data["Sections"], err = report.SectionsHTML(rep, chartLinks(id, d.run.Benchmark)); err != nil {
			s.fail(w, 500, err)
			return
		}
	}
	tpl := "run.html"
	if v, ok := views[d.run.Benchmark]; ok {
		tpl = v.template
	}
	s.render(w, tpl, data)
}

// chartLinks links chart elements to the records behind them: a
// DeflectBench model × frame cell to its generations with that outcome, a
// Scheme Foils confusion cell to its test-set items.
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
		case bench == foils.Definition.Name && t.ID == "confusion":
			return func(gold, pred string) string {
				cond := foils.TestCondition
				if gold == foils.None {
					cond = foils.Native
				}
				q := url.Values{"cond": {cond}, "label": {gold}, "pred": {pred}}
				return fmt.Sprintf("/runs/%d/items?%s", id, q.Encode())
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

type pager struct {
	Page, Pages, Total, From, To int
	Prev, Next                   string
}

func paginate(r *http.Request, total int) pager {
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	pages := max(1, (total+PageSize-1)/PageSize)
	page = min(max(page, 1), pages)
	p := pager{Page: page, Pages: pages, Total: total, From: (page - 1) * PageSize, To: min(total, page*PageSize)}
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
	return p
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
	if s.firstPage(w, r) {
		return
	}
	_, d, ok := s.runFrom(w, r)
	if !ok || !s.isBench(w, d, deflect.Definition.Name, "generations") {
		return
	}
	q := r.URL.Query()
	model, frame, outcome := q.Get("model"), q.Get("frame"), q.Get("outcome")
	disagree := q.Get("disagree") == "1"
	search := strings.ToLower(strings.TrimSpace(q.Get("q")))
	byModel := filterMatch(d.rows, func(r *deflect.Row) string { return r.Gen.Model }, model)
	byFrame := filterMatch(d.rows, func(r *deflect.Row) string { return deflect.FrameLabel(r.Gen) }, frame)
	var match []*deflect.Row
	for _, row := range d.rows {
		if !byModel(row) || !byFrame(row) {
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
	p := paginate(r, len(match))
	s.renderGenerations(w, r, d.run, match[p.From:p.To], d.evals, d.judges, p)
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
	ds, total, err := s.st.DeflectPage(r.Context(), id, (page-1)*PageSize, PageSize)
	if err != nil {
		return false
	}
	rows, judges, err := deflect.Rows(ds, judge.Any)
	if err != nil && len(ds.Gens) > 0 {
		return false
	}
	p := paginate(r, total)
	if p.Page != page { // past the last page: the full list answers
		return false
	}
	s.renderGenerations(w, r, withState(run), rows, evalsByGen(ds.Evals), judges, p)
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
	evals map[string]map[string]deflect.Eval, judges []string, p pager) {
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
					switch e.Scores[f] {
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
		"Outcome": q.Get("outcome"), "Disagree": q.Get("disagree") == "1", "Q": q.Get("q"), "Outcomes": outcomeFields})
}

func (s *Server) items(w http.ResponseWriter, r *http.Request) {
	_, d, ok := s.runFrom(w, r)
	if !ok || !s.isBench(w, d, foils.Definition.Name, "items") {
		return
	}
	q := r.URL.Query()
	cond, label, pred := q.Get("cond"), q.Get("label"), q.Get("pred")
	search := strings.ToLower(strings.TrimSpace(q.Get("q")))
	var match []records.Prediction
	for _, p := range d.preds {
		if cond != "" && p.Condition != cond {
			continue
		}
		if label != "" && p.Gold != label && p.Source != label {
			continue
		}
		if pred != "" && p.Pred != pred {
			continue
		}
		if search != "" && !strings.Contains(strings.ToLower(p.Text), search) {
			continue
		}
		match = append(match, p)
	}
	pg := paginate(r, len(match))
	s.render(w, "items.html", map[string]any{"Run": d.run, "Rows": match[pg.From:pg.To], "Pager": pg, "Cond": cond, "Label": label,
		"Pred": pred, "Q": q.Get("q"), "Conds": []string{"native", "matched", "wrong_scheme", "test"}})
}

type lineView struct {
	Line    missci.Line
	Preds   []missci.Prediction
	Correct bool
}

type argView struct {
	Arg   missci.Argument
	Lines []lineView
}

func (s *Server) arguments(w http.ResponseWriter, r *http.Request) {
	_, d, ok := s.runFrom(w, r)
	if !ok {
		return
	}
	if d.missci == nil {
		s.fail(w, 404, fmt.Errorf("run %d is not a Missci reconstruction run", d.run.ID))
		return
	}
	q := r.URL.Query()
	class, wrong := q.Get("class"), q.Get("wrong") == "1"
	search := strings.ToLower(strings.TrimSpace(q.Get("q")))
	var match []argView
	for _, a := range d.missci.args {
		av := argView{Arg: a}
		keep := class == "" && !wrong
		for _, l := range a.Lines {
			lv := lineView{Line: l, Preds: d.missci.preds[l.ID]}
			if len(lv.Preds) > 0 {
				for _, c := range l.Classes() {
					if c == lv.Preds[0].Class {
						lv.Correct = true
					}
				}
			}
			av.Lines = append(av.Lines, lv)
			hasClass := false
			for _, c := range l.Classes() {
				hasClass = hasClass || c == class
			}
			if (class == "" || hasClass) && (!wrong || !lv.Correct) {
				keep = true
			}
		}
		if search != "" && !strings.Contains(strings.ToLower(a.Claim+" "+a.P0), search) {
			keep = false
		}
		if keep {
			match = append(match, av)
		}
	}
	pg := paginate(r, len(match))
	s.render(w, "arguments.html", map[string]any{"Run": d.run, "Rows": match[pg.From:pg.To], "Pager": pg, "Class": class, "Wrong": wrong,
		"Q": q.Get("q"), "Classes": missci.Classes})
}
