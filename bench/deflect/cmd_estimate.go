package deflect

import (
	"context"
	"fmt"
	"strings"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
)

// projectedJudgePlan is the judge plan a run would make: stored
// generations as they are, and for each generation still to make a stand-in
// response as long as the model is expected to write (its stored answers'
// mean, else max tokens, else engine.DefaultOutputGuess), so the dry run can
// price the judges too. Stand-ins never reach a provider or the store.
func projectedJudgePlan(ctx context.Context, s bench.StoredAnswers, b *Benchmark, genPlan engine.Plan, jopt JudgeOptions, maxTokens int) (engine.Plan, int, error) {
	var gens []Generation
	expected := map[string]int{}
	projected := 0
	for j := range genPlan.Jobs {
		resp, hit, err := s.Stored(ctx, j)
		if err != nil {
			return engine.Plan{}, 0, err
		}
		if hit {
			if g, ok := GenerationFromResult(engine.Result{Job: j, Response: resp}); ok {
				gens = append(gens, g)
			}
			continue
		}
		n, seen := expected[j.Spec.String()]
		if !seen {
			mean, k, err := s.OutputTokens(ctx, j.Spec, NSGenerate)
			if err != nil {
				return engine.Plan{}, 0, err
			}
			switch {
			case k > 0:
				n = int(mean + 0.5)
			case j.Request.MaxTokens > 0:
				n = j.Request.MaxTokens
			case maxTokens > 0:
				n = maxTokens
			default:
				n = engine.DefaultOutputGuess
			}
			expected[j.Spec.String()] = n
		}
		// The engine's estimator counts about four characters per token.
		if g, ok := GenerationFromResult(engine.Result{Job: j, Response: newStandIn(j.ID, n)}); ok {
			gens = append(gens, g)
			projected++
		}
	}
	p, err := b.JudgePlan(gens, jopt)
	return p, projected, err
}

func newStandIn(id string, tokens int) *llm.Response {
	return &llm.Response{Text: fmt.Sprintf("[projected %s] %s", id, strings.Repeat("abcd", tokens))}
}
