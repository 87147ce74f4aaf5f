package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/fallacylab/fallacylab/view"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/store"
)

// taskRecord is one listed record of a Task's run: its key, the call it
// was made from, and its cells as the Task's Listing reads them.
type taskRecord struct {
	Key, CallKey string
	Cells        []string
}

// listingOf is the Listing of the run's Task (ok false: the benchmark is
// not a Task that lists its records).
func listingOf(d *runData) (bench.Listing, bool) {
	t, ok := bench.TaskOf(d.run.Benchmark)
	if !ok {
		return bench.Listing{}, false
	}
	l, ok := t.(bench.Lists)
	if !ok {
		return bench.Listing{}, false
	}
	return l.Listing(), true
}

func (s *Server) taskRecords(ctx context.Context, runID int64, l bench.Listing) ([]taskRecord, error) {
	var out []taskRecord
	err := s.st.Records(ctx, runID, l.Kind, func(r store.Record) error {
		cells, err := l.Row(r)
		if err != nil {
			return fmt.Errorf("record %s: %w", r.Key, err)
		}
		out = append(out, taskRecord{Key: r.Key, CallKey: r.CallKey, Cells: cells})
		return nil
	})
	return out, err
}

// listed is the run a records page asks for, its Task's Listing and its
// listed records; ok false when the page has already answered (no such
// run, a benchmark that lists nothing, a store error).
func (s *Server) listed(w http.ResponseWriter, r *http.Request) (*runData, bench.Listing, []taskRecord, bool) {
	_, d, ok := s.runFrom(w, r)
	if !ok {
		return nil, bench.Listing{}, nil, false
	}
	l, ok := listingOf(d)
	if !ok {
		s.fail(w, 404, fmt.Errorf("run %d (%s) has no records to list", d.run.ID, d.run.Benchmark))
		return nil, l, nil, false
	}
	recs, err := s.taskRecords(r.Context(), d.run.ID, l)
	if err != nil {
		s.fail(w, 500, err)
		return nil, l, nil, false
	}
	return d, l, recs, true
}

// records is the list of a Task's records: a substring filter over every
// cell, an exact filter per column (?gold=…), sorting by any column,
// pages, and every filtered row as CSV or JSONL.
func (s *Server) records(w http.ResponseWriter, r *http.Request) {
	d, l, all, ok := s.listed(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	search := strings.ToLower(strings.TrimSpace(q.Get("q")))
	var match []taskRecord
	for _, rec := range all {
		keep := search == "" || strings.Contains(strings.ToLower(strings.Join(rec.Cells, "\x00")), search)
		for i, c := range l.Columns {
			if v := q.Get(c); v != "" && rec.Cells[i] != v {
				keep = false
			}
		}
		if keep {
			match = append(match, rec)
		}
	}
	keys := make([]view.SortKey[taskRecord], len(l.Columns))
	for i, c := range l.Columns {
		keys[i] = view.By(c, c, func(t taskRecord) string { return t.Cells[i] })
	}
	heads := view.SortRows(r, match, keys)
	if view.Export(w, r, fmt.Sprintf("run-%d-%s", d.run.ID, l.Title), append(append([]string(nil), l.Columns...), "call"), func(yield func([]string, any) bool) {
		for _, rec := range match {
			obj := map[string]string{"call": rec.CallKey}
			for i, c := range l.Columns {
				obj[c] = rec.Cells[i]
			}
			if !yield(append(append([]string(nil), rec.Cells...), rec.CallKey), obj) {
				return
			}
		}
	}) {
		return
	}
	pg := view.Paginate(r, len(match))
	s.render(w, "records.html", map[string]any{"Run": d.run, "Title": l.Title, "Rows": match[pg.From:pg.To], "Pager": pg, "Q": q.Get("q"), "Sort": heads,
		"Filters": columnFilters(r, l.Columns), "Matched": len(match), "Total": len(all)})
}

// columnFilter is an exact column filter in force (?gold=…), shown on the
// list with a link that lifts it, and kept by the search form.
type columnFilter struct {
	Column, Value string
	Lift          string // the list's URL without it
}

// columnFilters are the list's column filters in force, in column order.
func columnFilters(r *http.Request, columns []string) []columnFilter {
	q := r.URL.Query()
	var out []columnFilter
	for _, c := range columns {
		if v := q.Get(c); v != "" {
			lift := r.URL.Query()
			lift.Del(c)
			lift.Del("page")
			out = append(out, columnFilter{Column: c, Value: v, Lift: r.URL.Path + "?" + lift.Encode()})
		}
	}
	return out
}

// record is the page of one record of a Task's run: its cells, and the
// call it was made from — the messages as sent, the raw answer, tokens.
func (s *Server) record(w http.ResponseWriter, r *http.Request) {
	d, l, all, ok := s.listed(w, r)
	if !ok {
		return
	}
	key := r.PathValue("key")
	for _, rec := range all {
		if rec.Key != key {
			continue
		}
		data := map[string]any{"Run": d.run, "Title": l.Title, "Record": rec, "Columns": l.Columns}
		if rec.CallKey != "" {
			c, ok, err := s.st.GetCall(r.Context(), rec.CallKey)
			if err != nil {
				s.fail(w, 500, err)
				return
			}
			if ok {
				req, _ := requestOf(c) // a request that does not read shows no messages
				data["Call"], data["Request"] = c, req
			}
		}
		s.render(w, "record.html", data)
		return
	}
	s.fail(w, 404, fmt.Errorf("run %d has no %s record %q", d.run.ID, l.Title, key))
}
