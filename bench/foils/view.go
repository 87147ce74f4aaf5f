package foils

import (
	"cmp"
	"context"
	"embed"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/view"
)

//go:embed templates/*.html
var templates embed.FS

// Templates implements bench.Views: the run page, the items list and an
// item's page.
func (Task) Templates() fs.FS { return view.Templates(templates, "templates") }

// runView is an audit run for its pages: the first audit's detections.
type runView struct {
	run  store.Run
	dets []Detection
}

// View implements bench.Views: an audit's report (made again from its
// detections, or the one an older store kept), its items and their pages,
// its comparison with another audit, and its confusion chart linked to the
// items of each cell.
func (Task) View(ctx context.Context, env bench.Env, run store.Run) (*view.Run, error) {
	audits, err := LoadAudits(ctx, env.Records, run.ID)
	if err != nil {
		return nil, err
	}
	v := &runView{run: run, dets: audits[0].Detections}
	rep, _, err := ReportOf(audits)
	if err != nil {
		// The items can still be browsed: show the report an older store
		// kept, or say why there is none.
		if rep, err = auditFallback(audits[0], err); err != nil {
			return nil, err
		}
	}
	return &view.Run{Template: "foils.html", Report: rep, State: v, Compare: v.compare, Links: v.links,
		Pages: []view.Page{{Path: "items", Serve: v.items}, {Path: "items/{cond}/{item}", Serve: v.item}}}, nil
}

// links links a confusion cell to its test-set items.
func (v *runView) links(t *report.Table, c report.Chart) report.LinkFunc {
	if t.ID != "confusion" {
		return nil
	}
	return func(gold, pred string) string {
		cond := TestCondition
		if gold == None {
			cond = Native
		}
		q := url.Values{"cond": {cond}, "label": {gold}, "pred": {pred}}
		return fmt.Sprintf("/runs/%d/items?%s", v.run.ID, q.Encode())
	}
}

// items lists the audit's items: filters by condition, gold or source
// type, predicted label and a search of the texts; sorts; pages; every
// filtered item as CSV or JSONL.
func (v *runView) items(k view.Kit, w http.ResponseWriter, r *http.Request) {
	run := k.Run()
	q := r.URL.Query()
	cond := q.Get("cond")
	// The typed filters match a part of the label, in any case, as every
	// list's filters do ("authority" finds "appeal to authority").
	label, pred := strings.ToLower(strings.TrimSpace(q.Get("label"))), strings.ToLower(strings.TrimSpace(q.Get("pred")))
	search := strings.ToLower(strings.TrimSpace(q.Get("q")))
	var match []Detection
	for _, p := range v.dets {
		if cond != "" && p.Condition != cond {
			continue
		}
		if label != "" && !strings.Contains(strings.ToLower(p.Gold), label) && !strings.Contains(strings.ToLower(p.Source), label) {
			continue
		}
		if pred != "" && !strings.Contains(strings.ToLower(p.Pred), pred) {
			continue
		}
		if search != "" && !strings.Contains(strings.ToLower(p.Text), search) {
			continue
		}
		match = append(match, p)
	}
	heads := view.SortRows(r, match, itemSort)
	header := []string{"condition", "id", "gold", "source", "target", "pred", "text", "raw"}
	if view.Export(w, r, fmt.Sprintf("run-%d-items", run.ID), header, func(yield func([]string, any) bool) {
		for _, p := range match {
			if !yield([]string{p.Condition, p.ID, p.Gold, p.Source, p.Target, p.Pred, p.Text, p.Raw}, p) {
				return
			}
		}
	}) {
		return
	}
	pg := view.Paginate(r, len(match))
	k.Render(w, "items.html", map[string]any{"Run": run, "Rows": match[pg.From:pg.To], "Pager": pg, "Cond": cond, "Label": label,
		"Pred": pred, "Q": q.Get("q"), "Conds": []string{"native", "matched", "wrong_scheme", "test"}, "Sort": heads})
}

// itemVerdict says what the detector's label means for an item: on a
// fallacious test item, right or wrong; on a valid item (native none,
// matched or wrong-scheme foils), "none" is right and anything else a
// false positive — named when it is the item's source or new scheme.
func itemVerdict(p Detection) (string, bool) {
	switch {
	case p.Pred == "":
		return "the detector's answer could not be parsed", false
	case p.Condition == TestCondition && p.Pred == p.Gold:
		return "correct: the gold label", true
	case p.Condition == TestCondition:
		return "wrong: the gold label is " + p.Gold, false
	case p.Pred == None:
		return "correct: a valid argument called none", true
	case p.Source != "" && p.Pred == p.Source:
		return "false positive: called by its source scheme τ", false
	case p.Target != "" && p.Pred == p.Target:
		return "false positive: called by its new scheme τ′", false
	}
	return "false positive: a valid argument called " + p.Pred, false
}

