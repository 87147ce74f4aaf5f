package web

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/fallacylab/fallacylab/compare"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/view"

	"github.com/fallacylab/fallacylab/bench"
)

// compare is two runs of one benchmark side by side on the items they
// share — two detectors on one corpus, two Missci templates or models, two
// judge panels on the same generations — with the items where they differ
// listed and marked: /compare?a=ID&b=ID.
func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var ds [2]*runData
	for i, k := range []string{"a", "b"} {
		id, err := strconv.ParseInt(q.Get(k), 10, 64)
		if err != nil || id <= 0 {
			s.fail(w, 400, fmt.Errorf("compare: %s=%q is not a run id (use /compare?a=ID&b=ID)", k, q.Get(k)))
			return
		}
		if i == 1 && ds[0] != nil && id == ds[0].run.ID {
			s.fail(w, 400, fmt.Errorf("compare: a and b are both run %d: compare two runs (a run with itself differs nowhere)", id))
			return
		}
		if ds[i], err = s.load(r.Context(), id); err != nil {
			s.fail(w, 404, err)
			return
		}
	}
	if ds[0].run.Benchmark != ds[1].run.Benchmark {
		// An imported log of a fallacylab run compares with that
		// benchmark's runs: paired, not listed item by item.
		as0, err0 := bench.ComparedAs(r.Context(), s.taskEnv(), ds[0].run)
		as1, err1 := bench.ComparedAs(r.Context(), s.taskEnv(), ds[1].run)
		if err := errors.Join(err0, err1); err != nil || as0 != as1 || r.URL.Query().Get("export") != "" {
			s.fail(w, 400, fmt.Errorf("run %d is a %s run and run %d a %s run: only runs of one benchmark compare", ds[0].run.ID, ds[0].run.Benchmark, ds[1].run.ID, ds[1].run.Benchmark))
			return
		}
		s.pairedOnly(w, r, ds, fmt.Sprintf("one run is an imported log of a %s run: the two are not listed item by item side by side", bench.Title(as0)))
		return
	}
	rows, sum, code, err := s.pairs(r.Context(), ds)
	if err != nil {
		t, _ := bench.TaskOf(ds[0].run.Benchmark)
		if _, can := t.(bench.Compares); !can || code != http.StatusBadRequest || r.URL.Query().Get("export") != "" {
			s.fail(w, code, err)
			return
		}
		// No items side by side (MissciPlus's rankings), but the paired
		// comparison `fallacylab compare` makes: the page shows that.
		s.pairedOnly(w, r, ds, fmt.Sprintf("%s runs are not listed item by item side by side", bench.Title(ds[0].run.Benchmark)))
		return
	}
	if exportPairs(w, r, ds, rows) {
		return
	}
	shared := len(rows)
	var differ []view.PairRow
	for _, x := range rows {
		if x.Different || q.Get("all") == "1" {
			differ = append(differ, x)
		}
	}
	pg := view.Paginate(r, len(differ))
	paired, note := s.paired(r.Context(), ds)
	s.render(w, "compare.html", map[string]any{"A": ds[0].run, "B": ds[1].run, "Shared": shared, "Summary": sum,
		"Rows": differ[pg.From:pg.To], "Pager": pg, "All": q.Get("all") == "1", "Differ": len(differ), "Paired": paired, "PairedNote": note})
}

// pairedOnly is the page of two runs with their paired comparison alone,
// why (items) it lists no items side by side.
func (s *Server) pairedOnly(w http.ResponseWriter, r *http.Request, ds [2]*runData, items string) {
	paired, note := s.paired(r.Context(), ds)
	if paired != "" {
		items += "; their paired comparison:"
	}
	s.render(w, "compare.html", map[string]any{"A": ds[0].run, "B": ds[1].run, "Paired": paired, "PairedNote": note, "ItemsNote": items})
}

