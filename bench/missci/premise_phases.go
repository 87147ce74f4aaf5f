package missci

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/runner"
	"github.com/fallacylab/fallacylab/store"
)

// Record kinds of the premise phases.
const (
	// KindEmbedding is one premise text's embedding (key: its index in
	// the embedding plan), with the call it came from.
	KindEmbedding = "missci/embedding"
	// KindScore is one (gold, predicted) premise pair's scores from the
	// scorer (key: its index), with the call it came from.
	KindScore = "missci/score"
)

// scorerProvider is the provider name of a scorer endpoint (scorer.Name):
// a scorer is named scorer:URL.
const scorerProvider = "scorer"

// pairsPerScore is how many pairs one scoring call sends: a scorer on a
// GPU rates a batch in about the time of one pair.
const pairsPerScore = 64

// embedded is a KindEmbedding body.
type embedded struct {
	Model  string    `json:"model"`
	Text   string    `json:"text"`
	Vector []float64 `json:"vector"`
}

// scored is a KindScore body.
type scored struct {
	Scorer string             `json:"scorer"`
	Gold   string             `json:"gold"`
	Pred   string             `json:"pred"`
	Scores map[string]float64 `json:"scores"`
}

// premisePhases are the phases after a reconstruction that --embedder and
// --scorer ask for: every premise embedded (the gold ones and every
// predicted one, so that a report at any cut-off pairs from them), then
// every pair a report at any cut-off scores sent to the scorer. Both are
// engine calls of the run — cached, counted, priced in the dry run,
// resumed — and their answers records of it, which the report reads.
func (r *missciRun) premisePhases() ([]runner.Phase, []llm.Spec, error) {
	var phases []runner.Phase
	var specs []llm.Spec
	vecs := map[string][]float64{}
	if r.o.Embedder != "" {
		spec, err := llm.ParseSpec(r.o.Embedder)
		if err != nil {
			return nil, nil, fmt.Errorf("--embedder: %w", err)
		}
		specs = append(specs, spec)
		phases = append(phases, r.embedding(spec, vecs))
	}
	if r.o.Scorer != "" {
		spec := llm.Spec{Provider: scorerProvider, Model: r.o.Scorer}
		specs = append(specs, spec)
		var embed Embedder
		if r.o.Embedder != "" {
			embed = lookup(vecs)
		}
		phases = append(phases, r.scoring(spec, func() Embedder { return embed }))
	}
	return phases, specs, nil
}

// premiseTexts are the premises a report may pair: every gold premise and
// every predicted one, each once, in a fixed order.
func premiseTexts(data []Argument, preds Predictions) []string {
	seen := map[string]bool{}
	var out []string
	add := func(t string) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, a := range data {
		for _, l := range a.Lines {
			for _, f := range l.Fallacies {
				add(f.Premise)
			}
			for _, p := range preds[l.ID] {
				add(p.Premise)
			}
		}
	}
	return out
}

// embedding is the phase that embeds the premises, one call per text (as
// an embedding made outside a run was: each cached once by its content).
func (r *missciRun) embedding(spec llm.Spec, vecs map[string][]float64) runner.Phase {
	var texts []string
	keys := map[string]string{}
	ph := Definition.Phase("embedding").Run(engine.Plan{})
	ph.Planner = func(context.Context) (engine.Plan, error) {
		texts = premiseTexts(Covered(r.data, r.preds).Args, r.preds)
		return embedPlan(spec, texts), nil
	}
	ph.Dry = func(context.Context) (engine.Plan, string, error) {
		if len(r.preds) > 0 { // predictions made elsewhere (missci eval)
			return embedPlan(spec, premiseTexts(Covered(r.data, r.preds).Args, r.preds)), "embedding:", nil
		}
		// The predictions are not made yet: the gold premises stand in,
		// and the predicted ones are about as many again.
		return embedPlan(spec, premiseTexts(r.data, nil)), "embedding (the gold premises; the predicted ones are about as many again):", nil
	}
	ph.OnResult = func(res engine.Result) {
		if res.Err == nil && res.Response != nil && len(res.Response.Vectors) == 1 {
			t := res.Job.Request.Embed[0]
			vecs[t], keys[t] = res.Response.Vectors[0], res.Key
		}
	}
	ph.Records = func(ctx context.Context, runID int64) error {
		recs := make([]store.Record, 0, len(texts))
		for i, t := range texts {
			v, ok := vecs[t]
			if !ok {
				continue
			}
			body, err := json.Marshal(embedded{Model: spec.String(), Text: t, Vector: v})
			if err != nil {
				return err
			}
			recs = append(recs, store.Record{Kind: KindEmbedding, Key: fmt.Sprintf("%06d", i), CallKey: keys[t], Body: body})
		}
		return r.env.Records.PutRecords(ctx, runID, KindEmbedding, recs)
	}
	return ph
}

// embedPlan is one embeddings call per text.
func embedPlan(spec llm.Spec, texts []string) engine.Plan {
	jobs := make([]engine.Job, len(texts))
	for i, t := range texts {
		jobs[i] = engine.Job{ID: fmt.Sprintf("embed/%d", i+1), Namespace: "embed", Spec: spec, Request: llm.Request{Embed: []string{t}}}
	}
	return engine.SlicePlan("embeddings", jobs)
}

