package missci

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/store"
)

// Record is what a reconstruction run stores: its parsed, ranked predictions
// per reasoning line, with the call each line's answer came from.
type Record struct {
	Split   string
	Source  string   // model and template
	Unknown []string // class names mapped to Other
	Preds   Predictions
	// CallKeys reference each line's answer in the call cache ("" for
	// lines whose call failed).
	CallKeys map[string]string
}

// Record kinds, in the store.
const (
	// KindSetup is a reconstruction run's split, source and unknown class
	// names (key "run").
	KindSetup = "missci/setup"
	// KindLine is one reasoning line's ranked predictions, with the call
	// its answer came from (key: the line id).
	KindLine = "missci/line"
)

// setup is KindSetup's body.
type setup struct {
	Split   string   `json:"split"`
	Source  string   `json:"source"`
	Unknown []string `json:"unknown"`
}

// SaveRecord stores a reconstruction run's predictions with the run, its
// setup and its lines in one transaction.
func SaveRecord(ctx context.Context, recs bench.Records, runID int64, m Record) error {
	unknown := m.Unknown
	if unknown == nil {
		unknown = []string{}
	}
	body, err := json.Marshal(setup{Split: m.Split, Source: m.Source, Unknown: unknown})
	if err != nil {
		return err
	}
	out := []store.Record{{Kind: KindSetup, Key: "run", Body: body}}
	lines := make([]string, 0, len(m.Preds))
	for id := range m.Preds {
		lines = append(lines, id)
	}
	sort.Strings(lines)
	for _, id := range lines {
		preds := m.Preds[id]
		if preds == nil {
			preds = []Prediction{}
		}
		body, err := json.Marshal(preds)
		if err != nil {
			return err
		}
		out = append(out, store.Record{Kind: KindLine, Key: id, CallKey: m.CallKeys[id], Body: body})
	}
	if err := recs.PutRecordKinds(ctx, runID, []string{KindSetup, KindLine}, out); err != nil {
		return fmt.Errorf("store the predictions of run %d: %w", runID, err)
	}
	return nil
}

// LoadRecord reads a reconstruction run's predictions back; a run without
// them (a classification run) is an error that says so.
func LoadRecord(ctx context.Context, recs bench.RecordReader, runID int64) (Record, error) {
	var m Record
	var s setup
	found, err := bench.ReadOne(ctx, recs, runID, KindSetup, &s)
	if err != nil {
		return m, fmt.Errorf("run %d: %s record: %w", runID, KindSetup, err)
	}
	m.Split, m.Source, m.Unknown = s.Split, s.Source, s.Unknown
	if !found {
		return m, fmt.Errorf("run %d has no Missci reconstruction (a classification run, or one stopped before its answers were stored)", runID)
	}
	if len(m.Unknown) == 0 {
		m.Unknown = nil
	}
	m.Preds, m.CallKeys = Predictions{}, map[string]string{}
	err = recs.Records(ctx, runID, KindLine, func(r store.Record) error {
		var p []Prediction
		if err := json.Unmarshal(r.Body, &p); err != nil {
			return fmt.Errorf("run %d: %s record %s: %w", runID, KindLine, r.Key, err)
		}
		m.Preds[r.Key] = p
		if r.CallKey != "" {
			m.CallKeys[r.Key] = r.CallKey
		}
		return nil
	})
	return m, err
}
