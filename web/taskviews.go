package web

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/view"
)

// parseTaskTemplates adds every Task's own page templates (bench.Views) to
// the viewer's, with its layout and functions.
func parseTaskTemplates(t *template.Template) error {
	for _, task := range bench.Tasks() {
		v, ok := task.(bench.Views)
		if !ok {
			continue
		}
		if _, err := t.ParseFS(v.Templates(), "*.html"); err != nil {
			return fmt.Errorf("viewer templates of %s: %w", task.Definition().Name, err)
		}
	}
	return nil
}

// loadTaskView loads a run of a Task that has pages of its own (ok false:
// the run's benchmark has none).
func (s *Server) loadTaskView(ctx context.Context, d *runData) (bool, error) {
	t, ok := bench.TaskOf(d.run.Benchmark)
	if !ok {
		return false, nil
	}
	v, ok := t.(bench.Views)
	if !ok {
		return false, nil
	}
	rv, err := v.View(ctx, s.taskEnv(), d.run)
	if err != nil {
		return true, err
	}
	d.task, d.rep, d.analyze = rv, rv.Report, rv.Analyze
	return true, nil
}

// taskEnv is what the viewer gives a Task: the store's records, read only.
func (s *Server) taskEnv() bench.Env {
	return bench.Env{Records: s.st, Store: s.st.Path(), Resamples: s.Resamples}
}

// preview answers a page of a run still loading from the Task's previews
// (bench.Previews), when one can; the run's load starts after it. It
// reports whether it answered.
func (s *Server) preview(w http.ResponseWriter, r *http.Request) bool {
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
	if err != nil || !ok {
		return false
	}
	t, ok := bench.TaskOf(run.Benchmark)
	if !ok {
		return false
	}
	p, ok := t.(bench.Previews)
	if !ok {
		return false
	}
	for _, pv := range p.Previews(s.taskEnv()) {
		if _, ok := matchPath(pv.Path, pagePath(r)); ok {
			// The whole run loads after this page is read, not against it.
			defer s.entry(context.WithoutCancel(r.Context()), id)
			return pv.Serve(kit{s, withState(run)}, w, r)
		}
	}
	return false
}

// pagePath is the escaped path of a request below /runs/ID/.
func pagePath(r *http.Request) string {
	// The escaped path, so that a part holding an escaped "/" (an item id
	// such as authority/f9loyen) stays one part.
	escaped := r.URL.EscapedPath()
	if i := strings.Index(escaped, "/runs/"); i >= 0 {
		escaped = escaped[i+len("/runs/"):]
		if _, after, ok := strings.Cut(escaped, "/"); ok {
			escaped = after
		}
	}
	return escaped
}

// taskPage serves a page of a Task's run: /runs/ID/<the page's path>.
func (s *Server) taskPage(w http.ResponseWriter, r *http.Request) {
	if s.preview(w, r) {
		return
	}
	_, d, ok := s.runFrom(w, r)
	if !ok {
		return
	}
	rest, escaped := r.PathValue("page"), pagePath(r)
	if d.task != nil {
		for _, p := range d.task.Pages {
			if vals, ok := matchPath(p.Path, escaped); ok {
				for k, v := range vals {
					r.SetPathValue(k, v)
				}
				p.Serve(kit{s, d.run}, w, r)
				return
			}
		}
	}
	s.fail(w, 404, fmt.Errorf("run %d (%s) has no page %q", d.run.ID, d.run.Benchmark, rest))
}

// matchPath matches a page's path ("items/{cond}/{item}") against the
// rest of a request's escaped path, part by part, and returns the
// unescaped values of its named parts.
func matchPath(pattern, escaped string) (map[string]string, bool) {
	ps, xs := strings.Split(pattern, "/"), strings.Split(escaped, "/")
	if len(ps) != len(xs) {
		return nil, false
	}
	vals := map[string]string{}
	for i, p := range ps {
		x, err := url.PathUnescape(xs[i])
		if err != nil {
			return nil, false
		}
		if name, ok := strings.CutPrefix(p, "{"); ok && strings.HasSuffix(name, "}") {
			if x == "" {
				return nil, false
			}
			vals[strings.TrimSuffix(name, "}")] = x
		} else if p != x {
			return nil, false
		}
	}
	return vals, true
}

// kit is the view.Kit of one request of a Task's page.
type kit struct {
	s   *Server
	run store.Run
}

// Run implements view.Kit.
func (k kit) Run() store.Run { return k.run }

// Render implements view.Kit.
func (k kit) Render(w http.ResponseWriter, name string, data map[string]any) {
	k.s.render(w, name, data)
}

// Fail implements view.Kit.
func (k kit) Fail(w http.ResponseWriter, code int, err error) { k.s.fail(w, code, err) }

// Call implements view.Kit.
func (k kit) Call(ctx context.Context, key string) (string, string, bool, error) {
	c, ok, err := k.s.st.GetCall(ctx, key)
	if err != nil || !ok {
		return "", "", ok, err
	}
	prompt, answer := callTexts(c)
	return prompt, answer, true, nil
}

var _ view.Kit = kit{}
