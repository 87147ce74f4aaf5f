package deflect

import (
	"context"
	"fmt"
)

// RecordStore is the store of a run's generations and judgements: typed
// record tables (with the columnar snapshot the analysis reads), each
// replaced as a whole in one transaction.
type RecordStore interface {
	PutDeflect(ctx context.Context, runID int64, gens []Generation, evals []Eval) error
	// PutDeflectThen is PutDeflect with the judgements read once the
	// generations are written, in the same transaction.
	PutDeflectThen(ctx context.Context, runID int64, gens []Generation, evals func() ([]Eval, error)) error
	Deflect(ctx context.Context, runID int64) (Dataset, error)
	// DeflectScores is Deflect without the texts the analysis never reads.
	DeflectScores(ctx context.Context, runID int64) (Dataset, error)
}

// SaveRecords stores generation and eval records of the run, in one
// transaction, each non-nil slice in place of the run's records of its kind
// (a nil slice leaves them as they are).
func SaveRecords(ctx context.Context, st RecordStore, runID int64, gens []Generation, evals []Eval) error {
	return st.PutDeflect(ctx, runID, gens, evals)
}

// SaveRecordsThen stores a run's generations and then the evals that evals
// returns, in one transaction, both in place of the run's records: evals is
// called once the generations are written, so that they are read while the
// generations are written; its error leaves the run's records as they were.
func SaveRecordsThen(ctx context.Context, st RecordStore, runID int64, gens []Generation, evals func() ([]Eval, error)) error {
	if gens == nil {
		gens = []Generation{}
	}
	return st.PutDeflectThen(ctx, runID, gens, evals)
}

// SaveGens stores a run's generations in place of any it had.
func SaveGens(ctx context.Context, st RecordStore, runID int64, gens []Generation) error {
	if gens == nil {
		gens = []Generation{}
	}
	return st.PutDeflect(ctx, runID, gens, nil)
}

// SaveEvals stores a run's evals in place of any it had.
func SaveEvals(ctx context.Context, st RecordStore, runID int64, evals []Eval) error {
	if evals == nil {
		evals = []Eval{}
	}
	return st.PutDeflect(ctx, runID, nil, evals)
}

// LoadRecords reads a DeflectBench run's records.
func LoadRecords(ctx context.Context, st RecordStore, runID int64) (Dataset, error) {
	return loadRecords(ctx, runID, st.Deflect)
}

// LoadScores reads a DeflectBench run's records for Analyze:
// without claim and prompt texts, the judges' reasoning and raw answers.
func LoadScores(ctx context.Context, st RecordStore, runID int64) (Dataset, error) {
	return loadRecords(ctx, runID, st.DeflectScores)
}

func loadRecords(ctx context.Context, runID int64, read func(context.Context, int64) (Dataset, error)) (Dataset, error) {
	d, err := read(ctx, runID)
	if err != nil {
		return d, err
	}
	if len(d.Gens) == 0 {
		return d, fmt.Errorf("run %d has no DeflectBench generations (was it interrupted? re-run `deflect run` to finish it)", runID)
	}
	return d, nil
}
