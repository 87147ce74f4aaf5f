package missci

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store"
)

// Record kinds of a classification run (--task classify-gold or
// classify-only).
const (
	// KindClassifySetup is the run's task, template, split and source
	// (key "run").
	KindClassifySetup = "missci/classify-setup"
	// KindClassified is one unit's gold and predicted class (key: the
	// unit's id), with the call its answer came from.
	KindClassified = "missci/classified"
)

// ClassifyRecord is a classification run's records: what it classified,
// and each unit's gold and predicted class.
type ClassifyRecord struct {
	Task     string `json:"task"`
	Template string `json:"template"`
	// FromTemplate is a consistency run's reconstruction template, whose
	// top premises it classified; Strict its --strict.
	FromTemplate string           `json:"from_template,omitempty"`
	Strict       bool             `json:"strict,omitempty"`
	Split        string           `json:"split"`
	Source       string           `json:"source"`
	Units        []ClassifiedUnit `json:"-"`
}

// ClassifiedUnit is one unit's record.
type ClassifiedUnit struct {
	ID     string `json:"id"`
	LineID string `json:"line_id,omitempty"`
	Gold   string `json:"gold"`
	Pred   string `json:"pred"`
	// Premise is the premise a consistency run classified (the model's
	// own).
	Premise string `json:"premise,omitempty"`
	// CallKey is the call the answer came from ("" : it failed).
	CallKey string `json:"-"`
}

// SaveClassification stores a classification run's records in one
// transaction, so that it reports (missci report) and shows later.
func SaveClassification(ctx context.Context, recs bench.Records, runID int64, c ClassifyRecord) error {
	body, err := json.Marshal(c)
	if err != nil {
		return err
	}
	out := []store.Record{{Kind: KindClassifySetup, Key: "run", Body: body}}
	for _, u := range c.Units {
		b, err := json.Marshal(u)
		if err != nil {
			return err
		}
		out = append(out, store.Record{Kind: KindClassified, Key: u.ID, CallKey: u.CallKey, Body: b})
	}
	if err := recs.PutRecordKinds(ctx, runID, []string{KindClassifySetup, KindClassified}, out); err != nil {
		return fmt.Errorf("store the classifications of run %d: %w", runID, err)
	}
	return nil
}

// LoadClassification reads a classification run's records (ok false: the
// run holds none — a reconstruction run, or an older classification run).
func LoadClassification(ctx context.Context, recs bench.RecordReader, runID int64) (ClassifyRecord, bool, error) {
	var c ClassifyRecord
	found, err := bench.ReadOne(ctx, recs, runID, KindClassifySetup, &c)
	if err != nil || !found {
		return c, false, err
	}
	err = recs.Records(ctx, runID, KindClassified, func(r store.Record) error {
		var u ClassifiedUnit
		if err := json.Unmarshal(r.Body, &u); err != nil {
			return fmt.Errorf("classification %s: %w", r.Key, err)
		}
		u.CallKey = r.CallKey // kept with the record, not in its body
		c.Units = append(c.Units, u)
		return nil
	})
	return c, err == nil, err
}

// Report is the classification run's report, as the run printed it.
func (c ClassifyRecord) Report() (*report.Report, error) {
	data, err := Load(c.Split)
	if err != nil {
		return nil, err
	}
	units := make([]ClassifyUnit, len(c.Units))
	got := map[string]string{}
	for i, u := range c.Units {
		units[i] = ClassifyUnit{ID: u.ID, LineID: u.LineID, Gold: u.Gold, Premise: u.Premise}
		got[u.ID] = u.Pred
	}
	var rep *report.Report
	if c.Task == "consistency" {
		cons, err := EvaluateConsistency(units, got, c.Strict)
		if err != nil {
			return nil, err
		}
		rep = ConsistencyReport(c.Split, c.Source, cons)
	} else {
		res, err := evaluateClassification(c.Task, classifiedArgs(data, got), units, got)
		if err != nil {
			return nil, err
		}
		rep = ClassificationReport(c.Task, c.Split, c.Source, []ClassifyRow{{Result: res}})
	}
	// A run of a subset (--limit, --sample-id) says so, as a
	// reconstruction's report does.
	lines := Predictions{}
	for _, u := range c.Units {
		lines[u.LineID] = []Prediction{{}}
	}
	if d := Covered(data, lines).Describe(); d != "" {
		rep.Meta = append(rep.Meta, [2]string{"arguments", d})
	}
	return rep, nil
}

// result is a classify-gold or classify-only run's scores.
func (c ClassifyRecord) result() (ClassifyResult, error) {
	data, err := Load(c.Split)
	if err != nil {
		return ClassifyResult{}, err
	}
	units := make([]ClassifyUnit, len(c.Units))
	got := map[string]string{}
	for i, u := range c.Units {
		units[i] = ClassifyUnit{ID: u.ID, LineID: u.LineID, Gold: u.Gold}
		got[u.ID] = u.Pred
	}
	return evaluateClassification(c.Task, classifiedArgs(data, got), units, got)
}

// classifiedArgs are the arguments every line of which was classified
// (a run of a selection classifies some).
func classifiedArgs(data []Argument, got map[string]string) []Argument {
	var out []Argument
	for _, a := range data {
		all := len(a.Lines) > 0
		for _, l := range a.Lines {
			_, ok := got[l.ID]
			all = all && ok
		}
		if all {
			out = append(out, a)
		}
	}
	return out
}
