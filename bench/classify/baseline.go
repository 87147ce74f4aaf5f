package classify

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/corpus"
	"github.com/fallacylab/fallacylab/detect"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/runner"
	"github.com/fallacylab/fallacylab/store"
)

// Baseline is the --model of the built-in detector: TF-IDF features and a
// logistic regression (package detect) trained on the corpus's train
// split, C chosen on dev, then classifying the same texts a model would.
const Baseline = "builtin:tfidf"

// baselineSpec is the run of the built-in detector: no model call, one
// phase whose answers it counts itself, the same records as a model's run.
func (o Options) baselineSpec(env bench.Env, items, texts []corpus.Item, ids []string, setup Setup) (runner.Spec, error) {
	tr, dv := examples(corpus.Split(items, "train")), examples(corpus.Split(items, "dev"))
	if len(tr) == 0 || len(dv) == 0 || o.Split == "train" || o.Split == "dev" {
		return runner.Spec{}, fmt.Errorf("--model %s trains on the train split and chooses C on dev: corpus %s has %s, and --split %s is to be classified", Baseline, o.Corpus, joined(splits(items)), o.Split)
	}
	p := Definition.Phases[0]
	ph := runner.Phase{Name: p.Name,
		Dry: func(context.Context) (engine.Plan, string, error) {
			return engine.Plan{}, fmt.Sprintf("dry run: 0 jobs: %s calls no model (it is trained on %s train, %d texts, when the run starts)", Baseline, o.Corpus, len(tr)), nil
		},
		Do: func(ctx context.Context, a *runner.Active) error {
			m, err := detect.TrainTFIDF(tr, dv, []string(setup.Labels), nil, detect.VectorizerOptions{Sublinear: true})
			if err != nil {
				return err
			}
			setup.Trained = &Trained{C: m.Model.C, Selection: m.Selection}
			lp := a.Phase(p.Name, p.Hint)
			recs := make([]store.Record, len(texts))
			for i, it := range texts {
				label := m.Label(it.Text)
				lp.Count(Baseline, true, label)
				body, err := json.Marshal(Prediction{ID: ids[i], Gold: it.NativeLabel(), Pred: label, Text: it.Text})
				if err != nil {
					return err
				}
				recs[i] = store.Record{Key: ids[i], Body: body}
			}
			if err := lp.End(ctx, engine.Summary{}); err != nil {
				return err
			}
			return putRecords(ctx, env.Records, a.ID, setup, recs)
		}}
	return runner.Spec{Name: fmt.Sprintf("%s %s %s", Name, o.Corpus, Baseline), Options: o, Phases: []runner.Phase{ph}}, nil
}

func examples(items []corpus.Item) []detect.Example {
	out := make([]detect.Example, len(items))
	for i, it := range items {
		out[i] = detect.Example{Text: it.Text, Label: it.NativeLabel()}
	}
	return out
}

// putRecords stores a run's setup and predictions.
func putRecords(ctx context.Context, rs bench.Records, runID int64, setup Setup, preds []store.Record) error {
	body, err := json.Marshal(setup)
	if err != nil {
		return err
	}
	recs := make([]store.Record, 0, len(preds)+1)
	recs = append(recs, store.Record{Kind: KindSetup, Key: "setup", Body: body})
	for _, p := range preds {
		p.Kind = KindPrediction
		recs = append(recs, p)
	}
	// One transaction: a run never holds a setup without its predictions.
	return rs.PutRecordKinds(ctx, runID, []string{KindSetup, KindPrediction}, recs)
}
