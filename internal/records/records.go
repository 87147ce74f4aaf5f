// Package records reads and writes benchmark records — DeflectBench
// generations and judgements, Scheme Foils audits and detections, Missci
// reconstructions — as typed rows of a run, so that reports and the viewer
// are rebuilt from the store alone. It declares the Store it needs; the bench
// packages stay I/O-free.
package records

import (
	"context"
	"fmt"

	"github.com/fallacylab/fallacylab/bench"

	"github.com/fallacylab/fallacylab/bench/deflect"
)

// Store is what records need of a store: typed record tables per benchmark,
// each replaced as a whole in one transaction.
type Store interface {
	PutDeflect(ctx context.Context, runID int64, gens []deflect.Generation, evals []deflect.Eval) error
	// PutDeflectThen is PutDeflect with the judgements read once the
	// generations are written, in the same transaction.
	PutDeflectThen(ctx context.Context, runID int64, gens []deflect.Generation, evals func() ([]deflect.Eval, error)) error
	Deflect(ctx context.Context, runID int64) (deflect.Dataset, error)
	// DeflectScores is Deflect without the texts the analysis never reads.
	DeflectScores(ctx context.Context, runID int64) (deflect.Dataset, error)
	bench.Records
}

// SaveDeflect stores generation and eval records of the run, in one
// transaction, each non-nil slice in place of the run's records of its kind
// (a nil slice leaves them as they are).
func SaveDeflect(ctx context.Context, st Store, runID int64, gens []deflect.Generation, evals []deflect.Eval) error {
	return st.PutDeflect(ctx, runID, gens, evals)
}

// SaveDeflectThen stores a run's generations and then the evals that evals
// returns, in one transaction, both in place of the run's records: evals is
// called once the generations are written, so that they are read while the
// generations are written; its error leaves the run's records as they were.
func SaveDeflectThen(ctx context.Context, st Store, runID int64, gens []deflect.Generation, evals func() ([]deflect.Eval, error)) error {
	if gens == nil {
		gens = []deflect.Generation{}
	}
	return st.PutDeflectThen(ctx, runID, gens, evals)
}

// SaveDeflectGens stores a run's generations in place of any it had.
func SaveDeflectGens(ctx context.Context, st Store, runID int64, gens []deflect.Generation) error {
	if gens == nil {
		gens = []deflect.Generation{}
	}
	return st.PutDeflect(ctx, runID, gens, nil)
}

// SaveDeflectEvals stores a run's evals in place of any it had.
func SaveDeflectEvals(ctx context.Context, st Store, runID int64, evals []deflect.Eval) error {
	if evals == nil {
		evals = []deflect.Eval{}
	}
	return st.PutDeflect(ctx, runID, nil, evals)
}

// LoadDeflect reads a DeflectBench run's records.
func LoadDeflect(ctx context.Context, st Store, runID int64) (deflect.Dataset, error) {
	return loadDeflect(ctx, runID, st.Deflect)
}

// LoadDeflectScores reads a DeflectBench run's records for deflect.Analyze:
// without claim and prompt texts, the judges' reasoning and raw answers.
func LoadDeflectScores(ctx context.Context, st Store, runID int64) (deflect.Dataset, error) {
	return loadDeflect(ctx, runID, st.DeflectScores)
}

func loadDeflect(ctx context.Context, runID int64, read func(context.Context, int64) (deflect.Dataset, error)) (deflect.Dataset, error) {
	d, err := read(ctx, runID)
	if err != nil {
		return d, err
	}
	if len(d.Gens) == 0 {
		return d, fmt.Errorf("run %d has no DeflectBench generations (was it interrupted? re-run `deflect run` to finish it)", runID)
	}
	return d, nil
}
