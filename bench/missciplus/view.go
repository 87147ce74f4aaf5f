package missciplus

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"math"
	"net/http"
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

// Templates implements bench.Views: the arguments list and an argument's
// page (the run page is the viewer's own, with the run's report).
func (Task) Templates() fs.FS { return view.Templates(templates, "templates") }

// runView is a run joined with its arguments, for its pages.
type runView struct {
	setup    Setup
	args     []Argument
	rankings [][]Ranking
	preds    map[string]ArgumentPrediction
}

// View implements bench.Views: the run's report, and each argument's
// study passages — in the run's ranking, or as the prompts gave them —
// with the gold mapping marked: the passages (and sentences) that state
// p0 and those the fallacies rest on.
func (Task) View(ctx context.Context, env bench.Env, run store.Run) (*view.Run, error) {
	setup, rankings, err := LoadRun(ctx, env.Records, run.ID)
	if err != nil {
		return nil, err
	}
	_, chosen, err := setup.Arguments()
	if err != nil {
		return nil, err
	}
	v := &runView{setup: setup, args: chosen, rankings: rankings, preds: map[string]ArgumentPrediction{}}
	ro := ReportOptions{Resamples: 1000, Seed: 20260101, Level: 0.95}
	if env.Resamples > 0 {
		ro.Resamples = env.Resamples
	}
	var rep *report.Report
	if setup.Subtask == 3 {
		preds, err := LoadReconstructions(ctx, env.Records, run.ID)
		if err != nil {
			return nil, err
		}
		for _, p := range preds {
			v.preds[p.Argument] = p
		}
		rep, err = reconstructionRunReport(ctx, env.Records, run.ID, setup, ro)
	} else {
		rep, err = Report(setup, rankings, ro)
	}
	if err != nil {
		return nil, err
	}
	return &view.Run{Report: rep, State: v,
		Pages: []view.Page{{Path: "arguments", Serve: v.arguments, Title: "Every argument with its study's passages, the gold ones marked"}, {Path: "arguments/{arg}", Serve: v.argument}}}, nil
}

// groupLabel names ranking group g (a seed, an iteration, or the one).
func (v *runView) groupLabel(g int) string {
	switch {
	case v.setup.Iterations > 0:
		return fmt.Sprintf("after %d iterations", g+1)
	case len(v.setup.Seeds) > 0:
		return fmt.Sprintf("seed %d", v.setup.Seeds[g])
	}
	return v.setup.Ranker
}

// ranked is argument id's ranking in group g (nil: none).
func (v *runView) ranked(g int, id string) []string {
	if g < 0 || g >= len(v.rankings) {
		return nil
	}
	for _, r := range v.rankings[g] {
		if r.ID == id {
			return r.Ranked
		}
	}
	return nil
}

// gold are the passages the run's subtask counts as right.
func (v *runView) gold(a Argument) map[string]bool {
	if v.setup.Subtask == 1 {
		g := map[string]bool{}
		for _, id := range a.P0Passages() {
			g[id] = true
		}
		return g
	}
	return a.FallacyPassages()
}

// argumentRow is one argument of the arguments list.
type argumentRow struct {
	ID, Claim, Rank string
	Hit             bool
	order           int // Rank as a number to sort by ("—": after every rank)
}

// arguments is the list of the run's arguments: a search over id and
// claim (?q=), right or wrong at the first rank or alignment (?hit=yes|no),
// sorting by any column, pages, and every filtered row as CSV or JSONL.
func (v *runView) arguments(k view.Kit, w http.ResponseWriter, r *http.Request) {
	head := "first right passage at (the first ranking)"
	if v.setup.Subtask == 3 {
		head = "gold fallacies aligned"
	}
	q := r.URL.Query()
	search, hit := strings.ToLower(strings.TrimSpace(q.Get("q"))), q.Get("hit")
	var rows []argumentRow
	for _, a := range v.args {
		rw := v.argumentRow(a)
		if search != "" && !strings.Contains(strings.ToLower(rw.ID+"\x00"+rw.Claim), search) || hit == "yes" && !rw.Hit || hit == "no" && rw.Hit {
			continue
		}
		rows = append(rows, rw)
	}
	heads := view.SortRows(r, rows, []view.SortKey[argumentRow]{
		view.By("argument", "argument", func(x argumentRow) string { return x.ID }),
		view.By("claim", "claim", func(x argumentRow) string { return x.Claim }),
		view.By("rank", head, func(x argumentRow) int { return x.order }),
	})
	if view.Export(w, r, fmt.Sprintf("run-%d-arguments", k.Run().ID), []string{"argument", "claim", "rank", "hit"}, func(yield func([]string, any) bool) {
		for _, x := range rows {
			if !yield([]string{x.ID, x.Claim, x.Rank, strconv.FormatBool(x.Hit)}, map[string]any{"argument": x.ID, "claim": x.Claim, "rank": x.Rank, "hit": x.Hit}) {
				return
			}
		}
	}) {
		return
	}
	pg := view.Paginate(r, len(rows))
	k.Render(w, "missciplus-arguments.html", map[string]any{"Run": k.Run(), "Rows": rows[pg.From:pg.To], "Pager": pg, "Sort": heads,
		"Q": q.Get("q"), "Hit": hit, "What": fmt.Sprintf("%d of %d arguments", len(rows), len(v.args))})
}

