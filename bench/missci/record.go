package missci

import (
	"context"
	"fmt"

	"github.com/fallacylab/fallacylab/bench"
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

// recordStore is the store of reconstruction records (the store's own
// tables until Missci's records move to record kinds).
type recordStore interface {
	PutReconstruction(ctx context.Context, runID int64, r Record) error
	Reconstruction(ctx context.Context, runID int64) (Record, bool, error)
}

// saveRecord stores a reconstruction run's predictions with the run.
func saveRecord(ctx context.Context, recs bench.Records, runID int64, m Record) error {
	st, ok := recs.(recordStore)
	if !ok {
		return fmt.Errorf("this store cannot keep Missci predictions")
	}
	return st.PutReconstruction(ctx, runID, m)
}

// loadRecord reads them back.
func loadRecord(ctx context.Context, recs bench.RecordReader, runID int64) (Record, error) {
	st, ok := recs.(recordStore)
	if !ok {
		return Record{}, fmt.Errorf("this store cannot keep Missci predictions")
	}
	m, ok, err := st.Reconstruction(ctx, runID)
	if err != nil {
		return m, err
	}
	if !ok {
		return m, fmt.Errorf("run %d has no Missci predictions (only reconstruction runs are stored)", runID)
	}
	return m, nil
}
