package mafalda

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"net/http"
	"strconv"
	"strings"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/view"
)

//go:embed pages/*.html
var pages embed.FS

var _ bench.Views = Task{}

// Templates implements bench.Views: the texts list and a text's page (the
// run page is the viewer's own, with the run's report).
func (Task) Templates() fs.FS { return view.Templates(pages, "pages") }

// runView is a run's texts, scored, for its pages.
type runView struct {
	setup   Setup
	recs    []Record
	results []Result
}

// View implements bench.Views: the run's report, its texts with their
// scores, and each text with its gold spans marked and the answer about
// each of its sentences. Model answers are untrusted text: the templates
// escape them.
func (Task) View(ctx context.Context, env bench.Env, run store.Run) (*view.Run, error) {
	setup, recs, sc, err := loadScored(ctx, env.Records, run.ID)
	if err != nil {
		return nil, err
	}
	v := &runView{setup: setup, recs: recs, results: sc.Results}
	o := ReportOptions{Resamples: 1000, Seed: 20260101, Level: 0.95, Metric: Current.String()}
	if env.Resamples > 0 {
		o.Resamples = env.Resamples
	}
	return &view.Run{State: v,
		Analyze: func() (*report.Report, error) { return Report(setup, recs, o) },
		Pages: []view.Page{{Path: "texts", Serve: v.texts, Title: "Every text with its gold spans and the model's answers"},
			{Path: "texts/{i}", Serve: v.text}},
		Compare: v.compare}, nil
}

// textRow is one text of the texts list.
type textRow struct {
	Index, Sentences int
	Predicted, Gold  string
	F1               string
	Hit              bool
}

// row is text i's row.
func (v *runView) row(i int) textRow {
	r, res := v.recs[i], v.results[i]
	var pred, gold []int
	for _, a := range r.Answers {
		pred = append(pred, a.Labels...)
	}
	for _, l := range r.Labels {
		if id, ok := level2ID[strings.ToLower(l.Label)]; ok && !skipped(l.Label) {
			gold = append(gold, id)
		}
	}
	f1 := res.Span[v.setup.Level].F1
	return textRow{Index: r.Index, Sentences: len(r.Answers), Predicted: names(pred, v.setup.Level), Gold: names(gold, 2),
		F1: fmt.Sprintf("%.3f", f1), Hit: f1 >= 0.5}
}

// texts is the list of the run's texts, searchable (?q=), in pages.
func (v *runView) texts(k view.Kit, w http.ResponseWriter, r *http.Request) {
	q := strings.ToLower(strings.TrimSpace(r.URL.Query().Get("q")))
	var rows []textRow
	for i := range v.recs {
		if q == "" || strings.Contains(strings.ToLower(v.recs[i].Text), q) {
			rows = append(rows, v.row(i))
		}
	}
	p := view.Paginate(r, len(rows))
	k.Render(w, "mafalda-texts.html", map[string]any{"Run": k.Run(), "Rows": rows[p.From:p.To], "Pager": p, "Q": q, "Level": v.setup.Level})
}

// segment is a stretch of a text under the same gold spans.
type segment struct{ Text, Labels string }

// segments cut text at its gold spans' edges (code points, as upstream's
// offsets): each stretch with the labels of the spans over it.
func segments(text string, labels []SpanLabel) []segment {
	rs := []rune(text)
	over := make([][]string, len(rs))
	for _, l := range labels {
		if skipped(l.Label) || strings.EqualFold(l.Label, "nothing") {
			continue
		}
		for p := max(0, l.Start); p < min(l.End, len(rs)); p++ {
			over[p] = append(over[p], strings.ToLower(l.Label))
		}
	}
	var out []segment
	for p := 0; p < len(rs); {
		q := p + 1
		key := strings.Join(over[p], "; ")
		for q < len(rs) && strings.Join(over[q], "; ") == key {
			q++
		}
		out = append(out, segment{Text: string(rs[p:q]), Labels: key})
		p = q
	}
	return out
}

// answerRow is one sentence's answer on a text's page.
type answerRow struct {
	N                              int
	Sentence, Output, Failed, Read string
	Fallacy                        bool
}

// text is one text's page.
func (v *runView) text(k view.Kit, w http.ResponseWriter, r *http.Request) {
	i, err := strconv.Atoi(r.PathValue("i"))
	if err != nil || i < 0 || i >= len(v.recs) || v.recs[i].Index != i {
		i = -1
		for n, rec := range v.recs {
			if strconv.Itoa(rec.Index) == r.PathValue("i") {
				i = n
			}
		}
	}
	if i < 0 {
		k.Fail(w, http.StatusNotFound, fmt.Errorf("run %d has no text %q", k.Run().ID, r.PathValue("i")))
		return
	}
	rec, res := v.recs[i], v.results[i].Span[v.setup.Level]
	row := v.row(i)
	var answers []answerRow
	for n, a := range rec.Answers {
		fallacy := false
		for _, l := range a.Labels {
			fallacy = fallacy || l > Nothing && l < Unknown(v.setup.Level)
		}
		answers = append(answers, answerRow{N: n + 1, Sentence: a.Sentence, Output: a.Output, Failed: a.Failed, Read: readAs(a.Labels, v.setup.Level), Fallacy: fallacy})
	}
	k.Render(w, "mafalda-text.html", map[string]any{"Run": k.Run(), "Index": rec.Index, "Level": v.setup.Level,
		"Scores": fmt.Sprintf("%.3f / %.3f / %.3f", res.P, res.R, res.F1), "Gold": row.Gold, "Predicted": row.Predicted,
		"Segments": segments(rec.Text, rec.Labels), "Answers": answers})
}

// readAs names the labels an answer was read as.
func readAs(labels []int, level int) string {
	var out []string
	for _, l := range labels {
		switch {
		case l == Nothing:
			out = append(out, "nothing")
		case l >= Unknown(level):
			out = append(out, "unknown")
		default:
			out = append(out, names([]int{l}, level))
		}
	}
	return strings.Join(out, "; ")
}

// compare compares two runs text by text: each one's span F1 (right: 0.5
// or more).
func (v *runView) compare(b *view.Run) ([]view.PairRow, []view.PairSummary, error) {
	w, ok := b.State.(*runView)
	if !ok {
		return nil, nil, fmt.Errorf("the other run is not a %s run", Definition.Title)
	}
	byIndex := map[int]int{}
	for n, r := range w.recs {
		byIndex[r.Index] = n
	}
	var rows []view.PairRow
	for n, r := range v.recs {
		m, ok := byIndex[r.Index]
		if !ok {
			continue
		}
		a, c := v.row(n), w.row(m)
		rows = append(rows, view.PairRow{ID: strconv.Itoa(r.Index), Text: r.Text,
			Values: [2]string{a.F1, c.F1}, Gold: a.Gold, HasGold: true, Right: [2]bool{a.Hit, c.Hit}})
	}
	if len(rows) == 0 {
		return nil, nil, fmt.Errorf("the two runs share no text")
	}
	sum := view.PairSummary{Label: "span F1 of 0.5 or more", Both: len(rows)}
	var fa, fb float64
	for _, r := range rows {
		if r.Right[0] == r.Right[1] {
			sum.Same++
		}
		x, _ := strconv.ParseFloat(r.Values[0], 64)
		y, _ := strconv.ParseFloat(r.Values[1], 64)
		fa, fb = fa+x, fb+y
	}
	sum.A, sum.B = fmt.Sprintf("mean span F1 %.3f", fa/float64(len(rows))), fmt.Sprintf("mean span F1 %.3f", fb/float64(len(rows)))
	return rows, []view.PairSummary{sum}, nil
}