// argumentRow is argument a as the list shows it: where the first ranking
// put its first right passage (subtasks 1 and 2), or how many of its gold
// fallacies the reconstruction aligned (subtask 3).
func (v *runView) argumentRow(a Argument) argumentRow {
	rw := argumentRow{ID: a.ID, Claim: a.Claim(), Rank: "—", order: math.MaxInt}
	if v.setup.Subtask == 3 {
		n := 0
		for _, ids := range v.preds[a.ID].Alignment {
			if len(ids) > 0 {
				n++
			}
		}
		rw.Rank, rw.Hit, rw.order = strconv.Itoa(n), n > 0, -n // most aligned first
		return rw
	}
	gold := v.gold(a)
	for i, id := range v.ranked(0, a.ID) {
		if gold[id] {
			rw.Rank, rw.Hit, rw.order = strconv.Itoa(i+1), i == 0, i+1
			break
		}
	}
	return rw
}

type sentenceView struct {
	Text   string
	Marked bool
}

type passageView struct {
	ID, Section string
	Rank        int
	Gold        bool
	Tags        []string
	Sentences   []sentenceView
}

type lineRow struct {
	ID, Context string
	Premises    []string
	Passages    []string
}

type predRow struct {
	ID, Premise, Class string
	From, Aligned      []string
}

type groupLink struct {
	N       int
	Label   string
	Current bool
}

func (v *runView) argument(k view.Kit, w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("arg")
	i := slices.IndexFunc(v.args, func(a Argument) bool { return a.ID == id })
	if i < 0 {
		k.Fail(w, http.StatusNotFound, fmt.Errorf("run %d ranked no argument %q", k.Run().ID, id))
		return
	}
	a := v.args[i]
	g, _ := strconv.Atoi(r.URL.Query().Get("g"))
	if g < 0 || g >= max(1, len(v.rankings)) {
		g = 0
	}
	// Which sentences of which passage state p0 or a fallacy's premise.
	marked := map[string]map[int]string{}
	mark := func(ms []Mapping, tag string) {
		for _, m := range ms {
			if marked[m.Passage] == nil {
				marked[m.Passage] = map[int]string{}
			}
			for _, s := range m.Sentences {
				marked[m.Passage][s] = tag
			}
		}
	}
	mark(a.Argument.Accurate.Mapping, "p0")
	var lines []lineRow
	for _, f := range a.Argument.Fallacies {
		mark(f.Mapping, f.ID)
		lr := lineRow{ID: f.ID, Context: f.Context}
		for _, x := range f.Interchangeable {
			lr.Premises = append(lr.Premises, x.Premise+" ("+x.Class+")")
		}
		for _, m := range f.Mapping {
			lr.Passages = append(lr.Passages, m.Passage)
		}
		lines = append(lines, lr)
	}
	p0 := map[string]bool{}
	for _, pid := range a.P0Passages() {
		p0[pid] = true
	}
	fall := a.FallacyPassages()
	order := v.ranked(g, a.ID)
	head := fmt.Sprintf("Passages in the run's ranking (%s)", v.groupLabel(g))
	if order == nil {
		order, head = a.Passages(v.setup.Full), "The study's passages"
		if v.setup.Subtask == 3 {
			order = a.Passages(false)
		}
	}
	var ps []passageView
	for n, pid := range order {
		p, _ := a.Study.All.Get(pid)
		pv := passageView{ID: pid, Section: p.Section}
		if v.rankings != nil && v.ranked(g, a.ID) != nil {
			pv.Rank = n + 1
		}
		if p0[pid] {
			pv.Tags = append(pv.Tags, "states p0")
		}
		if fall[pid] {
			pv.Tags = append(pv.Tags, "a fallacy rests on it")
		}
		pv.Gold = v.gold(a)[pid]
		for s, text := range p.Sentences {
			_, on := marked[pid][s]
			pv.Sentences = append(pv.Sentences, sentenceView{Text: text, Marked: on})
		}
		ps = append(ps, pv)
	}
	var preds []predRow
	if p, ok := v.preds[a.ID]; ok {
		alignedTo := map[string][]string{}
		for goldID, ids := range p.Alignment {
			for _, pid := range ids {
				alignedTo[pid] = append(alignedTo[pid], goldID)
			}
		}
		for _, pr := range p.Prompts {
			for _, f := range pr.Fallacies {
				slices.Sort(alignedTo[f.PredictionID])
				preds = append(preds, predRow{ID: f.PredictionID, Premise: f.Premise, Class: f.class(), From: pr.From, Aligned: alignedTo[f.PredictionID]})
			}
		}
	}
	var groups []groupLink
	if len(v.rankings) > 1 {
		for n := range v.rankings {
			groups = append(groups, groupLink{n, v.groupLabel(n), n == g})
		}
	}
	k.Render(w, "missciplus-argument.html", map[string]any{"Run": k.Run(), "Arg": a, "Lines": lines, "Passages": ps, "PassagesHead": head,
		"Predictions": preds, "Groups": groups, "Selected": a.Study.Selected.Len(), "All": a.Study.All.Len()})
}