// exportPairs answers ?export=csv|jsonl with every shared item of the
// comparison (all=1 or not): its id, text, gold, each run's value, whether
// each is right, and where they differ.
func exportPairs(w http.ResponseWriter, r *http.Request, ds [2]*runData, rows []view.PairRow) bool {
	a, b := strconv.FormatInt(ds[0].run.ID, 10), strconv.FormatInt(ds[1].run.ID, 10)
	header := []string{"item", "text", "gold", "run_" + a, "run_" + b, "right_" + a, "right_" + b, "different", "differs_on"}
	return view.Export(w, r, fmt.Sprintf("compare-%s-%s", a, b), header, func(yield func([]string, any) bool) {
		for _, x := range rows {
			right := [2]string{}
			if x.HasGold {
				right = [2]string{strconv.FormatBool(x.Right[0]), strconv.FormatBool(x.Right[1])}
			}
			rec := []string{x.ID, x.Text, x.Gold, x.Values[0], x.Values[1], right[0], right[1], strconv.FormatBool(x.Different), strings.Join(x.DiffFields, " ")}
			obj := map[string]any{"item": x.ID, "text": x.Text, "run_" + a: x.Values[0], "run_" + b: x.Values[1], "different": x.Different, "differs_on": x.DiffFields}
			if x.HasGold {
				obj["gold"], obj["right_"+a], obj["right_"+b] = x.Gold, x.Right[0], x.Right[1]
			}
			if !yield(rec, obj) {
				return
			}
		}
	})
}

// pairs compares two loaded runs of one benchmark: with the Task's own
// comparison when its pages have one, else on the records its Listing
// lists; code is the status of an error.
func (s *Server) pairs(ctx context.Context, ds [2]*runData) ([]view.PairRow, []view.PairSummary, int, error) {
	if t := ds[0].task; t != nil {
		if t.Compare == nil || ds[1].task == nil {
			return nil, nil, 400, fmt.Errorf("compare: %s runs do not compare", ds[0].run.Benchmark)
		}
		rows, sum, err := t.Compare(ds[1].task)
		if err != nil {
			return nil, nil, 400, fmt.Errorf("compare: %w", err)
		}
		return rows, sum, 0, nil
	}
	l, ok := listingOf(ds[0])
	if !ok || l.Compared == "" {
		return nil, nil, 400, fmt.Errorf("compare: %s runs have no records to compare", ds[0].run.Benchmark)
	}
	rows, sum, err := s.compareTask(ctx, ds, l)
	return rows, sum, 500, err
}

// compareTask joins two runs of a Task that lists its records on the
// record's key and compares the column its Listing names, against the gold
// column when it has one.
func (s *Server) compareTask(ctx context.Context, ds [2]*runData, l bench.Listing) ([]view.PairRow, []view.PairSummary, error) {
	col, gold := slices.Index(l.Columns, l.Compared), slices.Index(l.Columns, l.Gold)
	text := slices.Index(l.Columns, "text") // shown beside the values, when the listing has it
	if col < 0 {
		return nil, nil, fmt.Errorf("compare: %s's listing has no column %q", ds[0].run.Benchmark, l.Compared)
	}
	var recs [2][]taskRecord
	for i := range 2 {
		var err error
		if recs[i], err = s.taskRecords(ctx, ds[i].run.ID, l); err != nil {
			return nil, nil, err
		}
	}
	other := map[string]taskRecord{}
	for _, b := range recs[1] {
		other[b.Key] = b
	}
	sum := view.PairSummary{Label: l.Title}
	var right [2]int
	var rows []view.PairRow
	for _, a := range recs[0] {
		b, ok := other[a.Key]
		if !ok {
			continue
		}
		pr := view.PairRow{ID: a.Key, Values: [2]string{a.Cells[col], b.Cells[col]}, Different: a.Cells[col] != b.Cells[col],
			Link: [2]string{fmt.Sprintf("/runs/%d/records/%s", ds[0].run.ID, url.PathEscape(a.Key)), fmt.Sprintf("/runs/%d/records/%s", ds[1].run.ID, url.PathEscape(b.Key))}}
		if text >= 0 {
			pr.Text = a.Cells[text]
		}
		if gold >= 0 {
			pr.Gold, pr.HasGold = a.Cells[gold], true
			pr.Right = [2]bool{a.Cells[col] == a.Cells[gold], b.Cells[col] == b.Cells[gold]}
			for k := range 2 {
				if pr.Right[k] {
					right[k]++
				}
			}
		}
		sum.Both++
		if !pr.Different {
			sum.Same++
		}
		rows = append(rows, pr)
	}
	if gold >= 0 && sum.Both > 0 {
		sum.A, sum.B = fmt.Sprintf("%d right", right[0]), fmt.Sprintf("%d right", right[1])
	}
	return rows, []view.PairSummary{sum}, nil
}