// itemSort are the sortable columns of the items list.
var itemSort = []view.SortKey[Detection]{
	view.By("cond", "condition", func(p Detection) string { return p.Condition }),
	view.By("id", "id", func(p Detection) string { return p.ID }),
	view.By("gold", "gold / source → target", func(p Detection) string { return p.Gold + p.Source + "\x00" + p.Target }),
	view.By("pred", "predicted", func(p Detection) string { return p.Pred }),
	view.By("length", "text", func(p Detection) int { return len(p.Text) }),
}

// item is the page of one audited item: its text, gold label or scheme,
// the detector's label and its raw answer. /runs/ID/items/COND/ITEM_ID.
func (v *runView) item(k view.Kit, w http.ResponseWriter, r *http.Request) {
	run := k.Run()
	cond, id := r.PathValue("cond"), r.PathValue("item")
	for _, p := range v.dets {
		if p.Condition == cond && p.ID == id {
			verdict, right := itemVerdict(p)
			k.Render(w, "item.html", map[string]any{"Run": run, "Item": p, "Verdict": verdict, "Right": right})
			return
		}
	}
	k.Fail(w, 404, fmt.Errorf("run %d has no %s item %q", run.ID, cond, id))
}

// compare joins two audits on the item (condition and id) and compares
// the detectors' labels, per condition.
func (v *runView) compare(b *view.Run) ([]view.PairRow, []view.PairSummary, error) {
	o, ok := b.State.(*runView)
	if !ok {
		return nil, nil, fmt.Errorf("both runs must be %s audits", Definition.Title)
	}
	ds := [2]*runView{v, o}
	type key struct{ cond, id string }
	other := map[key]int{}
	for i, p := range ds[1].dets {
		other[key{p.Condition, p.ID}] = i
	}
	conds := []string{Native, Matched, WrongScheme, TestCondition}
	sum := make([]view.PairSummary, len(conds))
	right := make([][2]int, len(conds))
	for i, c := range conds {
		sum[i].Label = c
	}
	var rows []view.PairRow
	for _, a := range ds[0].dets {
		j, ok := other[key{a.Condition, a.ID}]
		if !ok {
			continue
		}
		b := ds[1].dets[j]
		pr := view.PairRow{ID: a.Condition + "/" + a.ID, Text: a.Text, Values: [2]string{a.Pred, b.Pred}, Gold: cmp.Or(a.Gold, a.Source), HasGold: true,
			Link: [2]string{fmt.Sprintf("/runs/%d/items/%s/%s", ds[0].run.ID, url.PathEscape(a.Condition), url.PathEscape(a.ID)), fmt.Sprintf("/runs/%d/items/%s/%s", ds[1].run.ID, url.PathEscape(b.Condition), url.PathEscape(b.ID))}}
		_, pr.Right[0] = itemVerdict(a)
		_, pr.Right[1] = itemVerdict(b)
		if a.Condition != TestCondition {
			pr.Gold = None
		}
		pr.Different = a.Pred != b.Pred
		ci := slices.Index(conds, a.Condition)
		if ci >= 0 {
			sum[ci].Both++
			if !pr.Different {
				sum[ci].Same++
			}
			for k := range 2 {
				if pr.Right[k] {
					right[ci][k]++
				}
			}
		}
		rows = append(rows, pr)
	}
	for i := range sum {
		if sum[i].Both > 0 {
			sum[i].A = fmt.Sprintf("%d right", right[i][0])
			sum[i].B = fmt.Sprintf("%d right", right[i][1])
		}
	}
	return rows, sum, nil
}

// auditFallback is the report of an audit whose measurements cannot be made
// again from its detections: the rendered report an older store kept, else
// a report that says why.
func auditFallback(a AuditRecord, why error) (*report.Report, error) {
	if len(a.Report) > 0 {
		rep, err := report.FromJSON(a.Report)
		if err == nil {
			rep.Benchmark = Definition.Name // an older store's report names it "schemefoils"
			AddCharts(rep)
			if rep.Table("flag_rates") != nil { // its headline, as audit's own reports name it
				rep.Headline = "flag_rates"
				for _, sec := range rep.Sections {
					if sec.Title == "Verdict" {
						rep.Lead = sec.Intro
					}
				}
			}
		}
		return rep, err
	}
	rep := &report.Report{Title: "Scheme Foils audit: " + a.Corpus + " — " + a.Detector, Benchmark: Definition.Name,
		Meta: [][2]string{{"corpus", a.Corpus}, {"detector", a.Detector}}}
	rep.AddSection("No measurements", "The audit's measurements cannot be made from its detections: "+why.Error()+". Its items can still be browsed.")
	return rep, nil
}
