package web

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/view"
)

// callRow is one call of a run in its calls list.
type callRow struct {
	Key, Job, Model, Status, Error string
	Cached                         bool
	Attempts                       int
	In, Out                        int64
	Cost                           string
	cost                           float64
	Latency                        time.Duration
}

// callSort are the calls list's sortable columns (default: job order).
var callSort = []view.SortKey[callRow]{
	view.By("job", "job", func(c callRow) string { return c.Job }),
	view.By("model", "model", func(c callRow) string { return c.Model }),
	view.By("status", "status", func(c callRow) string { return c.Status }),
	view.By("attempts", "attempts", func(c callRow) int { return c.Attempts }),
	view.By("tokens", "tokens in + out", func(c callRow) int64 { return c.In + c.Out }),
	view.By("cost", "cost", func(c callRow) float64 { return c.cost }),
	view.By("latency", "latency", func(c callRow) int64 { return int64(c.Latency) }),
}

// runCalls is a run's calls list: every call it used, filtered by status,
// model, cache hit or miss, retried, or text (job or key), sorted by any
// column (?sort=latency&desc=1: the slowest first), each linking to its
// transcript.
func (s *Server) runCalls(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		s.fail(w, 404, fmt.Errorf("no run %q", r.PathValue("id")))
		return
	}
	run, ok, err := s.st.Run(r.Context(), id)
	if err != nil {
		s.fail(w, 500, err)
		return
	}
	if !ok {
		s.fail(w, 404, fmt.Errorf("no run %d in this store", id))
		return
	}
	q := r.URL.Query()
	status, model, cache, text := q.Get("status"), q.Get("model"), q.Get("cache"), strings.ToLower(strings.TrimSpace(q.Get("q")))
	retried := q.Get("retried") == "1"
	var rows []callRow
	models := map[string]bool{}
	err = s.st.RunCalls(r.Context(), id, func(c store.RunCall) error {
		m := c.Provider + ":" + c.Model
		models[m] = true
		switch {
		case status != "" && c.Status != status,
			model != "" && m != model,
			cache == "hit" && !c.Cached, cache == "miss" && c.Cached,
			retried && c.Attempts < 2,
			text != "" && !strings.Contains(strings.ToLower(c.Job+" "+c.Key), text):
			return nil
		}
		row := callRow{Key: c.Key, Job: c.Job, Model: m, Status: c.Status, Error: c.Error, Cached: c.Cached, Attempts: c.Attempts,
			In: c.Usage.InputTokens, Out: c.Usage.OutputTokens, Cost: "n/a", Latency: c.Latency}
		if c.Cost != nil {
			row.Cost, row.cost = fmt.Sprintf("$%.4f", *c.Cost), *c.Cost
		}
		rows = append(rows, row)
		return nil
	})
	if err != nil {
		s.fail(w, 500, err)
		return
	}
	heads := view.SortRows(r, rows, callSort)
	header := []string{"job", "key", "model", "status", "error", "cached", "attempts", "input_tokens", "output_tokens", "cost", "latency_ms"}
	if view.Export(w, r, fmt.Sprintf("run-%d-calls", id), header, func(yield func([]string, any) bool) {
		for _, c := range rows {
			cost := ""
			if c.Cost != "n/a" {
				cost = strconv.FormatFloat(c.cost, 'g', -1, 64)
			}
			rec := []string{c.Job, c.Key, c.Model, c.Status, c.Error, strconv.FormatBool(c.Cached), strconv.Itoa(c.Attempts),
				strconv.FormatInt(c.In, 10), strconv.FormatInt(c.Out, 10), cost, strconv.FormatInt(c.Latency.Milliseconds(), 10)}
			obj := map[string]any{}
			for i, h := range header {
				obj[h] = rec[i]
			}
			if !yield(rec, obj) {
				return
			}
		}
	}) {
		return
	}
	pg := view.Paginate(r, len(rows))
	var names []string
	for m := range models {
		names = append(names, m)
	}
	sort.Strings(names)
	s.render(w, "calls.html", map[string]any{"Run": run, "Rows": rows[pg.From:pg.To], "Pager": pg, "Sort": heads, "Models": names,
		"Status": status, "Model": model, "Cache": cache, "Retried": retried, "Q": q.Get("q")})
}

// call is one call's transcript, at a permanent URL (/calls/KEY): the
// messages as sent, the parameters, the raw answer, tokens, cost, latency,
// attempts and batch.
func (s *Server) call(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("key")
	c, ok, err := s.st.GetCall(r.Context(), key)
	if err != nil {
		s.fail(w, 500, err)
		return
	}
	if !ok {
		// GetCall holds answers; a failed call is read from the run that
		// made it (?run=N), as the calls list links it.
		if run, _ := strconv.ParseInt(r.URL.Query().Get("run"), 10, 64); run > 0 {
			err = s.st.RunCalls(r.Context(), run, func(rc store.RunCall) error {
				if rc.Key == key {
					c, ok = rc.Call, true
				}
				return nil
			})
			if err != nil {
				s.fail(w, 500, err)
				return
			}
		}
	}
	if !ok {
		s.fail(w, 404, fmt.Errorf("no call %s in this store", key))
		return
	}
	req, _ := requestOf(c)
	var params [][2]string
	if req.Temperature != nil {
		params = append(params, [2]string{"temperature", strconv.FormatFloat(*req.Temperature, 'g', -1, 64)})
	} else {
		params = append(params, [2]string{"temperature", "the provider's default"})
	}
	if req.MaxTokens > 0 {
		params = append(params, [2]string{"max tokens", strconv.Itoa(req.MaxTokens)})
	}
	if req.Seed != nil {
		params = append(params, [2]string{"seed", strconv.FormatInt(*req.Seed, 10)})
	}
	if len(req.Stop) > 0 {
		params = append(params, [2]string{"stop", strings.Join(req.Stop, " · ")})
	}
	if req.Schema != nil {
		params = append(params, [2]string{"answer schema", "yes (structured output)"})
	}
	cost := "n/a (no price for the model)"
	if c.Cost != nil {
		cost = fmt.Sprintf("$%.6f", *c.Cost)
	}
	s.render(w, "call.html", map[string]any{"Call": c, "Request": req, "Params": params, "Cost": cost,
		"Back": r.URL.Query().Get("run"), "Esc": url.PathEscape(key)})
}
