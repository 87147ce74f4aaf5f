package deflect

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/fallacylab/fallacylab/view"
)

type judgeView struct {
	Judge     string
	Flags     []string // fields set to 1
	Missing   []string // fields the judge left invalid
	Reasoning string
	Parsed    bool
}

type genView struct {
	Gen      *Generation
	Frame    string
	Judges   []judgeView
	Disagree bool
}

// generations lists the run's analysed generations: filters by model,
// frame, claim, outcome, judge disagreement and text; sorts; pages; every
// filtered generation as CSV or JSONL.
func (v *runView) generations(k view.Kit, w http.ResponseWriter, r *http.Request) {
	if !v.loaded() {
		// A plain page of a run not read yet answers from the store
		// while the records are read.
		go v.ready()
		if v.preview(k, w, r) {
			return
		}
	}
	if err := v.ready(); err != nil {
		k.Fail(w, http.StatusInternalServerError, err)
		return
	}
	match := v.filter(r.URL.Query())
	heads := view.SortRows(r, match, genSort)
	if v.export(w, r, match) {
		return
	}
	p := view.Paginate(r, len(match))
	renderGenerations(k, w, r, match[p.From:p.To], v.evals, v.judges, p, heads)
}

// genSort are the sortable columns of the generations list.
var genSort = []view.SortKey[*Row]{
	view.By("id", "id", func(r *Row) string { return r.Gen.GenID }),
	view.By("model", "model", func(r *Row) string { return r.Gen.Model }),
	view.By("frame", "frame", func(r *Row) string { return FrameLabel(r.Gen) }),
	view.By("claim", "claim", func(r *Row) string { return r.Gen.ClaimID }),
	view.By("length", "answer length", func(r *Row) int { return len(r.Gen.Response) }),
	view.By("disagree", "disagreement", func(r *Row) int {
		if r.Disagree() {
			return 1
		}
		return 0
	}),
}

