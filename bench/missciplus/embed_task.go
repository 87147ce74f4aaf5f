package missciplus

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/runner"
	"github.com/fallacylab/fallacylab/store"
)

// embedSpec is an embedding-ranker run: one embeddings job per argument
// through the engine, each argument's passages ranked by cosine to its
// claim, stored with the setup in one transaction.
func (o Options) embedSpec(env bench.Env, args []Argument, full bool) (runner.Spec, error) {
	spec, err := llm.ParseSpec(o.Embedder)
	if err != nil || o.Embedder == "" {
		return runner.Spec{}, fmt.Errorf("--ranker embedding needs --embedder provider:model (an embeddings model, e.g. openai:text-embedding-3-small)")
	}
	if o.Model != "" {
		return runner.Spec{}, fmt.Errorf("--model: the embedding ranker calls --embedder, no chat model")
	}
	eo := EmbedOptions{Spec: spec, Variant: o.Variant, K: o.K, AddTitle: o.AddSection, Full: full}
	if err := eo.check(); err != nil {
		return runner.Spec{}, err
	}
	chosen, err := bench.Select(o.Select, "arguments", args, func(a Argument) string { return a.ID })
	if err != nil {
		return runner.Spec{}, err
	}
	keep := map[string]bool{}
	setup := Setup{Subtask: o.Subtask, Split: o.Split, Ranker: "embedding", Full: full, Embedder: spec.String(), Variant: o.Variant, AddSection: o.AddSection, P0: o.P0}
	if o.P0 {
		setup.Seed = o.Seed
	}
	if o.Variant == "mean" {
		setup.K = o.K
	}
	for _, a := range chosen {
		keep[a.ID] = true
		setup.IDs = append(setup.IDs, a.ID)
	}
	plan, err := EmbedPlan(args, keep, eo)
	if err != nil {
		return runner.Spec{}, err
	}
	var rankings []Ranking
	var bad []string
	ph := runner.Phase{Name: "embedding", Plan: plan,
		Usable: func(r engine.Result) bool { return len(r.Response.Vectors) == len(r.Job.Request.Embed) },
		OnResult: func(r engine.Result) {
			if r.Err != nil || r.Response == nil {
				return
			}
			rk, _, err := EmbedRanking(args, r, eo)
			if err != nil {
				bad = append(bad, err.Error())
				return
			}
			rankings = append(rankings, rk)
		},
		Records: func(ctx context.Context, runID int64) error {
			if len(bad) > 0 {
				return fmt.Errorf("%d arguments could not be ranked (first: %s)", len(bad), bad[0])
			}
			if len(rankings) < len(chosen) {
				return nil // an interrupted run stores nothing; the same command again finishes it from the cache
			}
			body, err := json.Marshal(setup)
			if err != nil {
				return err
			}
			recs := []store.Record{{Kind: KindSetup, Key: "setup", Body: body}}
			for _, r := range rankings {
				b, err := json.Marshal(stored{Ranking: r})
				if err != nil {
					return err
				}
				recs = append(recs, store.Record{Kind: KindRanking, Key: r.ID, Body: b})
			}
			return env.Records.PutRecordKinds(ctx, runID, []string{KindSetup, KindRanking}, recs)
		}}
	name := fmt.Sprintf("%s subtask %d %s embedding %s %s", Name, o.Subtask, o.Split, o.Variant, spec.String())
	return runner.Spec{Name: name, Options: o, Specs: []llm.Spec{spec}, Phases: []runner.Phase{ph}}, nil
}
