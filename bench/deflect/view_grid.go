package deflect

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/fallacylab/fallacylab/view"
)

// gridOutcomes are the exclusive outcomes a grid cell shows (SPEC B.5), in
// the order of its counts, with the class that colours them.
var gridOutcomes = []struct{ Key, Short, Label string }{
	{"refusal", "R", "refusal"}, {"soft_refusal", "S", "soft refusal"}, {"labeled_compliance", "L", "labelled compliance"},
	{"clean_compliance", "C", "clean compliance"}, {"other", "O", "other"},
}

// gridCell is one claim × model of the output grid: how many of the
// model's answers to the claim fell in each exclusive outcome, the most
// frequent one (its colour), and an answer to preview on hover.
type gridCell struct {
	Counts  []int
	N       int
	Top     string
	Preview string
	Link    string
}

// gridRow is one claim of the grid.
type gridRow struct {
	Claim, Text string
	Cells       []*gridCell
	Differ      bool // the models' most frequent outcomes differ
}

// gridData are the output grid's cells by claim and model, with the
// models, frames, levels and claims that make its axes and filters.
type gridData struct {
	models, frames, levels, claims []string
	texts                          map[string]string
	cells                          map[[2]string]*gridCell
}

// gridCells counts the answers of the frame and level asked for (""
// : all) by claim and model, by exclusive outcome; each cell links to its
// answers.
func (v *runView) gridCells(r *http.Request, frame, level string) gridData {
	d := gridData{texts: map[string]string{}, cells: map[[2]string]*gridCell{}}
	for _, row := range v.rows {
		g := row.Gen
		f, l := FrameLabel(g), strconv.Itoa(g.Level)
		if !slices.Contains(d.frames, f) {
			d.frames = append(d.frames, f)
		}
		if !slices.Contains(d.levels, l) {
			d.levels = append(d.levels, l)
		}
		if (frame != "" && f != frame) || (level != "" && l != level) {
			continue
		}
		if !slices.Contains(d.models, g.Model) {
			d.models = append(d.models, g.Model)
		}
		if _, ok := d.texts[g.ClaimID]; !ok {
			d.claims, d.texts[g.ClaimID] = append(d.claims, g.ClaimID), g.ClaimText
		}
		c := d.cells[[2]string{g.ClaimID, g.Model}]
		if c == nil {
			c = &gridCell{Counts: make([]int, len(gridOutcomes))}
			d.cells[[2]string{g.ClaimID, g.Model}] = c
			lq := r.URL.Query()
			lq.Del("differ")
			lq.Del("outcome")
			lq.Del("level")
			lq.Set("claim", g.ClaimID)
			lq.Set("model", g.Model)
			c.Link = fmt.Sprintf("/runs/%d/generations?%s", v.run.ID, lq.Encode())
		}
		ex := row.Exclusive()
		for i, o := range gridOutcomes {
			if o.Key == ex {
				c.Counts[i]++
			}
		}
		c.N++
		if c.Preview == "" {
			c.Preview = g.Response
		}
	}
	slices.Sort(d.models)
	slices.Sort(d.frames)
	slices.SortFunc(d.levels, func(a, b string) int { x, _ := strconv.Atoi(a); y, _ := strconv.Atoi(b); return x - y })
	slices.Sort(d.claims)
	return d
}

// rows are the grid's rows: each claim's cells with their most frequent
// outcome, those with an answer of outcome ("" : any) and, with differ,
// only the claims where the models part.
func (d gridData) rows(outcome string, differ bool) []gridRow {
	var rows []gridRow
	for _, cl := range d.claims {
		gr := gridRow{Claim: cl, Text: d.texts[cl]}
		tops := map[string]bool{}
		has := outcome == ""
		for _, m := range d.models {
			c := d.cells[[2]string{cl, m}]
			if c != nil {
				best := 0
				for i, n := range c.Counts {
					if n > c.Counts[best] {
						best = i
					}
					if outcome != "" && gridOutcomes[i].Key == outcome && n > 0 {
						has = true
					}
				}
				c.Top = gridOutcomes[best].Key
				tops[c.Top] = true
			}
			gr.Cells = append(gr.Cells, c)
		}
		gr.Differ = len(tops) > 1
		if !has || (differ && !gr.Differ) {
			continue
		}
		rows = append(rows, gr)
	}
	return rows
}

// grid is the output grid (as promptfoo's): rows are claims, columns are
// models, each cell the claim's answers by exclusive outcome, coloured by
// the most frequent, with an answer on hover, linking to the answers;
// filters on frame, claim level and outcome, and ?differ=1 for the claims
// where the models part.
func (v *runView) grid(k view.Kit, w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	frame, level, outcome, differ := q.Get("frame"), q.Get("level"), q.Get("outcome"), q.Get("differ") == "1"
	d := v.gridCells(r, frame, level)
	models, frames, levels := d.models, d.frames, d.levels
	rows := d.rows(outcome, differ)
	header := []string{"claim_id", "claim"}
	for _, m := range models {
		for _, o := range gridOutcomes {
			header = append(header, m+":"+o.Key)
		}
	}
	if view.Export(w, r, fmt.Sprintf("run-%d-grid", v.run.ID), header, func(yield func([]string, any) bool) {
		for _, gr := range rows {
			rec := []string{gr.Claim, gr.Text}
			counts := map[string]map[string]int{}
			for i, c := range gr.Cells {
				byOutcome := map[string]int{}
				for j, o := range gridOutcomes {
					n := 0
					if c != nil {
						n = c.Counts[j]
					}
					rec = append(rec, strconv.Itoa(n))
					byOutcome[o.Key] = n
				}
				counts[models[i]] = byOutcome
			}
			if !yield(rec, map[string]any{"claim_id": gr.Claim, "claim": gr.Text, "outcomes": counts}) {
				return
			}
		}
	}) {
		return
	}
	p := view.Paginate(r, len(rows))
	k.Render(w, "grid.html", map[string]any{"Run": k.Run(), "Models": models, "Rows": rows[p.From:p.To], "Pager": p,
		"Frames": frames, "Levels": levels, "Outcomes": gridOutcomes, "Frame": frame, "Level": level, "Outcome": outcome, "Differ": differ})
}

// diff puts two generations' answers side by side with what differs
// marked: removed from the first, added in the second (?a=GEN&b=GEN).
func (v *runView) diff(k view.Kit, w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var ga, gb *Generation
	for _, row := range v.rows {
		switch row.Gen.GenID {
		case q.Get("a"):
			ga = row.Gen
		case q.Get("b"):
			gb = row.Gen
		}
	}
	if ga == nil || gb == nil {
		k.Fail(w, 404, fmt.Errorf("run %d has no generations %q and %q to compare (?a=GEN&b=GEN)", v.run.ID, q.Get("a"), q.Get("b")))
		return
	}
	k.Render(w, "diff.html", map[string]any{"Run": k.Run(), "A": ga, "B": gb, "Frame": FrameLabel(ga), "Parts": view.Diff(ga.Response, gb.Response),
		"Same": ga.Response == gb.Response})
}
