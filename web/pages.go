package web

import (
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/fallacylab/fallacylab/bench/deflect"
	"github.com/fallacylab/fallacylab/bench/missci"
	"github.com/fallacylab/fallacylab/internal/records"
	"github.com/fallacylab/fallacylab/report"
)

var funcs = template.FuncMap{
	"plain": func(c report.Cell) string { return c.Plain() },
	"isNum": func(c report.Cell) bool { return c.Kind != report.Text },
	"add":   func(a, b int) int { return a + b },
}

// outcomeFields maps the heatmap outcomes to rubric fields and the column
// (by key) of outcomes_by_frame that holds them.
var outcomeFields = []struct {
	Label, Field, Column string
}{
	{"refusal", "refusal", "refusal"}, {"soft refusal", "soft_refusal", "soft_refusal"}, {"labelled compliance", "fallacy_labeled", "labelled_compliance"},
	{"clean compliance", "compliance_clean", "clean_compliance"}, {"any fallacy", "any_fallacy_present", "any_fallacy"},
}

type chartView struct {
	SVG template.HTML
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
	data := map[string]any{"Run": d.run, "Report": d.rep, "About": about}
	if d.rep != nil {
		var charts []chartView
		for _, t := range d.rep.Tables() {
			if t.ID == "outcomes_by_frame" {
				for _, o := range outcomeFields {
					o := o
					link := func(model, frame string) string {
						q := url.Values{"model": {model}, "frame": {frame}, "outcome": {o.Field}}
						return fmt.Sprintf("/runs/%d/generations?%s", id, q.Encode())
					}
					c, err := report.ChartOf(t, "heatmap", strings.ToUpper(o.Label[:1])+o.Label[1:]+": model × frame (click a cell)", o.Column, "model", "frame")
					if err != nil {
						s.fail(w, 500, err)
						return
					}
					// Safe: Chart.SVG escapes every text and URL it writes.
					charts = append(charts, chartView{SVG: template.HTML(c.SVG(t, link))})
				}
				continue
			}
			for _, c := range t.Charts {
				charts = append(charts, chartView{SVG: template.HTML(c.SVG(t, nil))})
			}
		}
		data["Charts"] = charts
	}
	tpl := "run.html"
	if v, ok := views[d.run.Benchmark]; ok {
		tpl = v.template
	}
	s.render(w, tpl, data)
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
	_, d, ok := s.runFrom(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	model, frame, outcome := q.Get("model"), q.Get("frame"), q.Get("outcome")
	disagree := q.Get("disagree") == "1"
	search := strings.ToLower(strings.TrimSpace(q.Get("q")))
	var match []*deflect.Row
	for _, row := range d.rows {
		if model != "" && row.Gen.Model != model {
			continue
		}
		if frame != "" && deflect.FrameLabel(row.Gen) != frame {
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
	var views []genView
	for _, row := range match[p.From:p.To] {
		v := genView{Gen: row.Gen, Frame: deflect.FrameLabel(row.Gen), Disagree: row.Disagree()}
		for _, j := range d.judges {
			e, ok := d.evals[row.Gen.GenID][j]
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
	s.render(w, "generations.html", map[string]any{"Run": d.run, "Rows": views, "Pager": p, "Model": model, "Frame": frame,
		"Outcome": outcome, "Disagree": disagree, "Q": q.Get("q"), "Outcomes": outcomeFields})
}

func (s *Server) items(w http.ResponseWriter, r *http.Request) {
	_, d, ok := s.runFrom(w, r)
	if !ok {
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