// lookup is an Embedder that reads the vectors a run made.
func lookup(vecs map[string][]float64) Embedder {
	return func(texts []string) ([][]float64, error) {
		out := make([][]float64, len(texts))
		for i, t := range texts {
			v, ok := vecs[t]
			if !ok {
				return nil, fmt.Errorf("no embedding of %.40q", t)
			}
			out[i] = v
		}
		return out, nil
	}
}

// scoringPairs are the pairs a report at any cut-off scores, each once.
func scoringPairs(data []Argument, preds Predictions, embed Embedder) ([]llm.ScorePair, error) {
	seen := map[llm.ScorePair]bool{}
	var out []llm.ScorePair
	for _, k := range []int{1, 2, 3, 4, 5, 6, 0} {
		pairs, err := MatchPairsWith(data, preds, k, embed)
		if err != nil {
			return nil, err
		}
		for _, p := range pairs {
			sp := llm.ScorePair{Reference: p.Gold, Prediction: p.Pred}
			if !seen[sp] {
				seen[sp] = true
				out = append(out, sp)
			}
		}
	}
	return out, nil
}

// scoring is the phase that sends the pairs to the scorer, pairsPerScore
// a call.
func (r *missciRun) scoring(spec llm.Spec, embed func() Embedder) runner.Phase {
	got := map[llm.ScorePair]map[string]float64{}
	keys := map[llm.ScorePair]string{}
	var pairs []llm.ScorePair
	ph := Definition.Phase("scoring").Run(engine.Plan{})
	ph.Planner = func(context.Context) (engine.Plan, error) {
		var err error
		if pairs, err = scoringPairs(Covered(r.data, r.preds).Args, r.preds, embed()); err != nil {
			return engine.Plan{}, err
		}
		return scorePlan(spec, pairs), nil
	}
	ph.Dry = func(context.Context) (engine.Plan, string, error) {
		return engine.Plan{}, "scoring (the scorer's calls cost nothing):", nil
	}
	ph.OnResult = func(res engine.Result) {
		if res.Err != nil || res.Response == nil || len(res.Response.Scores) != len(res.Job.Request.Score) {
			return
		}
		for i, p := range res.Job.Request.Score {
			got[p], keys[p] = res.Response.Scores[i], res.Key
		}
	}
	ph.Records = func(ctx context.Context, runID int64) error {
		recs := make([]store.Record, 0, len(pairs))
		for i, p := range pairs {
			s, ok := got[p]
			if !ok {
				continue
			}
			body, err := json.Marshal(scored{Scorer: r.o.Scorer, Gold: p.Reference, Pred: p.Prediction, Scores: s})
			if err != nil {
				return err
			}
			recs = append(recs, store.Record{Kind: KindScore, Key: fmt.Sprintf("%06d", i), CallKey: keys[p], Body: body})
		}
		return r.env.Records.PutRecords(ctx, runID, KindScore, recs)
	}
	return ph
}

// scorePlan is the scorer's calls, pairsPerScore pairs each.
func scorePlan(spec llm.Spec, pairs []llm.ScorePair) engine.Plan {
	var jobs []engine.Job
	for lo := 0; lo < len(pairs); lo += pairsPerScore {
		jobs = append(jobs, engine.Job{ID: fmt.Sprintf("score/%d", len(jobs)+1), Namespace: "score", Spec: spec,
			Request: llm.Request{Score: pairs[lo:min(len(pairs), lo+pairsPerScore)]}})
	}
	return engine.SlicePlan("scores", jobs)
}

// storedScorers are the premise scorers of a run's embedding and scoring
// phases, read from its records (none: the report pairs lexically and
// scores with METEOR alone); what names the embedder and the scorer.
func storedScorers(ctx context.Context, recs bench.RecordReader, runID int64) (Scorers, [2]string, error) {
	var x Scorers
	var names [2]string
	vecs := map[string][]float64{}
	if err := recs.Records(ctx, runID, KindEmbedding, func(rec store.Record) error {
		var e embedded
		if err := json.Unmarshal(rec.Body, &e); err != nil {
			return fmt.Errorf("record %s/%s: %w", KindEmbedding, rec.Key, err)
		}
		vecs[e.Text], names[0] = e.Vector, e.Model
		return nil
	}); err != nil {
		return x, names, err
	}
	if len(vecs) > 0 {
		x.Embed = lookup(vecs)
	}
	scores := map[llm.ScorePair]map[string]float64{}
	if err := recs.Records(ctx, runID, KindScore, func(rec store.Record) error {
		var s scored
		if err := json.Unmarshal(rec.Body, &s); err != nil {
			return fmt.Errorf("record %s/%s: %w", KindScore, rec.Key, err)
		}
		scores[llm.ScorePair{Reference: s.Gold, Prediction: s.Pred}], names[1] = s.Scores, s.Scorer
		return nil
	}); err != nil {
		return x, names, err
	}
	if len(scores) > 0 {
		x.Score = func(pairs []Pair) ([]map[string]float64, error) {
			out := make([]map[string]float64, len(pairs))
			var missing []string
			for i, p := range pairs {
				s, ok := scores[llm.ScorePair{Reference: p.Gold, Prediction: p.Pred}]
				if !ok {
					missing = append(missing, p.LineID)
				}
				out[i] = s
			}
			if len(missing) > 0 {
				sort.Strings(missing)
				return nil, fmt.Errorf("run %d has no scores for the pairs of lines %v", runID, missing)
			}
			return out, nil
		}
	}
	return x, names, nil
}