// filter is the generations a list's filters keep: model and frame
// (substring, or exact for the run's own value), an outcome set, judge
// disagreement, and text in the answer or prompt.
func (v *runView) filter(q url.Values) []*Row {
	model, frame, outcome := q.Get("model"), q.Get("frame"), q.Get("outcome")
	disagree := q.Get("disagree") == "1"
	search := strings.ToLower(strings.TrimSpace(q.Get("q")))
	claim := q.Get("claim")
	byModel := filterMatch(v.rows, func(r *Row) string { return r.Gen.Model }, model)
	byFrame := filterMatch(v.rows, func(r *Row) string { return FrameLabel(r.Gen) }, frame)
	byClaim := filterMatch(v.rows, func(r *Row) string { return r.Gen.ClaimID + " " + r.Gen.ClaimText }, claim)
	if claim != "" {
		for _, r := range v.rows {
			if r.Gen.ClaimID == claim { // a claim id from a link: that claim only
				byClaim = func(r *Row) bool { return r.Gen.ClaimID == claim }
				break
			}
		}
	}
	var match []*Row
	for _, row := range v.rows {
		if !byModel(row) || !byFrame(row) || !byClaim(row) {
			continue
		}
		if outcome != "" {
			if x, ok := row.Value(outcome); !ok || x < 0.5 {
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

// export answers ?export=csv|jsonl with every filtered generation: its
// identity, the answer, and the consensus of each field.
func (v *runView) export(w http.ResponseWriter, r *http.Request, rows []*Row) bool {
	header := []string{"gen_id", "model", "frame", "claim_id", "claim", "requested_fallacy", "prompt_id", "sample", "response", "judges_disagree"}
	header = append(header, Fields...)
	return view.Export(w, r, fmt.Sprintf("run-%d-generations", v.run.ID), header, func(yield func([]string, any) bool) {
		for _, row := range rows {
			g := row.Gen
			rec := []string{g.GenID, g.Model, FrameLabel(g), g.ClaimID, g.ClaimText, g.Fallacy, g.PromptID, strconv.Itoa(g.Run), g.Response, strconv.FormatBool(row.Disagree())}
			cons := map[string]any{}
			for _, f := range Fields {
				x, ok := row.Value(f)
				if !ok {
					rec = append(rec, "")
					cons[f] = nil
					continue
				}
				rec = append(rec, strconv.FormatFloat(x, 'g', -1, 64))
				cons[f] = x
			}
			obj := map[string]any{"gen_id": g.GenID, "model": g.Model, "frame": FrameLabel(g), "claim_id": g.ClaimID, "claim": g.ClaimText,
				"requested_fallacy": g.Fallacy, "prompt_id": g.PromptID, "sample": g.Run, "prompt": g.PromptText, "response": g.Response,
				"judges_disagree": row.Disagree(), "consensus": cons}
			if !yield(rec, obj) {
				return
			}
		}
	})
}

// renderGenerations renders one page of generations with their judges.
func renderGenerations(k view.Kit, w http.ResponseWriter, r *http.Request, rows []*Row,
	evals map[string]map[string]Eval, judges []string, p view.Pager, heads []view.SortHead) {
	q := r.URL.Query()
	var views []genView
	for _, row := range rows {
		v := genView{Gen: row.Gen, Frame: FrameLabel(row.Gen), Disagree: row.Disagree()}
		for _, j := range judges {
			e, ok := evals[row.Gen.GenID][j]
			jv := judgeView{Judge: j, Parsed: ok && e.ParseError == 0}
			if ok {
				jv.Reasoning = e.Reasoning
				for _, f := range Fields {
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
	k.Render(w, "generations.html", map[string]any{"Run": k.Run(), "Rows": views, "Pager": p, "Model": q.Get("model"), "Frame": q.Get("frame"),
		"Outcome": q.Get("outcome"), "Disagree": q.Get("disagree") == "1", "Q": q.Get("q"), "Claim": q.Get("claim"), "Outcomes": viewOutcomes, "Sort": heads})
}

// fieldView is one rubric field across the judges of one generation.
type fieldView struct {
	Field     string
	Values    []string // per judge: 1, 0, −1 (invalid) or "" (no parsed row)
	Disagree  bool     // two judges gave different valid values
	Consensus string
}

// judgeRecord is one judge's full answer to one generation.
type judgeRecord struct {
	Judge     string
	Parsed    bool
	Reasoning string
	Raw       string
	Flag      bool   // consistency flag (refusal and a fallacy at once)
	CallKey   string // the judge call's cache key ("" : imported)
}

// generation is the page of one generation: the prompt, the whole answer,
// each judge's raw answer and reasoning, and the rubric fields side by side
// with the ones where the judges disagree marked. Its URL is permanent:
// /runs/ID/generations/GEN_ID.
func (v *runView) generation(k view.Kit, w http.ResponseWriter, r *http.Request) {
	genID := r.PathValue("gen")
	var row *Row
	for _, x := range v.rows {
		if x.Gen.GenID == genID {
			row = x
			break
		}
	}
	if row == nil {
		k.Fail(w, 404, fmt.Errorf("run %d has no analysed generation %q", v.run.ID, genID))
		return
	}
	var judges []judgeRecord
	for _, j := range v.judges {
		e, ok := v.evals[genID][j]
		jr := judgeRecord{Judge: j, Parsed: ok && e.ParseError == 0}
		if ok {
			jr.Reasoning, jr.Raw, jr.Flag, jr.CallKey = e.Reasoning, e.RawJudgeResponse, e.ConsistencyFlag != 0, e.CallKey
		}
		judges = append(judges, jr)
	}
	var fields []fieldView
	for _, f := range Fields {
		fv := fieldView{Field: f}
		seen := map[int]bool{}
		for _, j := range v.judges {
			e, ok := v.evals[genID][j]
			switch {
			case !ok || e.ParseError != 0:
				fv.Values = append(fv.Values, "")
			default:
				x := e.Scores.Get(f)
				fv.Values = append(fv.Values, fmt.Sprint(x))
				if x != -1 {
					seen[x] = true
				}
			}
		}
		fv.Disagree = len(seen) > 1
		if x, ok := row.Value(f); ok {
			fv.Consensus = fmt.Sprintf("%g", x)
		}
		fields = append(fields, fv)
	}
	k.Render(w, "generation.html", map[string]any{"Run": k.Run(), "Gen": row.Gen, "Frame": FrameLabel(row.Gen),
		"Judges": judges, "Fields": fields, "JudgeNames": v.judges, "Disagree": row.Disagree()})
}

// acrossCell is one model's answers to one claim × frame.
type acrossCell struct {
	Model string
	Gens  []genView
	Set   map[string]int // outcome field → how many of the answers have it
}

// across is the page of one claim × frame with every model's answers side
// by side, one column per model, one row per sample:
// /runs/ID/compare?claim=CLAIM_ID&frame=FRAME.
func (v *runView) across(k view.Kit, w http.ResponseWriter, r *http.Request) {
	claim, frame := r.URL.Query().Get("claim"), r.URL.Query().Get("frame")
	byModel := map[string]*acrossCell{}
	var models []string
	var claimText string
	for _, row := range v.rows {
		if row.Gen.ClaimID != claim || FrameLabel(row.Gen) != frame {
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
		for _, o := range viewOutcomes {
			if x, ok := row.Value(o.Field); ok && x >= 0.5 {
				c.Set[o.Field]++
			}
		}
	}
	if len(models) == 0 {
		k.Fail(w, 404, fmt.Errorf("run %d has no generation for claim %q under frame %q", v.run.ID, claim, frame))
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
			if s := (slot{g.Gen.Fallacy, g.Gen.Run}); !seen[s] {
				seen[s] = true
				slots = append(slots, s)
			}
		}
	}
	slices.SortFunc(slots, func(a, b slot) int { return cmp.Or(cmp.Compare(a.fallacy, b.fallacy), cmp.Compare(a.sample, b.sample)) })
	type sampleRow struct {
		Label string
		Gens  []*genView
		First *genView // the first model's answer, which the others diff with
	}
	var samples []sampleRow
	for _, s := range slots {
		sr := sampleRow{Label: view.JoinNonEmpty(" · ", s.fallacy, fmt.Sprintf("sample %d", s.sample))}
		for _, c := range cells {
			var found *genView
			for i := range c.Gens {
				if c.Gens[i].Gen.Fallacy == s.fallacy && c.Gens[i].Gen.Run == s.sample {
					found = &c.Gens[i]
					break
				}
			}
			sr.Gens = append(sr.Gens, found)
			if sr.First == nil {
				sr.First = found
			}
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
	for _, o := range viewOutcomes {
		or := outcomeRow{Label: o.Label, Field: o.Field}
		seen := map[float64]bool{}
		for _, c := range cells {
			or.Counts = append(or.Counts, fmt.Sprintf("%d of %d", c.Set[o.Field], len(c.Gens)))
			seen[float64(c.Set[o.Field])/float64(len(c.Gens))] = true
		}
		or.Differ = len(seen) > 1
		outcomes = append(outcomes, or)
	}
	k.Render(w, "across.html", map[string]any{"Run": k.Run(), "Claim": claim, "ClaimText": claimText, "Frame": frame,
		"Cells": cells, "Samples": samples, "Outcomes": outcomes})
}

// compare joins the run (a) with another DeflectBench run (b) on the
// generation (model, claim, prompt, sample) and compares the consensus of
// every field.
func (v *runView) compare(other *view.Run) ([]view.PairRow, []view.PairSummary, error) {
	b, ok := other.State.(*runView)
	if !ok {
		return nil, nil, fmt.Errorf("run %d is not a %s run", v.run.ID, Definition.Title)
	}
	if err := errors.Join(v.ready(), b.ready()); err != nil {
		return nil, nil, err
	}
	type key struct {
		model, claim, prompt string
		sample               int
	}
	keyOf := func(g *Generation) key { return key{g.Model, g.ClaimID, g.PromptID, g.Run} }
	theirs := map[key]*Row{}
	for _, row := range b.rows {
		theirs[keyOf(row.Gen)] = row
	}
	// The first line names each run's judge panel (two panels on one
	// run's generations is what this comparison is most often for).
	sum := make([]view.PairSummary, len(Fields)+1)
	sum[0] = view.PairSummary{Label: "judges", A: strings.Join(v.judges, ", "), B: strings.Join(b.judges, ", ")}
	for i, f := range Fields {
		sum[i+1].Label = f
	}
	var rows []view.PairRow
	for _, a := range v.rows {
		o := theirs[keyOf(a.Gen)]
		if o == nil {
			continue
		}
		pr := view.PairRow{ID: a.Gen.GenID, Text: a.Gen.Response,
			Link: [2]string{fmt.Sprintf("/runs/%d/generations/%s", v.run.ID, url.PathEscape(a.Gen.GenID)), fmt.Sprintf("/runs/%d/generations/%s", b.run.ID, url.PathEscape(o.Gen.GenID))}}
		var set [2][]string
		for i, f := range Fields {
			va, oka := a.Value(f)
			vb, okb := o.Value(f)
			if va >= 0.5 && oka {
				set[0] = append(set[0], f)
			}
			if vb >= 0.5 && okb {
				set[1] = append(set[1], f)
			}
			if !oka || !okb {
				continue
			}
			sum[i+1].Both++
			if va == vb {
				sum[i+1].Same++
			} else {
				pr.DiffFields = append(pr.DiffFields, f)
			}
		}
		pr.Different = len(pr.DiffFields) > 0
		for i := range 2 {
			pr.Values[i] = cmp.Or(view.JoinNonEmpty(", ", set[i]...), "no field set")
		}
		rows = append(rows, pr)
	}
	return rows, sum, nil
}
