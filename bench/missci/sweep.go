package missci

import (
	"context"
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
		return classifySweep(rep, classes)
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
	for i, r := range runs {
		templates[i] = r.Name[strings.LastIndexByte(r.Name, ' ')+1:] // "missci reconstruct TEMPLATE"
		preds[i] = recs[i].Preds
	}
	return sweepSections(rep, data, templates, preds, xs)
}

// classifySweep adds the classification runs' table by template.
func classifySweep(rep *report.Report, cs []ClassifyRecord) error {
	var rows []ClassifyRow
	for _, c := range cs {
		if c.Task != cs[0].Task || c.Task == "consistency" {
			return nil
		}
		res, err := c.result()
		if err != nil {
			return err
		}
		rows = append(rows, ClassifyRow{Template: c.Template, Result: res})
	}
	by := ClassificationReport(cs[0].Task, cs[0].Split, "", rows)
	rep.Sections = append(rep.Sections, by.Sections...)
	return nil
}
