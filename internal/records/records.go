// Package records keeps benchmark records (DeflectBench generations and
// evals, Scheme Foils predictions) as labels of a run in the store, so that
// reports and the viewer can be rebuilt from the store alone.
package records

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fallacylab/fallacylab/store/sqlite"

	"github.com/fallacylab/fallacylab/bench/deflect"
	"github.com/fallacylab/fallacylab/store"
)

// Label kinds.
const (
	DeflectGen  = "deflect.generation"
	DeflectEval = "deflect.eval"
	FoilsPred   = "foils.prediction"
	FoilsReport = "foils.report"
)

// SaveDeflect stores generation and eval records as labels of the run, in
// one transaction, each non-nil slice in place of the run's records of its
// kind (a nil slice leaves them as they are).
func SaveDeflect(ctx context.Context, st *sqlite.Store, runID int64, gens []deflect.Generation, evals []deflect.Eval) error {
	labels, err := deflectLabels(runID, gens, evals)
	if err != nil {
		return err
	}
	var kinds []string
	if gens != nil {
		kinds = append(kinds, DeflectGen)
	}
	if evals != nil {
		kinds = append(kinds, DeflectEval)
	}
	return st.ReplaceLabels(context.WithoutCancel(ctx), runID, kinds, labels)
}

// SaveDeflectGens stores a run's generations in place of any it had.
func SaveDeflectGens(ctx context.Context, st *sqlite.Store, runID int64, gens []deflect.Generation) error {
	labels, err := deflectLabels(runID, gens, nil)
	if err != nil {
		return err
	}
	return st.ReplaceLabels(context.WithoutCancel(ctx), runID, []string{DeflectGen}, labels)
}

// SaveDeflectEvals stores a run's evals in place of any it had.
func SaveDeflectEvals(ctx context.Context, st *sqlite.Store, runID int64, evals []deflect.Eval) error {
	labels, err := deflectLabels(runID, nil, evals)
	if err != nil {
		return err
	}
	return st.ReplaceLabels(context.WithoutCancel(ctx), runID, []string{DeflectEval}, labels)
}

func deflectLabels(runID int64, gens []deflect.Generation, evals []deflect.Eval) ([]store.Label, error) {
	labels := make([]store.Label, 0, len(gens)+len(evals))
	for _, g := range gens {
		v, err := json.Marshal(g)
		if err != nil {
			return nil, err
		}
		labels = append(labels, store.Label{RunID: runID, Key: g.GenID, Kind: DeflectGen, Source: g.Model, Value: v})
	}
	for _, e := range evals {
		v, err := json.Marshal(e)
		if err != nil {
			return nil, err
		}
		labels = append(labels, store.Label{RunID: runID, Key: e.GenID, Kind: DeflectEval, Source: e.JudgeModel, Value: v})
	}
	return labels, nil
}

// LatestRun returns the newest run of a benchmark (0 when there is none).
func LatestRun(ctx context.Context, st *sqlite.Store, benchmark string) (int64, error) {
	runs, err := st.Runs(ctx)
	if err != nil {
		return 0, err
	}
	for _, r := range runs {
		if r.Benchmark == benchmark {
			return r.ID, nil
		}
	}
	return 0, nil
}

// LoadDeflect reads a DeflectBench run's records.
func LoadDeflect(ctx context.Context, st *sqlite.Store, runID int64) (deflect.Dataset, error) {
	var d deflect.Dataset
	gl, err := st.Labels(ctx, runID, DeflectGen)
	if err != nil {
		return d, err
	}
	for _, l := range gl {
		var g deflect.Generation
		if err := json.Unmarshal(l.Value, &g); err != nil {
			return d, fmt.Errorf("run %d generation %s: %w", runID, l.Key, err)
		}
		d.Gens = append(d.Gens, g)
	}
	el, err := st.Labels(ctx, runID, DeflectEval)
	if err != nil {
		return d, err
	}
	for _, l := range el {
		var e deflect.Eval
		if err := json.Unmarshal(l.Value, &e); err != nil {
			return d, fmt.Errorf("run %d eval %s: %w", runID, l.Key, err)
		}
		d.Evals = append(d.Evals, e)
	}
	if len(d.Gens) == 0 {
		return d, fmt.Errorf("run %d has no DeflectBench generations (was it interrupted? re-run `deflect run` to finish it)", runID)
	}
	return d, nil
}

