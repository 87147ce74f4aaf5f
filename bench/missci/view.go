package missci

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/view"
)

//go:embed templates/*.html
var templates embed.FS

// Templates implements bench.Views: the run page, the arguments list and
// an argument's page.
func (Task) Templates() fs.FS { return view.Templates(templates, "templates") }

// runView is a reconstruction run joined with its gold arguments, for
// its pages.
type runView struct {
	run    store.Run
	args   []Argument
	preds  Predictions
	split  string
	source string            // model and template
	calls  map[string]string // line → call key
}

// View implements bench.Views: a reconstruction run's report (as `missci
// report` makes it at k = 1, its premises paired and scored by what its
// embedding and scoring phases stored: the viewer calls nothing), its
// arguments and their pages, and its comparison with another
// reconstruction run.
func (Task) View(ctx context.Context, env bench.Env, run store.Run) (*view.Run, error) {
	// A classification run's page is its report.
	if c, ok, err := LoadClassification(ctx, env.Records, run.ID); err != nil || ok {
		if err != nil {
			return nil, err
		}
		rep, err := c.Report()
		if err != nil {
			return nil, err
		}
		return &view.Run{Report: rep}, nil
	}
	m, err := LoadRecord(ctx, env.Records, run.ID)
	if err != nil {
		return nil, err
	}
	args, err := Load(m.Split)
	if err != nil {
		return nil, err
	}
	// A run of a subset shows the arguments it reconstructed (the report
	// says how many of the split's).
	v := &runView{run: run, args: Covered(args, m.Preds).Args, preds: m.Preds, split: m.Split, source: m.Source, calls: m.CallKeys}
	x, _, err := storedScorers(ctx, env.Records, run.ID)
	if err != nil {
		return nil, err
	}
	rep, err := ReconstructionReport(args, v.preds, 1, m.Split, m.Source, m.Unknown, x)
	if err != nil {
		return nil, err
	}
	// ?k=2…6 or all: the report at another cut-off (the run page links
	// them); k = 1 is the run page's own.
	variant := func(q url.Values) (*report.Report, bool, error) {
		ks := q.Get("k")
		if ks == "" || ks == "1" {
			return nil, false, nil
		}
		k, err := parseK(ks)
		if err != nil {
			return nil, false, err
		}
		rep, err := ReconstructionReport(args, v.preds, k, m.Split, m.Source, m.Unknown, x)
		return rep, err == nil, err
	}
	return &view.Run{Template: "missci.html", Report: rep, Variant: variant, State: v, Compare: v.compare,
		Pages: []view.Page{{Path: "arguments", Serve: v.arguments}, {Path: "arguments/{arg}", Serve: v.argument}}}, nil
}

type lineView struct {
	Line    Line
	Preds   []Prediction
	Correct bool
	Prompt  string // the request of the line's call (argument page only)
	Raw     string // the model's answer
	CallKey string // the call's cache key ("" : none stored)
}

type argView struct {
	Arg     Argument
	Lines   []lineView
	Hidden  int     // lines a filter leaves out
	Correct float64 // share of lines with a right top-1 class
}

// argLines is an argument with every line's ranked predictions and
// whether the top-1 class is one of the gold classes.
func (m *runView) argLines(a Argument) argView {
	av := argView{Arg: a}
	right := 0
	for _, l := range a.Lines {
		lv := lineView{Line: l, Preds: m.preds[l.ID]}
		if len(lv.Preds) > 0 {
			lv.Correct = slices.Contains(l.Classes(), lv.Preds[0].Class)
		}
		if lv.Correct {
			right++
		}
		av.Lines = append(av.Lines, lv)
	}
	if len(a.Lines) > 0 {
		av.Correct = float64(right) / float64(len(a.Lines))
	}
	return av
}

// argSort are the sortable columns of the arguments list.
var argSort = []view.SortKey[argView]{
	view.By("id", "id", func(a argView) string { return a.Arg.ID }),
	view.By("claim", "claim", func(a argView) string { return a.Arg.Claim }),
	view.By("lines", "lines", func(a argView) int { return len(a.Arg.Lines) }),
	view.By("correct", "share of lines right", func(a argView) float64 { return a.Correct }),
}

