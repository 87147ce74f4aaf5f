package missciplus

import (
	"fmt"
	"slices"
	"strings"
)

// The ranking metrics of upstream's missci/eval/ranking_metrics.py and its
// two evaluators, per argument; a report averages them over arguments
// (as upstream's np.mean) and resamples arguments for intervals.

// precisionAtK is the share of the top k passages that are gold (0 for an
// empty ranking; a ranking shorter than k counts its length).
func precisionAtK(gold []string, ranked []string, k int) float64 {
	if len(ranked) == 0 {
		return 0
	}
	top := ranked[:min(k, len(ranked))]
	hit := 0
	for _, p := range top {
		if slices.Contains(gold, p) {
			hit++
		}
	}
	return float64(hit) / float64(len(top))
}

// reciprocalRank is 1 / the rank of the first gold passage (0: none).
func reciprocalRank(gold []string, ranked []string) float64 {
	for i, p := range ranked {
		if slices.Contains(gold, p) {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// hasPositiveAt is 1 when a gold passage is among the top k.
func hasPositiveAt(gold []string, ranked []string, k int) float64 {
	for _, p := range ranked[:min(k, len(ranked))] {
		if slices.Contains(gold, p) {
			return 1
		}
	}
	return 0
}

// averagePrecision is scikit-learn's average_precision_score of the
// ranking's labels against strictly decreasing scores (upstream scores a
// ranking by np.linspace(1, 0, n)): the mean, over the gold passages, of
// the precision at each one's rank; with no gold passage scikit-learn's
// recall is 1 at every threshold and the score is −0.0 (upstream averages
// it in as 0).
func averagePrecision(ranked []string, gold map[string]bool) (float64, error) {
	if len(ranked) != len(gold) {
		return 0, fmt.Errorf("size mismatch: %d ranked, %d passages", len(ranked), len(gold))
	}
	hits, sum := 0, 0.0
	for i, p := range ranked {
		g, ok := gold[p]
		if !ok {
			return 0, fmt.Errorf("passage %s is not the study's", p)
		}
		if g {
			hits++
			sum += float64(hits) / float64(i+1)
		}
	}
	if hits == 0 {
		return 0, nil
	}
	return sum / float64(hits), nil
}

// Subtask1Metrics are the names of subtask 1's scores, in report order.
var Subtask1Metrics = []string{"P@1", "MRR", "has-positives-3", "has-positives-5", "has-positives-10"}

// Subtask1Scores are one argument's subtask 1 scores (Subtask1Metrics'
// order), as upstream's Subtask1Evaluator: the passages that state p0 are
// gold; closed setting (full false): the ranking is cut to the selected
// passages, which it must hold, every one; open setting: it must hold
// exactly the study's passages.
func Subtask1Scores(a Argument, ranked []string, full bool) ([]float64, error) {
	want := a.Passages(full)
	if !full {
		sel := a.Study.Selected
		ranked = slices.DeleteFunc(slices.Clone(ranked), func(p string) bool { _, ok := sel.Get(p); return !ok })
	}
	if !sameSet(ranked, want) {
		return nil, fmt.Errorf("%s: the ranking holds %d passages, not the %d of the study's %s passages", a.ID, len(ranked), len(want), map[bool]string{true: "", false: "selected"}[full])
	}
	gold := a.P0Passages()
	return []float64{precisionAtK(gold, ranked, 1), reciprocalRank(gold, ranked),
		hasPositiveAt(gold, ranked, 3), hasPositiveAt(gold, ranked, 5), hasPositiveAt(gold, ranked, 10)}, nil
}

// Subtask2Metrics are the names of subtask 2's scores (the open setting:
// every passage of the study), in report order.
var Subtask2Metrics = []string{"P@1", "P@3", "P@5", "P@10", "R@0", "R@1", "R@3", "R@5", "R@10", "R@All", "mAP"}

// Subtask2Scores are one argument's subtask 2 scores (Subtask2Metrics'
// order), as upstream's Subtask2EvaluatorOpen: P@k over the passages a
// fallacy rests on; R@k the share of the fallacies whose passage is in the
// top k, those resting on p0 alone (no context) counted as found; mAP
// over every passage of the study.
func Subtask2Scores(a Argument, ranked []string) ([]float64, error) {
	gold := a.SelectedFallacyPassages()
	var goldList []string
	for p, ok := range gold {
		if ok {
			goldList = append(goldList, p)
		}
	}
	var out []float64
	for _, k := range []int{1, 3, 5, 10} {
		if len(ranked) == 0 {
			return nil, fmt.Errorf("%s: an empty ranking", a.ID)
		}
		out = append(out, precisionAtK(goldList, ranked, k))
	}
	for _, k := range []int{0, 1, 3, 5, 10, -1} {
		out = append(out, recallAt(a, ranked, k))
	}
	ap, err := averagePrecision(ranked, a.FallacyPassages())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.ID, err)
	}
	return append(out, ap), nil
}

// recallAt is upstream's passage_wise_r_at_k (k < 0: the whole ranking).
func recallAt(a Argument, ranked []string, k int) float64 {
	found := map[string]bool{}
	byPassage := map[string][]string{}
	for _, f := range a.Argument.Fallacies {
		if strings.TrimSpace(f.Context) == "" {
			found[f.ID] = true
		}
		for _, m := range f.Mapping {
			byPassage[m.Passage] = append(byPassage[m.Passage], f.ID)
		}
	}
	if k >= 0 {
		ranked = ranked[:min(k, len(ranked))]
	}
	for _, p := range ranked {
		for _, id := range byPassage[p] {
			found[id] = true
		}
	}
	if len(a.Argument.Fallacies) == 0 {
		return 1
	}
	ids := map[string]bool{}
	for _, f := range a.Argument.Fallacies {
		ids[f.ID] = true
	}
	return float64(len(found)) / float64(len(ids))
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}
