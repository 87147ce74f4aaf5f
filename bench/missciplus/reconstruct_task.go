package missciplus

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/runner"
	"github.com/fallacylab/fallacylab/store"
)

// KindReconstruction is a subtask 3 record: one argument's reconstruction
// in upstream's mapped format (ArgumentPrediction).
const KindReconstruction = Name + "/reconstruction"

// reconstructUsable: an answer that gives a fallacy or says there is none.
func reconstructUsable(r engine.Result) bool {
	p := ParseReconstruction(r.Response.Text)
	return p.IsParsed || p.ValidLogic
}

func judgeUsable(r engine.Result) bool { _, ok := SameReasoning(r.Response.Text); return ok }

// reconstructSpec is a subtask 3 run: the prompts through the engine, each
// answer parsed, then the premise judge's calls, the arguments'
// reconstructions stored with the setup in one transaction.
func (o Options) reconstructSpec(env bench.Env, args []Argument) (runner.Spec, error) {
	spec, err := llm.ParseSpec(o.Model)
	if err != nil || o.Model == "" {
		return runner.Spec{}, fmt.Errorf("--subtask 3 needs --model provider:model, the model that reconstructs")
	}
	judge := spec
	if o.Judge != "" {
		if judge, err = llm.ParseSpec(o.Judge); err != nil {
			return runner.Spec{}, fmt.Errorf("--judge: %w", err)
		}
	}
	ro := ReconstructOptions{Spec: spec, Template: o.Template, Layout: o.Layout, Order: o.Order, AddSection: o.AddSection,
		AllPassages: o.AllPassages, Seed: o.Seed, MaxTokens: o.MaxTokens}
	if o.Temperature != 0 {
		ro.Temperature = llm.Temp(o.Temperature)
	}
	chosen, err := bench.Select(o.Select, "arguments", args, func(a Argument) string { return a.ID })
	if err != nil {
		return runner.Spec{}, err
	}
	keep := map[string]bool{}
	for _, a := range chosen {
		keep[a.ID] = true
	}
	prompts, err := ro.Prompts(args, keep)
	if err != nil {
		return runner.Spec{}, err
	}
	setup := Setup{Subtask: 3, Split: o.Split, Ranker: o.Layout, Model: spec.String(), Template: o.Template, AddSection: o.AddSection,
		Seed: o.Seed, Judge: judge.String(), Order: o.Order, AllPassages: o.AllPassages}
	for _, a := range chosen {
		setup.IDs = append(setup.IDs, a.ID)
	}
	answers := make([]string, len(prompts))
	got := make([]bool, len(prompts))
	preds := map[int]ArgumentPrediction{}
	rec := Definition.Phase("reconstruction")
	gen := runner.Phase{Name: rec.Name, Hint: rec.Hint, Usable: rec.Usable, Plan: ro.ReconstructPlan(prompts),
		OnResult: func(r engine.Result) {
			if r.Err == nil && r.Response != nil {
				n := r.Job.Meta.(promptMeta).N
				answers[n], got[n] = r.Response.Text, true
			}
		}}
	jp := Definition.Phase("premise judge")
	var alignments []judgeResult
	mapping := runner.Phase{Name: jp.Name, Hint: jp.Hint, Usable: jp.Usable,
		Planner: func(context.Context) (engine.Plan, error) {
			for n, p := range prompts {
				if !got[n] {
					return engine.Plan{}, fmt.Errorf("prompt %d of %s has no answer: run the same command again to finish", n+1, args[p.Arg].ID)
				}
			}
			for k, v := range assemble(prompts, answers, args) {
				preds[k] = v
			}
			return JudgePlan(judge, args, preds), nil
		},
		Dry: func(context.Context) (engine.Plan, string, error) {
			return engine.Plan{}, fmt.Sprintf("dry run: the premise judge's calls (%s) depend on the answers: one per gold fallacy and prediction of its class", judge), nil
		},
		OnResult: func(r engine.Result) {
			if r.Err == nil && r.Response != nil {
				same, _ := SameReasoning(r.Response.Text)
				alignments = append(alignments, judgeResult{r.Job.Meta.(judgeMeta), same})
			}
		},
		Records: func(ctx context.Context, runID int64) error {
			if len(preds) < len(chosen) {
				return nil // the reconstruction did not finish: nothing is stored, the same command finishes it
			}
			final := align(preds, alignments)
			body, err := json.Marshal(setup)
			if err != nil {
				return err
			}
			recs := []store.Record{{Kind: KindSetup, Key: "setup", Body: body}}
			var idx []int
			for i := range final {
				idx = append(idx, i)
			}
			sort.Ints(idx)
			for _, i := range idx {
				b, err := json.Marshal(final[i])
				if err != nil {
					return err
				}
				recs = append(recs, store.Record{Kind: KindReconstruction, Key: args[i].ID, Body: b})
			}
			return env.Records.PutRecordKinds(ctx, runID, []string{KindSetup, KindReconstruction}, recs)
		}}
	name := fmt.Sprintf("%s subtask 3 %s %s %s %s", Name, o.Split, o.Layout, o.Template, spec.String())
	return runner.Spec{Name: name, Options: o, Specs: []llm.Spec{spec, judge}, Phases: []runner.Phase{gen, mapping}}, nil
}