// Prediction is one Scheme Foils item with a detector's label.
type Prediction struct {
	Condition string `json:"condition"` // native, matched, wrong_scheme, test
	ID        string `json:"id"`
	Text      string `json:"text"`
	Gold      string `json:"gold,omitempty"`   // test items
	Source    string `json:"source,omitempty"` // foils: τ
	Target    string `json:"target,omitempty"` // WS: τ′
	Pred      string `json:"pred"`             // "" = unparsed
}

// SaveFoils stores an audit's predictions and its report JSON.
func SaveFoils(ctx context.Context, st *sqlite.Store, runID int64, preds []Prediction, reportJSON []byte) error {
	labels := []store.Label{{RunID: runID, Key: "report", Kind: FoilsReport, Source: "audit", Value: reportJSON}}
	for _, p := range preds {
		v, err := json.Marshal(p)
		if err != nil {
			return err
		}
		labels = append(labels, store.Label{RunID: runID, Key: p.Condition + ":" + p.ID, Kind: FoilsPred, Source: "audit", Value: v})
	}
	return st.ReplaceLabels(context.WithoutCancel(ctx), runID, []string{FoilsPred, FoilsReport}, labels)
}

// LoadFoils reads an audit's predictions and report JSON.
func LoadFoils(ctx context.Context, st *sqlite.Store, runID int64) ([]Prediction, []byte, error) {
	pl, err := st.Labels(ctx, runID, FoilsPred)
	if err != nil {
		return nil, nil, err
	}
	var out []Prediction
	for _, l := range pl {
		var p Prediction
		if err := json.Unmarshal(l.Value, &p); err != nil {
			return nil, nil, fmt.Errorf("run %d prediction %s: %w", runID, l.Key, err)
		}
		out = append(out, p)
	}
	rl, err := st.Labels(ctx, runID, FoilsReport)
	if err != nil {
		return nil, nil, err
	}
	var rep []byte
	if len(rl) > 0 {
		rep = rl[0].Value
	}
	return out, rep, nil
}

// MissciPreds is the label kind of a Missci reconstruction run's parsed predictions.
const MissciPreds = "missci.predictions"

// MissciRun is what a Missci reconstruction run stores to be re-reported.
type MissciRun struct {
	Split       string                         `json:"split"`
	Source      string                         `json:"source"`
	Unknown     []string                       `json:"unknown,omitempty"`
	Predictions map[string][]map[string]string `json:"predictions"` // line id → ranked {premise, class}
}

// SaveMissci stores a reconstruction run's predictions.
func SaveMissci(ctx context.Context, st *sqlite.Store, runID int64, m MissciRun) error {
	v, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return st.ReplaceLabels(context.WithoutCancel(ctx), runID, []string{MissciPreds}, []store.Label{{RunID: runID, Key: "predictions", Kind: MissciPreds, Source: m.Source, Value: v}})
}

// LoadMissci reads them back.
func LoadMissci(ctx context.Context, st *sqlite.Store, runID int64) (MissciRun, error) {
	var m MissciRun
	ls, err := st.Labels(ctx, runID, MissciPreds)
	if err != nil {
		return m, err
	}
	if len(ls) == 0 {
		return m, fmt.Errorf("run %d has no Missci predictions (only reconstruction runs are stored)", runID)
	}
	err = json.Unmarshal(ls[0].Value, &m)
	return m, err
}