// paired is the paired comparison of the two runs (bench.Compares, as
// `fallacylab compare` makes it): their one arm each, or each model both
// runs have; note says why there is none.
func (s *Server) paired(ctx context.Context, ds [2]*runData) (template.HTML, string) {
	var arms [2][]bench.Arm
	for i, d := range ds {
		t, ok := bench.TaskOf(d.run.Benchmark)
		c, can := t.(bench.Compares)
		if !ok || !can {
			return "", fmt.Sprintf("%s runs have no paired comparison yet", bench.Title(d.run.Benchmark))
		}
		a, err := c.Arms(ctx, s.taskEnv(), d.run)
		if err != nil {
			return "", fmt.Sprintf("run %d: %v", d.run.ID, err)
		}
		arms[i] = a
	}
	if len(arms[0]) > 0 && len(arms[1]) > 0 && !bench.SameDesign(arms[0][0].Design, arms[1][0].Design) {
		return "", fmt.Sprintf("run %d is a run of %s and run %d of %s: their figures measure different things", ds[0].run.ID, arms[0][0].Design, ds[1].run.ID, arms[1][0].Design)
	}
	var pairs []compare.Pair
	o := compare.Options{Resamples: 1000, Seed: 20260101}
	if s.Resamples > 0 {
		o.Resamples = s.Resamples
	}
	label := func(id int64, a bench.Arm, several bool) string {
		if several {
			return fmt.Sprintf("run %d:%s", id, a.Model)
		}
		if a.Model != "" {
			return fmt.Sprintf("run %d (%s)", id, a.Model)
		}
		return fmt.Sprintf("run %d", id)
	}
	several := len(arms[0]) > 1 || len(arms[1]) > 1
	for _, a := range arms[0] {
		for _, b := range arms[1] {
			if several && a.Model != b.Model {
				continue
			}
			ps, err := compare.Compare([]compare.Arm{{Label: label(ds[0].run.ID, a, several), Metrics: a.Metrics}, {Label: label(ds[1].run.ID, b, several), Metrics: b.Metrics}}, o)
			if err != nil {
				return "", err.Error()
			}
			pairs = append(pairs, ps...)
		}
	}
	if len(pairs) == 0 {
		return "", "the two runs share no model: compare two models with fallacylab compare A:MODEL B:MODEL"
	}
	rep := compare.Report("", ds[0].run.Benchmark, pairs, o)
	h, err := report.SectionsHTML(rep, nil)
	if err != nil {
		return "", err.Error()
	}
	// The verdicts first: the table's last column, off the screen of a
	// laptop where the table scrolls.
	h = verdictList(pairs) + h
	// The report's warnings on how to read its intervals, which the page
	// shows without the report's meta.
	for _, m := range slices.Backward(rep.Meta) {
		if m[0] == "few clusters" || m[0] == "point intervals" {
			h = template.HTML(`<p class="note">`+template.HTMLEscapeString(m[1])+`</p>`) + h
		}
	}
	sorted := func(a []bench.Arm) []string { return slices.Sorted(slices.Values(a[0].Judges)) }
	if note := bench.PanelsNote(map[int64][]string{ds[0].run.ID: sorted(arms[0]), ds[1].run.ID: sorted(arms[1])}); note != "" {
		h = template.HTML(`<p class="note">`+template.HTMLEscapeString(note)+`</p>`) + h
	}
	return h, ""
}

// verdictList is what each pair's comparison concludes, as a list the page
// shows above the table: the metric, the arms, A − B with its interval,
// and the verdict (escaped: arm labels carry model names).
func verdictList(pairs []compare.Pair) template.HTML {
	var b strings.Builder
	b.WriteString(`<ul class="verdicts">`)
	for _, p := range pairs {
		diff := fmt.Sprintf("%.3f [%.3f, %.3f]", p.Diff, p.DiffLo, p.DiffHi)
		if p.Binary {
			diff = fmt.Sprintf("%+.1f points [%+.1f, %+.1f]", 100*p.Diff, 100*p.DiffLo, 100*p.DiffHi)
		}
		fmt.Fprintf(&b, "<li><b>%s</b>, %s − %s: %s — %s</li>", template.HTMLEscapeString(p.Metric), template.HTMLEscapeString(p.A),
			template.HTMLEscapeString(p.B), diff, template.HTMLEscapeString(p.Verdict))
	}
	b.WriteString("</ul>")
	return template.HTML(b.String())
}
