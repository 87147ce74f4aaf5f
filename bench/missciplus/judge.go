package missciplus

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
)

// The premise judge aligns a reconstructed fallacy to a gold one: asked,
// for every gold interchangeable fallacy and every prediction of its
// class, whether the two premises apply the same flawed reasoning —
// upstream's ArgumentFallacyMapper with its judge's prompt
// (instruction same-reasoning-4 and make_premise_text, as
// SFTPromptFormatter puts them) on any model. Upstream's judge is a
// Llama 3 8B fine-tuned on Missci's premise pairs, whose weights are not
// public; a model asked zero-shot stands in for it, and the report names
// it.

// judgeInstruction is upstream's get_judge_instruction("same-reasoning-4").
const judgeInstruction = "Determine whether two premises exhibit identical false reasoning, regardless of their specificity.\n    Provide your answer in the first line of your response. Answer with \"match\" if both premises apply the same false reasoning. Answer with \"no-match\" if they apply different false reasoning."

// JudgePrompt is the judge's prompt for a generated and a reference
// premise.
func JudgePrompt(generated, reference string) string {
	return judgeInstruction + "\n" + "Premises:\n1. \"" + generated + "\"\n2. \"" + reference + "\"" +
		"\nQuestion: Do both premises use the same flawed reasoning (fallacy)?"
}

// SameReasoning reads a judge's answer as upstream's zero-shot Llama3Judge:
// "no-match", "no match" or "not match" anywhere: no; else "match": yes;
// else no (and unusable).
func SameReasoning(answer string) (same, usable bool) {
	a := strings.ToLower(answer)
	for _, k := range []string{"no-match", "no match", "not match"} {
		if strings.Contains(a, k) {
			return false, true
		}
	}
	if strings.Contains(a, "match") {
		return true, true
	}
	return false, false
}

// judgeMeta ties a judge call to the pair it compares.
type judgeMeta struct {
	Arg        int
	Gold, Pred string
	N          int // the call's place in the plan
}

// JudgePlan is a call per gold interchangeable fallacy and prediction of
// its class, argument by argument (gold classes sorted, then the gold and
// predicted fallacies in their order), as upstream's
// _make_global_alignment visits them.
func JudgePlan(spec llm.Spec, args []Argument, preds map[int]ArgumentPrediction) engine.Plan {
	var idx []int
	for i := range preds {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	var jobs []engine.Job
	for _, i := range idx {
		a, p := args[i], preds[i]
		goldBy := map[string][][2]string{} // class → (id, premise)
		for _, f := range a.Argument.Fallacies {
			for _, g := range f.Interchangeable {
				goldBy[g.Class] = append(goldBy[g.Class], [2]string{g.ID, g.Premise})
			}
		}
		var classes []string
		for c := range goldBy {
			classes = append(classes, c)
		}
		sort.Strings(classes)
		for _, c := range classes {
			for _, g := range goldBy[c] {
				for _, pr := range p.Prompts {
					for _, f := range pr.Fallacies {
						if f.class() != c {
							continue
						}
						req := llm.UserPrompt("", JudgePrompt(f.Premise, g[1]))
						req.MaxTokens, req.Temperature = 16, llm.Temp(0)
						jobs = append(jobs, engine.Job{ID: fmt.Sprintf("%s/%s/%s", a.ID, g[0], f.PredictionID), Namespace: Namespace + "/judge",
							Spec: spec, Request: req, Meta: judgeMeta{i, g[0], f.PredictionID, len(jobs)}})
					}
				}
			}
		}
	}
	return engine.SlicePlan(Name+" premise judge", jobs)
}