// arguments lists the run's arguments with every line's ranked
// predictions: filters by gold class, wrong top-1 and a search of claims;
// sorts; pages; every filtered line as CSV or JSONL.
func (m *runView) arguments(k view.Kit, w http.ResponseWriter, r *http.Request) {
	run := k.Run()
	q := r.URL.Query()
	class, wrong := q.Get("class"), q.Get("wrong") == "1"
	search := strings.ToLower(strings.TrimSpace(q.Get("q")))
	var match []argView
	for _, a := range m.args {
		if search != "" && !strings.Contains(strings.ToLower(a.Claim+" "+a.P0), search) {
			continue
		}
		av := m.argLines(a)
		// The lines the filters ask for; an argument with none is left out.
		kept := av.Lines[:0:0]
		for _, lv := range av.Lines {
			if (class == "" || slices.Contains(lv.Line.Classes(), class)) && (!wrong || !lv.Correct) {
				kept = append(kept, lv)
			}
		}
		if len(kept) == 0 {
			continue
		}
		av.Hidden, av.Lines = len(av.Lines)-len(kept), kept
		match = append(match, av)
	}
	heads := view.SortRows(r, match, argSort)
	header := []string{"argument_id", "line_id", "gold_classes", "gold_premises", "top1_class", "top1_premise", "top1_correct", "predictions"}
	if view.Export(w, r, fmt.Sprintf("run-%d-lines", run.ID), header, func(yield func([]string, any) bool) {
		for _, av := range match {
			for _, lv := range av.Lines {
				var premises []string
				for _, f := range lv.Line.Fallacies {
					premises = append(premises, f.Premise)
				}
				top := Prediction{}
				if len(lv.Preds) > 0 {
					top = lv.Preds[0]
				}
				preds, _ := json.Marshal(lv.Preds)
				rec := []string{av.Arg.ID, lv.Line.ID, strings.Join(lv.Line.Classes(), "; "), strings.Join(premises, " | "), top.Class, top.Premise, strconv.FormatBool(lv.Correct), string(preds)}
				obj := map[string]any{"argument_id": av.Arg.ID, "line_id": lv.Line.ID, "gold_classes": lv.Line.Classes(), "gold_premises": premises,
					"top1_correct": lv.Correct, "predictions": lv.Preds}
				if !yield(rec, obj) {
					return
				}
			}
		}
	}) {
		return
	}
	pg := view.Paginate(r, len(match))
	k.Render(w, "arguments.html", map[string]any{"Run": run, "Rows": match[pg.From:pg.To], "Pager": pg, "Class": class, "Wrong": wrong,
		"Q": q.Get("q"), "Classes": Classes, "Sort": heads})
}

// argument is the page of one Missci argument: the claim, p0 and every
// reasoning line with its gold premises, the model's ranked predictions,
// and the prompt and raw answer of the line's call. /runs/ID/arguments/ARG_ID.
func (m *runView) argument(k view.Kit, w http.ResponseWriter, r *http.Request) {
	run := k.Run()
	id := r.PathValue("arg")
	for _, a := range m.args {
		if a.ID != id {
			continue
		}
		av := m.argLines(a)
		for i, lv := range av.Lines {
			key := m.calls[lv.Line.ID]
			if key == "" {
				continue
			}
			prompt, raw, ok, err := k.Call(r.Context(), key)
			if err != nil {
				k.Fail(w, 500, err)
				return
			}
			if ok {
				av.Lines[i].Prompt, av.Lines[i].Raw, av.Lines[i].CallKey = prompt, raw, key
			}
		}
		k.Render(w, "argument.html", map[string]any{"Run": run, "A": av, "Source": m.source})
		return
	}
	k.Fail(w, 404, fmt.Errorf("run %d has no argument %q", run.ID, id))
}

// compare joins two reconstruction runs on the reasoning line and compares
// their top-1 classes.
func (m *runView) compare(other *view.Run) ([]view.PairRow, []view.PairSummary, error) {
	o, ok := other.State.(*runView)
	if !ok {
		return nil, nil, fmt.Errorf("both runs must be %s reconstruction runs", Definition.Title)
	}
	ds := [2]*runView{m, o}
	var rows []view.PairRow
	s := view.PairSummary{Label: "top-1 class"}
	right := [2]int{}
	for _, a := range ds[0].args {
		for _, l := range a.Lines {
			pa, pb := ds[0].preds[l.ID], ds[1].preds[l.ID]
			if pa == nil && pb == nil {
				continue
			}
			pr := view.PairRow{ID: l.ID, Text: a.Claim, Gold: view.JoinNonEmpty(", ", l.Classes()...), HasGold: true,
				Link: [2]string{fmt.Sprintf("/runs/%d/arguments/%s#%s", ds[0].run.ID, url.PathEscape(a.ID), url.PathEscape(l.ID)), fmt.Sprintf("/runs/%d/arguments/%s#%s", ds[1].run.ID, url.PathEscape(a.ID), url.PathEscape(l.ID))}}
			for k, p := range [][]Prediction{pa, pb} {
				if len(p) > 0 {
					pr.Values[k] = p[0].Class
					pr.Right[k] = slices.Contains(l.Classes(), p[0].Class)
				}
				if pr.Right[k] {
					right[k]++
				}
			}
			pr.Different = pr.Values[0] != pr.Values[1]
			s.Both++
			if !pr.Different {
				s.Same++
			}
			rows = append(rows, pr)
		}
	}
	if s.Both > 0 {
		s.A = fmt.Sprintf("%d right (%.1f %%)", right[0], 100*float64(right[0])/float64(s.Both))
		s.B = fmt.Sprintf("%d right (%.1f %%)", right[1], 100*float64(right[1])/float64(s.Both))
	}
	return rows, []view.PairSummary{s}, nil
}
