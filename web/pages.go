package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/study"
)

var funcs = template.FuncMap{
	// fl is a fallacylab command line a page suggests (Server.SetCommand
	// makes it name the store).
	"fl": func(args string) string { return "fallacylab " + args },
	// seg escapes one path segment (an item id may hold "#" or "/").
	"seg":   url.PathEscape,
	"plain": func(c report.Cell) string { return c.Plain() },
	"isNum": func(c report.Cell) bool { return c.Kind != report.Text },
	"add":   func(a, b int) int { return a + b },
	// words splits a list written in a template ("1 2 3 all").
	"words": strings.Fields,
	// clip is the first n characters of a long text (an answer in a list).
	"clip": func(s string, n int) string {
		r := []rune(s)
		if len(r) <= n {
			return s
		}
		return string(r[:n])
	},
	// rest is what follows clip's first n characters: "show all" shows
	// it, not the start again.
	"rest": func(s string, n int) string {
		r := []rune(s)
		if len(r) <= n {
			return ""
		}
		return string(r[n:])
	},
	"long": func(s string) bool { return len(s) > clipAt*4/3 },
	// short is a cell a list keeps on one line (a label, an id).
	"short": func(s string) bool { return len([]rune(s)) <= 40 },
	// corrects says whether a study of that kind corrects its run's
	// judged rates (its report then holds them).
	"corrects": func(k study.Kind) bool { spec, ok := study.SpecOf(k); return ok && spec.Corrects != nil },
}

// clipAt is how many characters of an answer a list shows before "show all".
const clipAt = 600

func (s *Server) run(w http.ResponseWriter, r *http.Request) {
	id, err := runID(r)
	if err != nil {
		s.fail(w, 400, err)
		return
	}
	d, err := s.load(r.Context(), id)
	if err != nil && d != nil && d.run.ID == id && d.run.Status != store.RunDone {
		// A run still running (or interrupted, or failed) may hold no
		// records its pages can show yet: its page shows how far it got.
		s.unfinished(w, r, d.run, err)
		return
	}
	if err != nil {
		s.fail(w, 404, err)
		return
	}
	rep, err := d.report()
	if err != nil && errors.Is(err, store.ErrNotFound) {
		// A Task that reads its records only for its report finds here
		// that the run has none to show: how far an unfinished one got.
		if d.run.Status != store.RunDone {
			s.unfinished(w, r, d.run, err)
		} else {
			s.fail(w, 404, err)
		}
		return
	}
	about, err2 := s.about(r.Context(), id)
	if err2 != nil {
		s.fail(w, 500, err2)
		return
	}
	s.live(r.Context(), w, about)
	if d.task != nil && d.task.Variant != nil && err == nil {
		if v, ok, verr := d.task.Variant(r.URL.Query()); verr != nil {
			s.fail(w, 400, verr)
			return
		} else if ok {
			rep = v
		}
	}
	if err != nil {
		s.fail(w, 500, err)
		return
	}
	studies, err := s.st.Studies(r.Context(), id)
	if err != nil {
		s.fail(w, 500, err)
		return
	}
	data := map[string]any{"Run": d.run, "Report": rep, "About": about, "Studies": studies, "Query": r.URL.Query()}
	l, lists := listingOf(d)
	if lists {
		data["Listing"] = l.Title
	}
	data["StudyHint"] = studyHint(d.run, lists, s.cmd)
	if d.task != nil {
		// The Task's own pages the viewer's run page links (those titled).
		var pages [][2]string
		for _, p := range d.task.Pages {
			if p.Title != "" && !strings.Contains(p.Path, "{") {
				pages = append(pages, [2]string{p.Path, p.Title})
			}
		}
		data["TaskPages"] = pages
	}
	if rep != nil {
		// The report's own layout (every chart beside its table, as in the
		// HTML report) with the viewer's links on the charts.
		var links report.LinksFunc
		if d.task != nil {
			links = d.task.Links
		}
		if data["Sections"], err = report.SectionsHTML(rep, links); err != nil {
			s.fail(w, 500, err)
			return
		}
		if data["Headline"], err = report.HeadlineHTML(rep); err != nil {
			s.fail(w, 500, err)
			return
		}
	}
	tpl := "run.html"
	if d.task != nil && d.task.Template != "" {
		tpl = d.task.Template
	}
	s.render(w, tpl, data)
}

// unfinished is the page of a run that did not finish and whose records
// cannot be shown yet (why): its progress, and what it holds so far.
func (s *Server) unfinished(w http.ResponseWriter, r *http.Request, run store.Run, why error) {
	about, err := s.about(r.Context(), run.ID)
	if err != nil {
		s.fail(w, 500, err)
		return
	}
	s.live(r.Context(), w, about)
	studies, err := s.st.Studies(r.Context(), run.ID)
	if err != nil {
		s.fail(w, 500, err)
		return
	}
	waiting := fmt.Sprintf("run %d is %s and holds nothing its pages can show yet (%v); this page shows how far it got", run.ID, run.Status, why)
	if about.Run.Status == store.RunRunning {
		// Still running: its records come as its phases end, and the
		// reason they are missing (a loader's advice for a run that stopped)
		// does not apply.
		waiting = fmt.Sprintf("run %d is running: its records are stored as its phases end, and this page fills in then; meanwhile it shows each phase's progress", run.ID)
	}
	s.render(w, "run.html", map[string]any{"Run": run, "About": about, "Studies": studies, "Waiting": waiting})
}

// studyHint is how to validate the run with people: the study kinds of
// its benchmark, and a records study where its records are listed; ""
// where no kind fits (the page then says nothing of studies).
func studyHint(run store.Run, lists bool, cmd func(string) string) string {
	var kinds []string
	for _, k := range study.Registered() {
		if k.Benchmark == run.Benchmark {
			kinds = append(kinds, string(k.Kind))
		}
	}
	if lists {
		kinds = append(kinds, string(study.RecordsKind)+" --questions FILE.yaml")
	}
	if len(kinds) == 0 {
		return ""
	}
	hint := cmd(fmt.Sprintf("study create --run %d --kind %s", run.ID, kinds[0]))
	if len(kinds) > 1 {
		hint += " (or --kind " + strings.Join(kinds[1:], ", ") + ")"
	}
	return hint
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
