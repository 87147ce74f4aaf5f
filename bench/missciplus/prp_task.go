package missciplus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/runner"
	"github.com/fallacylab/fallacylab/store"
)

// prpSpec is a PRP run: rounds of comparisons through the engine (each
// cached: a run interrupted and started again replays the answers it has
// and pays only for the rest), the rankings after each iteration stored
// with the setup in one transaction.
func (o Options) prpSpec(env bench.Env, args []Argument, full bool) (runner.Spec, error) {
	spec, err := llm.ParseSpec(o.Model)
	if err != nil || o.Model == "" {
		return runner.Spec{}, fmt.Errorf("--ranker prp needs --model provider:model (e.g. openai:gpt-4.1-mini)")
	}
	if o.InitialOrder != "natural" && o.InitialOrder != "random" {
		return runner.Spec{}, fmt.Errorf("--initial-order %q: want natural or random", o.InitialOrder)
	}
	if o.Template == "" {
		o.Template = "qin-claim"
	}
	if _, err := PRPPrompt(o.Template, "", Passage{}, Passage{}, false); err != nil {
		return runner.Spec{}, fmt.Errorf("--template: %w", err)
	}
	chosen, err := bench.Select(o.Select, "arguments", args, func(a Argument) string { return a.ID })
	if err != nil {
		return runner.Spec{}, err
	}
	keep := map[string]bool{}
	setup := Setup{Subtask: o.Subtask, Split: o.Split, Ranker: "prp", Full: full, Model: spec.String(), Template: o.Template,
		Iterations: o.Iterations, InitialOrder: o.InitialOrder, AddSection: o.AddSection, P0: o.P0}
	if o.InitialOrder == "random" || o.P0 {
		setup.Seed = o.Seed
	}
	for _, a := range chosen {
		keep[a.ID] = true
		setup.IDs = append(setup.IDs, a.ID)
	}
	po := PRPOptions{Spec: spec, Template: o.Template, Iterations: o.Iterations, Random: o.InitialOrder == "random", Seed: o.Seed,
		AddSection: o.AddSection, Full: full, MaxTokens: o.MaxTokens}
	if o.Temperature != 0 {
		po.Temperature = llm.Temp(o.Temperature)
	}
	if o.Iterations < 1 {
		return runner.Spec{}, fmt.Errorf("--iterations %d: want 1 or more", o.Iterations)
	}
	p := Definition.Phase("pairwise")
	ph := runner.Phase{Name: p.Name,
		Dry: func(context.Context) (engine.Plan, string, error) {
			plan, err := DryPRP(args, keep, po)
			return plan, fmt.Sprintf("dry run: %d pairwise comparisons of %d arguments (%d iterations), one at a time per argument", plan.Len, len(chosen), o.Iterations), err
		},
		Do: func(ctx context.Context, a *runner.Active) error {
			// One lifecycle phase for every round: the share of answers
			// naming no passage is weighed over all of them.
			lp := a.Phase(p.Name, p.Hint)
			var total engine.Summary
			rankings, err := PRP(ctx, args, keep, po, func(ctx context.Context, round int, jobs []engine.Job) (map[int]string, error) {
				answers := map[int]string{}
				var failed []string
				sum, err := a.Calls(ctx, engine.SlicePlan(fmt.Sprintf("%s prp round %d", Name, round), jobs), func(r engine.Result) {
					usable := r.Err == nil && r.Response != nil && p.Usable(r)
					lp.Observe(r, usable)
					if r.Err != nil || r.Response == nil {
						failed = append(failed, r.Job.ID)
						return
					}
					answers[r.Job.Meta.(pairMeta).Arg] = r.Response.Text
				})
				addSummary(&total, sum)
				if err != nil {
					return nil, err
				}
				if sum.BudgetStopped {
					return nil, errBudgetSpent
				}
				if len(failed) > 0 {
					return nil, fmt.Errorf("round %d: %d comparisons got no answer (first: %s): run the same command again to finish (answers so far are cached)", round, len(failed), failed[0])
				}
				return answers, nil
			})
			if eerr := lp.End(ctx, total); err == nil || errors.Is(err, errBudgetSpent) {
				err = eerr
			}
			if err != nil || total.BudgetStopped {
				// A spent budget ends the run as the lifecycle says it
				// (exit 3: raise --budget and run the same command again),
				// with no rankings stored: they would be half made.
				return err
			}
			body, err := json.Marshal(setup)
			if err != nil {
				return err
			}
			recs := []store.Record{{Kind: KindSetup, Key: "setup", Body: body}}
			for _, r := range rankings {
				b, err := json.Marshal(stored{Ranking: Ranking{ID: r.ID, Ranked: r.Iterations[len(r.Iterations)-1]}, Iterations: r.Iterations})
				if err != nil {
					return err
				}
				recs = append(recs, store.Record{Kind: KindRanking, Key: r.ID, Body: b})
			}
			return env.Records.PutRecordKinds(ctx, a.ID, []string{KindSetup, KindRanking}, recs)
		}}
	name := fmt.Sprintf("%s subtask %d %s prp %s %s", Name, o.Subtask, o.Split, o.Template, spec.String())
	return runner.Spec{Name: name, Options: o, Specs: []llm.Spec{spec}, Phases: []runner.Phase{ph}}, nil
}

// errBudgetSpent ends the pairwise rounds when the budget stopped one.
var errBudgetSpent = errors.New("the budget is spent")

// addSummary adds a round's engine summary to the stage's.
func addSummary(t *engine.Summary, s engine.Summary) {
	t.Total += s.Total
	t.Done += s.Done
	t.Cached += s.Cached
	t.Failed += s.Failed
	t.Skipped += s.Skipped
	t.Usage.InputTokens += s.Usage.InputTokens
	t.Usage.OutputTokens += s.Usage.OutputTokens
	t.Cost += s.Cost
	t.Unpriced += s.Unpriced
	t.Retries += s.Retries
	t.RateLimited += s.RateLimited
	t.Requests += s.Requests
	t.Elapsed += s.Elapsed
	t.Failures = append(t.Failures, s.Failures...)
	t.Interrupted = t.Interrupted || s.Interrupted
	t.BudgetStopped = t.BudgetStopped || s.BudgetStopped
	if t.StoreErr == nil {
		t.StoreErr = s.StoreErr
	}
	if t.Started.IsZero() {
		t.Started = s.Started
	}
}
