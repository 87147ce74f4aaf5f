package web

import (
	"cmp"
	"context"
	"fmt"
	"github.com/fallacylab/fallacylab/view"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/bench/deflect"
)

// acrossCell is one model's answers to one claim × frame.
type acrossCell struct {
	Model string
	Gens  []genView
	Set   map[string]int // outcome field → how many of the answers have it
}

// across is the page of one DeflectBench claim × frame with every model's
// answers side by side, one column per model, one row per sample:
// /runs/ID/compare?claim=CLAIM_ID&frame=FRAME.
func (s *Server) across(w http.ResponseWriter, r *http.Request) {
	_, d, ok := s.runFrom(w, r)
	if !ok || !s.isBench(w, d, deflect.Definition.Name, "model comparison") {
		return
	}
	claim, frame := r.URL.Query().Get("claim"), r.URL.Query().Get("frame")
	byModel := map[string]*acrossCell{}
	var models []string
	var claimText string
	for _, row := range d.rows {
		if row.Gen.ClaimID != claim || deflect.FrameLabel(row.Gen) != frame {
			continue
		}
		claimText = row.Gen.ClaimText
		c := byModel[row.Gen.Model]
		if c == nil {
			c = &acrossCell{Model: row.Gen.Model, Set: map[string]int{}}
			byModel[row.Gen.Model] = c
			models = append(models, row.Gen.Model)
		}
		c.Gens = append(c.Gens, genView{Gen: row.Gen, Frame: frame, Disagree: row.Disagree()})
		for _, o := range outcomeFields {
			if v, ok := row.Value(o.Field); ok && v >= 0.5 {
				c.Set[o.Field]++
			}
		}
	}
	if len(models) == 0 {
		s.fail(w, 404, fmt.Errorf("run %d has no generation for claim %q under frame %q", d.run.ID, claim, frame))
		return
	}
	slices.Sort(models)
	// Rows: one per requested fallacy and sample; each holds every
	// model's answer to it (or nothing).
	type slot struct {
		fallacy string
		sample  int
	}
	var slots []slot
	seen := map[slot]bool{}
	var cells []*acrossCell
	for _, m := range models {
		c := byModel[m]
		cells = append(cells, c)
		for _, g := range c.Gens {
			if k := (slot{g.Gen.Fallacy, g.Gen.Run}); !seen[k] {
				seen[k] = true
				slots = append(slots, k)
			}
		}
	}
	slices.SortFunc(slots, func(a, b slot) int { return cmp.Or(cmp.Compare(a.fallacy, b.fallacy), cmp.Compare(a.sample, b.sample)) })
	type sampleRow struct {
		Label string
		Gens  []*genView
	}
	var samples []sampleRow
	for _, k := range slots {
		sr := sampleRow{Label: view.JoinNonEmpty(" · ", k.fallacy, fmt.Sprintf("sample %d", k.sample))}
		for _, c := range cells {
			var found *genView
			for i := range c.Gens {
				if c.Gens[i].Gen.Fallacy == k.fallacy && c.Gens[i].Gen.Run == k.sample {
					found = &c.Gens[i]
					break
				}
			}
			sr.Gens = append(sr.Gens, found)
		}
		samples = append(samples, sr)
	}
	// An outcome row is marked where the models do not all agree.
	type outcomeRow struct {
		Label, Field string
		Counts       []string
		Differ       bool
	}
	var outcomes []outcomeRow
	for _, o := range outcomeFields {
		or := outcomeRow{Label: o.Label, Field: o.Field}
		seen := map[float64]bool{}
		for _, c := range cells {
			or.Counts = append(or.Counts, fmt.Sprintf("%d of %d", c.Set[o.Field], len(c.Gens)))
			seen[float64(c.Set[o.Field])/float64(len(c.Gens))] = true
		}
		or.Differ = len(seen) > 1
		outcomes = append(outcomes, or)
	}
	s.render(w, "across.html", map[string]any{"Run": d.run, "Claim": claim, "ClaimText": claimText, "Frame": frame,
		"Cells": cells, "Samples": samples, "Outcomes": outcomes})
}

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
		if ds[i], err = s.load(r.Context(), id); err != nil {
			s.fail(w, 404, err)
			return
		}
	}
	if ds[0].run.Benchmark != ds[1].run.Benchmark {
		s.fail(w, 400, fmt.Errorf("run %d is a %s run and run %d a %s run: only runs of one benchmark compare", ds[0].run.ID, ds[0].run.Benchmark, ds[1].run.ID, ds[1].run.Benchmark))
		return
	}
	var rows []view.PairRow
	var sum []view.PairSummary
	switch ds[0].run.Benchmark {
	case deflect.Definition.Name:
		rows, sum = compareDeflect(ds)
	default:
		if t := ds[0].task; t != nil {
			if t.Compare == nil || ds[1].task == nil {
				s.fail(w, 400, fmt.Errorf("compare: %s runs do not compare", ds[0].run.Benchmark))
				return
			}
			var err error
			if rows, sum, err = t.Compare(ds[1].task); err != nil {
				s.fail(w, 400, fmt.Errorf("compare: %w", err))
				return
			}
			break
		}
		l, ok := listingOf(ds[0])
		if !ok || l.Compared == "" {
			s.fail(w, 400, fmt.Errorf("compare: %s runs have no records to compare", ds[0].run.Benchmark))
			return
		}
		var err error
		if rows, sum, err = s.compareTask(r.Context(), ds, l); err != nil {
			s.fail(w, 500, err)
			return
		}
	}
	shared := len(rows)
	var differ []view.PairRow
	for _, x := range rows {
		if x.Different || q.Get("all") == "1" {
			differ = append(differ, x)
		}
	}
	pg := view.Paginate(r, len(differ))
	s.render(w, "compare.html", map[string]any{"A": ds[0].run, "B": ds[1].run, "Shared": shared, "Summary": sum,
		"Rows": differ[pg.From:pg.To], "Pager": pg, "All": q.Get("all") == "1", "Differ": len(differ)})
}

