package missci

import (
	"context"
	"fmt"
	"strings"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store"
)

var _ bench.SweepTables = Task{}

// SweepTables implements bench.SweepTables: the runs of a template sweep
// compared in the paper's layout — reconstruction metrics and premise
// METEOR by template, or accuracy and macro-F1 by template. Runs of
// different tasks are not compared (nothing is added).
func (Task) SweepTables(ctx context.Context, env bench.Env, runs []store.Run, rep *report.Report) error {
	var recs []Record
	var classes []ClassifyRecord
	var xs []Scorers
	for _, r := range runs {
		c, ok, err := LoadClassification(ctx, env.Records, r.ID)
		if err != nil {
			return err
		}
		if ok {
			classes = append(classes, c)
			continue
		}
		m, err := LoadRecord(ctx, env.Records, r.ID)
		if err != nil {
			return err
		}
		x, _, err := storedScorers(ctx, env.Records, r.ID)
		if err != nil {
			return err
		}
		recs, xs = append(recs, m), append(xs, x)
	}
	switch {
	case len(classes) == len(runs) && len(runs) > 1:
		return classifySweep(rep, runs, classes)
	case len(recs) == len(runs) && len(runs) > 1:
		return reconstructSweep(rep, runs, recs, xs)
	}
	return nil
}

// reconstructSweep adds the reconstruction runs' tables by template; the
// arguments are those the first run covers.
func reconstructSweep(rep *report.Report, runs []store.Run, recs []Record, xs []Scorers) error {
	data, err := Load(recs[0].Split)
	if err != nil {
		return err
	}
	data = Covered(data, recs[0].Preds).Args
	templates := make([]string, len(runs))
	preds := make([]Predictions, len(runs))
	sources := make([]string, len(runs))
	for i, r := range runs {
		templates[i] = r.Name[strings.LastIndexByte(r.Name, ' ')+1:] // "missci reconstruct TEMPLATE"
		preds[i], sources[i] = recs[i].Preds, recs[i].Source
	}
	labels, byRun := runLabels(runs, templates, sources)
	return sweepSections(rep, data, labels, byRun, preds, xs)
}

// runLabels names each run of a sweep by its template, or — where two
// share one (a sweep of models) — by its id, model and template (byRun).
func runLabels(runs []store.Run, templates, sources []string) (labels []string, byRun bool) {
	seen := map[string]bool{}
	for _, t := range templates {
		if seen[t] {
			out := make([]string, len(runs))
			for i, r := range runs {
				out[i] = fmt.Sprintf("run %d: %s", r.ID, sources[i])
			}
			return out, true
		}
		seen[t] = true
	}
	return templates, false
}

// classifySweep adds the classification runs' table by template.
func classifySweep(rep *report.Report, runs []store.Run, cs []ClassifyRecord) error {
	var rows []ClassifyRow
	templates, sources := make([]string, len(cs)), make([]string, len(cs))
	for i, c := range cs {
		templates[i], sources[i] = c.Template, c.Source
	}
	labels, byRun := runLabels(runs, templates, sources)
	for i, c := range cs {
		if c.Task != cs[0].Task || c.Task == "consistency" {
			return nil
		}
		res, err := c.result()
		if err != nil {
			return err
		}
		rows = append(rows, ClassifyRow{Template: labels[i], Result: res})
	}
	by := classificationReport(cs[0].Task, cs[0].Split, "", map[bool]string{false: "template", true: "run"}[byRun], rows)
	rep.Sections = append(rep.Sections, by.Sections...)
	return nil
}