// judgeResult is one judge call's verdict on its pair.
type judgeResult struct {
	judgeMeta
	same bool
}

// assemble parses the answers into each argument's reconstruction, as
// upstream's parse step: prediction ids "prompt-fallacy" (prompts counted
// over the run), each fallacy with the passages its prompt gave.
func assemble(prompts []reconstructPrompt, answers []string, args []Argument) map[int]ArgumentPrediction {
	out := map[int]ArgumentPrediction{}
	for n, p := range prompts {
		parsed := ParseReconstruction(answers[n])
		pp := PromptPrediction{From: p.From, IsParsed: parsed.IsParsed}
		for j, f := range parsed.Fallacies {
			pp.Fallacies = append(pp.Fallacies, PredictedFallacy{PredictionID: fmt.Sprintf("%d-%d", n+1, j+1), Class: f.Class,
				Premise: f.Premise, Rank: float64(f.Rank), From: p.From})
		}
		ap := out[p.Arg]
		ap.Argument = args[p.Arg].ID
		ap.Prompts = append(ap.Prompts, pp)
		out[p.Arg] = ap
	}
	return out
}

// align adds the judge's verdicts to the reconstructions: each gold
// interchangeable fallacy with the predictions judged to apply its
// reasoning, in the order the judge was asked.
func align(preds map[int]ArgumentPrediction, verdicts []judgeResult) map[int]ArgumentPrediction {
	verdicts = append([]judgeResult(nil), verdicts...)
	// the plan's order, not the order the answers came in
	sort.Slice(verdicts, func(i, j int) bool { return verdicts[i].N < verdicts[j].N })
	out := map[int]ArgumentPrediction{}
	for i, p := range preds {
		p.Alignment = map[string][]string{}
		out[i] = p
	}
	for _, v := range verdicts {
		if v.same {
			p := out[v.Arg]
			p.Alignment[v.Gold] = append(p.Alignment[v.Gold], v.Pred)
		}
	}
	return out
}

// layoutVersion is the evaluator's prompt version of a run's layout.
func layoutVersion(layout string) string {
	if strings.EqualFold(layout, Concat) {
		return ConcatAll
	}
	return layout
}

// reconstructionRunReport is a subtask 3 run's report: its stored
// reconstructions scored as upstream's evaluator (passage-wise: the
// predictions from the gold passages; concat: as the prompts gave them),
// with the run's models, template and judge.
func reconstructionRunReport(ctx context.Context, rs bench.RecordReader, runID int64, setup Setup, o ReportOptions) (*report.Report, error) {
	all, gold, err := setup.Arguments()
	if err != nil {
		return nil, err
	}
	preds, err := LoadReconstructions(ctx, rs, runID)
	if err != nil {
		return nil, err
	}
	if len(preds) == 0 {
		return nil, fmt.Errorf("run %d holds no reconstruction yet (it did not finish: run the same command again)", runID)
	}
	eo := EvalOptions{Version: layoutVersion(setup.Ranker), AllPassages: setup.AllPassages}
	rep, err := ReconstructionReport(preds, gold, eo, o)
	if err != nil {
		return nil, err
	}
	meta := [][2]string{{"split", fmt.Sprintf("%s (%d of its %d arguments)", setup.Split, len(gold), len(all))},
		{"model", setup.Model}, {"template", setup.Template},
		{"premise judge", setup.Judge + " asked zero-shot with upstream's same-reasoning-4 prompt (upstream's is a fine-tuned Llama 3 8B)"}}
	if setup.Ranker == Concat {
		meta = append(meta, [2]string{"passages", fmt.Sprintf("order %s, every selected passage %v", setup.Order, setup.AllPassages)})
	}
	meta = append(meta, [2]string{"p0 passage", fmt.Sprintf("drawn with seed %d; section titles %v", setup.Seed, setup.AddSection)})
	rep.Meta = append(meta, rep.Meta...)
	return rep, nil
}