// compareDeflect joins two DeflectBench runs on the generation (model,
// claim, prompt, sample) and compares the consensus of every field.
func compareDeflect(ds [2]*runData) ([]view.PairRow, []view.PairSummary) {
	type key struct {
		model, claim, prompt string
		sample               int
	}
	keyOf := func(g *deflect.Generation) key { return key{g.Model, g.ClaimID, g.PromptID, g.Run} }
	other := map[key]*deflect.Row{}
	for _, row := range ds[1].rows {
		other[keyOf(row.Gen)] = row
	}
	sum := make([]view.PairSummary, len(deflect.Fields))
	for i, f := range deflect.Fields {
		sum[i].Label = f
	}
	var rows []view.PairRow
	for _, a := range ds[0].rows {
		b := other[keyOf(a.Gen)]
		if b == nil {
			continue
		}
		pr := view.PairRow{ID: a.Gen.GenID, Text: a.Gen.Response,
			Link: [2]string{fmt.Sprintf("/runs/%d/generations/%s", ds[0].run.ID, url.PathEscape(a.Gen.GenID)), fmt.Sprintf("/runs/%d/generations/%s", ds[1].run.ID, url.PathEscape(b.Gen.GenID))}}
		var set [2][]string
		for i, f := range deflect.Fields {
			va, oka := a.Value(f)
			vb, okb := b.Value(f)
			if va >= 0.5 && oka {
				set[0] = append(set[0], f)
			}
			if vb >= 0.5 && okb {
				set[1] = append(set[1], f)
			}
			if !oka || !okb {
				continue
			}
			sum[i].Both++
			if va == vb {
				sum[i].Same++
			} else {
				pr.DiffFields = append(pr.DiffFields, f)
			}
		}
		pr.Different = len(pr.DiffFields) > 0
		for i := range 2 {
			pr.Values[i] = view.JoinNonEmpty(", ", set[i]...)
		}
		rows = append(rows, pr)
	}
	return rows, sum
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
