package missciplus

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
)

// Subtask 3's evaluation, as upstream's
// missci/eval/evaluator_gen_classify_missciplus.py and
// missci/eval/missciplus_metrics.py score a file of reconstructed
// fallacies that its parse and map steps left: claim-level multi-label
// scores of the fallacy classes (micro, macro and sample-averaged F1, and
// each class's precision, recall and F1, scikit-learn's with
// zero_division 0), and fallacy-level alignment — how many gold
// interchangeable fallacies a prediction was aligned to (by a premise
// judge, or by class alone), Arg@1 — over every prediction, and the top
// 1, 3, 5 and 10 of each argument.

// PredictedFallacy is one reconstructed fallacy.
type PredictedFallacy struct {
	PredictionID string   `json:"prediction_id"`
	Class        *string  `json:"normalized_fallacy_class"`
	Premise      string   `json:"fallacious_premise"`
	Rank         float64  `json:"per-prompt-position-rank"`
	From         []string `json:"from,omitempty"`
}

// class is the fallacy's normalised class ("" : none).
func (f PredictedFallacy) class() string {
	if f.Class == nil {
		return ""
	}
	return *f.Class
}

// counted reports whether the fallacy names one of the classes (upstream
// leaves out Other, None and no class).
func (f PredictedFallacy) counted() bool {
	c := f.class()
	return c != "" && c != "Other" && c != "None"
}

// PromptPrediction is what one prompt's answer gave: the passages it was
// given ("accurate_premise" for p0 itself) and the fallacies parsed.
type PromptPrediction struct {
	Fallacies []PredictedFallacy `json:"fallacies"`
	From      []string           `json:"from"`
	IsParsed  bool               `json:"is_parsed"`
}

// ArgumentPrediction is one argument's reconstruction: every prompt's
// fallacies and their alignment to the gold interchangeable fallacies
// (gold id → prediction ids).
type ArgumentPrediction struct {
	Argument  string              `json:"argument"`
	Prompts   []PromptPrediction  `json:"prompt_based_predictions"`
	Alignment map[string][]string `json:"alignment"`
}

// ParsePredictions reads upstream's mapped prediction file (one argument
// per line); name is the file, for errors.
func ParsePredictions(r io.Reader, name string) ([]ArgumentPrediction, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []ArgumentPrediction
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var p ArgumentPrediction
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, line, err)
		}
		if p.Argument == "" {
			return nil, fmt.Errorf("%s line %d: field argument: missing", name, line)
		}
		out = append(out, p)
	}
	return out, sc.Err()
}

// Prompt layouts of subtask 3 (upstream's prompt versions).
const (
	PassageWise   = "passage-wise"
	ConcatAll     = "concat-all"
	ConcatContext = "concat-context"
	ContextWise   = "context-wise"
)

// EvalOptions choose what is scored: every prediction (AllPassages), or
// only those from the passages the fallacies rest on (and p0's), as
// upstream's evaluate without --all; OnlyMappedContext, for the context
// layouts, keeps the contexts mapped to passages.
type EvalOptions struct {
	Version           string
	AllPassages       bool
	OnlyMappedContext bool
}

// keepFrom keeps the prompts whose passages are all in keys, rebuilding
// the alignment over the predictions kept.
func keepFrom(p ArgumentPrediction, keys map[string]bool) ArgumentPrediction {
	out := ArgumentPrediction{Argument: p.Argument, Alignment: map[string][]string{}}
	kept := map[string]bool{}
	for _, pr := range p.Prompts {
		all := true
		for _, k := range pr.From {
			all = all && keys[k]
		}
		if all {
			out.Prompts = append(out.Prompts, pr)
			for _, f := range pr.Fallacies {
				kept[f.PredictionID] = true
			}
		}
	}
	for g, ids := range p.Alignment {
		var k []string
		for _, id := range ids {
			if kept[id] {
				k = append(k, id)
			}
		}
		if len(k) > 0 {
			out.Alignment[g] = k
		}
	}
	return out
}

// goldOnly is upstream's remove_non_gold_passage_predictions.
func goldOnly(p ArgumentPrediction, a Argument, o EvalOptions) (ArgumentPrediction, error) {
	switch o.Version {
	case ConcatContext, ContextWise:
		if !o.OnlyMappedContext {
			return p, nil
		}
		keys := map[string]bool{"accurate_premise": true}
		for _, f := range a.Argument.Fallacies {
			if len(f.Mapping) > 0 || strings.TrimSpace(f.Context) == "" {
				keys[f.ID] = true
			}
		}
		return keepFrom(p, keys), nil
	}
	keys := map[string]bool{}
	for id, ok := range a.selectedFallacyPassages() {
		if ok {
			keys[id] = true
		}
	}
	p0 := map[string]bool{}
	for _, id := range a.P0Passages() {
		p0[id] = true
	}
	if len(p0) == 0 {
		p0["accurate_premise"] = true // upstream's backup: p0 itself, no passage
	}
	switch o.Version {
	case ConcatAll:
		used := map[string]bool{}
		var concats []string
		for _, pr := range p.Prompts {
			c := strings.Join(pr.From, "\x00")
			if !slices.Contains(concats, c) {
				concats = append(concats, c)
			}
			for _, k := range pr.From {
				used[k] = true
			}
		}
		if len(concats) != 1 {
			return p, fmt.Errorf("%s: %d passage concatenations, want one (the concat layout)", p.Argument, len(concats))
		}
		extra := 0
		for k := range keys {
			if !used[k] {
				return p, fmt.Errorf("%s: fallacy passage %s was not given to the model", p.Argument, k)
			}
		}
		for k := range used {
			if !keys[k] {
				extra++
				if !p0[k] {
					return p, fmt.Errorf("%s: passage %s is neither a fallacy's nor p0's", p.Argument, k)
				}
			}
		}
		if extra > 1 {
			return p, fmt.Errorf("%s: %d passages beside the fallacies'", p.Argument, extra)
		}
		return p, nil
	case PassageWise:
		var p0Key string
		n := 0
		seen := map[string]bool{}
		for _, pr := range p.Prompts {
			c := strings.Join(pr.From, "\x00")
			if len(pr.From) == 1 && !seen[c] {
				p0Key = pr.From[0]
				n++
			}
			seen[c] = true
		}
		if n != 1 {
			return p, fmt.Errorf("%s: %d prompts of p0 alone, want one (the passage-wise layout)", p.Argument, n)
		}
		if !p0[p0Key] && p0Key != "accurate_premise" {
			return p, fmt.Errorf("%s: the p0 prompt's passage %s does not state p0", p.Argument, p0Key)
		}
		keys[p0Key] = true
		return keepFrom(p, keys), nil
	}
	return p, fmt.Errorf("prompt layout %q: want %s, %s, %s or %s", o.Version, PassageWise, ConcatAll, ConcatContext, ContextWise)
}

// selectedFallacyPassages is upstream's get_passage_mapping_dict_for_
// fallacies over the selected passages: a passage is relevant when a
// fallacy rests on it, or it states p0 and a fallacy has no context.
func (a Argument) selectedFallacyPassages() map[string]bool {
	out := map[string]bool{}
	for _, id := range a.Study.Selected.IDs() {
		out[id] = false
	}
	for _, f := range a.Argument.Fallacies {
		for _, m := range f.Mapping {
			out[m.Passage] = true
		}
	}
	for _, f := range a.Argument.Fallacies {
		if len(f.Context) == 0 {
			for _, m := range a.Argument.Accurate.Mapping {
				out[m.Passage] = true
			}
		}
	}
	return out
}

// topK is an argument's top k counted fallacies (k < 0: all of them, in
// order): by their position in their prompt's answer, a stable sort
// (upstream meant a secondary key favouring rarer classes, but its sort
// reads one fallacy's penalty for all, so position alone orders them).
func topK(p ArgumentPrediction, k int) []PredictedFallacy {
	var out []PredictedFallacy
	for _, pr := range p.Prompts {
		for _, f := range pr.Fallacies {
			if f.counted() {
				out = append(out, f)
			}
		}
	}
	if k < 0 {
		return out
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Rank < out[j].Rank })
	return out[:min(k, len(out))]
}

// Classes are the classes the claim-level scores are over, sorted as
// upstream's sorted(FALLACY_DICT) (the nine, and None).
var Classes = []string{"Ambiguity", "Biased Sample Fallacy", "Causal Oversimplification", "Fallacy of Division/Composition",
	"Fallacy of Exclusion", "False Dilemma / Affirming the Disjunct", "False Equivalence", "Hasty Generalization",
	"Impossible Expectations", "None"}

// ClassScore is one class's precision, recall and F1.
type ClassScore struct {
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
}

// ClaimLevel are the claim-level multi-label scores.
type ClaimLevel struct {
	F1Micro   float64               `json:"f1_micro"`
	F1Macro   float64               `json:"f1_macro"`
	F1Samples float64               `json:"f1_sample-averaged"`
	PerClass  map[string]ClassScore `json:"fallacy_wise"`
}

// Interchangeable are the fallacy-level counts over interchangeable
// fallacies.
type Interchangeable struct {
	TotalPredicted int     `json:"total_predicted"`
	TotalGold      int     `json:"total_gold"`
	TotalMapped    int     `json:"total_mapped"`
	Recall         float64 `json:"recall"`
	Precision      float64 `json:"precision"` // NaN: nothing predicted
}

// Necessary are the fallacy-level counts over the argument's necessary
// fallacies (its reasoning lines), and Arg@1.
type Necessary struct {
	TotalGold    int     `json:"total_gold"`
	TotalMapped  int     `json:"total_mapped"`
	RecallMapped float64 `json:"recall_mapped"`
	Arg1         float64 `json:"arg@1"`
}

// FallacyLevel is the alignment of predictions to gold fallacies.
type FallacyLevel struct {
	Interchangeable Interchangeable `json:"interchangeable_fallacy_metrics"`
	Necessary       Necessary       `json:"necessary_fallacy_metrics"`
}

// TopScores are the scores of one cut of the predictions.
type TopScores struct {
	ClaimLevel     ClaimLevel   `json:"claim_level_multi_label"`
	Aligned        FallacyLevel `json:"fallacy_level"`
	ByClassOnly    FallacyLevel `json:"fallacy_level_no_premise"`
	ArgumentsCount int          `json:"-"`
}

// Spread is a mean, median and population standard deviation.
type Spread struct {
	Mean   float64 `json:"mean"`
	Median float64 `json:"median"`
	Std    float64 `json:"std"`
}

// Stats describe the predictions scored.
type Stats struct {
	// ArgToPassages are the passages each argument's prompts were given
	// (sorted; upstream lists a set).
	ArgToPassages    map[string][]string `json:"arg_to_passages"`
	Arguments        int                 `json:"arguments"`
	Prompts          int                 `json:"prompts"`
	ParsedAbsolute   int                 `json:"parsed_absolute"`
	ParsedRelative   float64             `json:"parsed_relative"`
	PerPrompt        Spread              `json:"predictions_per_prompt"`
	PerArgument      Spread              `json:"predictions_per_arg"`
	TotalPredictions int                 `json:"total_predictions"`
}

// ReconstructionScores are upstream's evaluate_instances: the stats and
// the scores of every prediction and of each argument's top 1, 3, 5, 10.
type ReconstructionScores struct {
	Stats Stats     `json:"stats"`
	All   TopScores `json:"all"`
	Top1  TopScores `json:"top1"`
	Top3  TopScores `json:"top3"`
	Top5  TopScores `json:"top5"`
	Top10 TopScores `json:"top10"`
}

// EvaluateReconstruction scores predictions of every argument of gold
// (the split) as upstream's GenClassifyEvaluatorMissciPlus.evaluate_file.
func EvaluateReconstruction(preds []ArgumentPrediction, gold []Argument, o EvalOptions) (ReconstructionScores, error) {
	byID := map[string]Argument{}
	for _, a := range gold {
		byID[a.ID] = a
	}
	var use []ArgumentPrediction
	have := map[string]bool{}
	for _, p := range preds {
		a, ok := byID[p.Argument]
		if !ok {
			return ReconstructionScores{}, fmt.Errorf("prediction for %s, which is not an argument of the split", p.Argument)
		}
		if have[p.Argument] {
			return ReconstructionScores{}, fmt.Errorf("argument %s is predicted twice", p.Argument)
		}
		have[p.Argument] = true
		if !o.AllPassages {
			var err error
			if p, err = goldOnly(p, a, o); err != nil {
				return ReconstructionScores{}, err
			}
		}
		use = append(use, p)
	}
	for _, a := range gold {
		if !have[a.ID] {
			return ReconstructionScores{}, fmt.Errorf("argument %s has no prediction (upstream scores every argument of the split)", a.ID)
		}
	}
	out := ReconstructionScores{Stats: reconstructionStats(use)}
	for _, c := range []struct {
		k  int
		to *TopScores
	}{{-1, &out.All}, {1, &out.Top1}, {3, &out.Top3}, {5, &out.Top5}, {10, &out.Top10}} {
		*c.to = scoreTop(use, gold, c.k)
	}
	return out, nil
}

func reconstructionStats(preds []ArgumentPrediction) Stats {
	s := Stats{ArgToPassages: map[string][]string{}}
	var perPrompt, perArg []float64
	for _, p := range preds {
		n := 0
		used := []string{}
		for _, pr := range p.Prompts {
			for _, k := range pr.From {
				if !slices.Contains(used, k) {
					used = append(used, k)
				}
			}
			s.Prompts++
			if pr.IsParsed {
				s.ParsedAbsolute++
			}
			perPrompt = append(perPrompt, float64(len(pr.Fallacies)))
			n += len(pr.Fallacies)
		}
		slices.Sort(used)
		s.ArgToPassages[p.Argument] = used
		perArg = append(perArg, float64(n))
		s.TotalPredictions += n
	}
	s.Arguments = len(preds)
	s.ParsedRelative = float64(s.ParsedAbsolute) / float64(s.Prompts)
	s.PerPrompt, s.PerArgument = spread(perPrompt), spread(perArg)
	return s
}

// spread is numpy's mean, median and std (ddof 0).
func spread(x []float64) Spread {
	if len(x) == 0 {
		return Spread{math.NaN(), math.NaN(), math.NaN()}
	}
	mean := 0.0
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	ss := 0.0
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	s := slices.Clone(x)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Spread{Mean: mean, Median: med, Std: math.Sqrt(ss / float64(len(x)))}
}

// scoreTop scores each argument's top k (k < 0: all) predictions.
func scoreTop(preds []ArgumentPrediction, gold []Argument, k int) TopScores {
	chosen := map[string][]PredictedFallacy{}
	align := map[string]map[string][]string{}
	for _, p := range preds {
		top := topK(p, k)
		chosen[p.Argument] = top
		kept := map[string]bool{}
		for _, f := range top {
			kept[f.PredictionID] = true
		}
		al := map[string][]string{}
		for g, ids := range p.Alignment {
			for _, id := range ids {
				if kept[id] {
					al[g] = append(al[g], id)
				}
			}
		}
		align[p.Argument] = al
	}
	return TopScores{ClaimLevel: claimLevel(chosen, gold), Aligned: fallacyLevel(chosen, align, gold), ByClassOnly: fallacyLevel(chosen, nil, gold), ArgumentsCount: len(gold)}
}

// claimLevel is upstream's compute_claim_level_multi_label_metrics:
// each argument's set of predicted classes against its gold classes,
// over Classes (other labels are left out, as MultiLabelBinarizer does).
func claimLevel(chosen map[string][]PredictedFallacy, gold []Argument) ClaimLevel {
	tp, fp, fn := make([]float64, len(Classes)), make([]float64, len(Classes)), make([]float64, len(Classes))
	out := ClaimLevel{PerClass: map[string]ClassScore{}}
	samples := 0.0
	for _, a := range gold {
		g, p := map[string]bool{}, map[string]bool{}
		for _, f := range a.Argument.Fallacies {
			for _, i := range f.Interchangeable {
				g[i.Class] = true
			}
		}
		for _, f := range chosen[a.ID] {
			p[f.class()] = true
		}
		var stp, sg, sp float64
		for c, name := range Classes {
			switch {
			case g[name] && p[name]:
				tp[c]++
				stp++
			case p[name]:
				fp[c]++
			case g[name]:
				fn[c]++
			}
			if g[name] {
				sg++
			}
			if p[name] {
				sp++
			}
		}
		if sg+sp > 0 {
			samples += 2 * stp / (sg + sp)
		}
	}
	var sumTP, sumFP, sumFN, macro float64
	for c, name := range Classes {
		cs := ClassScore{Precision: ratio(tp[c], tp[c]+fp[c]), Recall: ratio(tp[c], tp[c]+fn[c])}
		cs.F1 = f1(cs.Precision, cs.Recall)
		out.PerClass[name] = cs
		macro += cs.F1
		sumTP, sumFP, sumFN = sumTP+tp[c], sumFP+fp[c], sumFN+fn[c]
	}
	out.F1Micro = f1(ratio(sumTP, sumTP+sumFP), ratio(sumTP, sumTP+sumFN))
	out.F1Macro = macro / float64(len(Classes))
	out.F1Samples = samples / float64(len(gold))
	return out
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// f1 is scikit-learn's F1 of a precision and a recall (0 when both are).
func f1(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// fallacyLevel is upstream's compute_fallacy_level_alignment_metrics:
// with the premise judge's alignment (align), or aligning a prediction to
// every gold interchangeable fallacy of its class (align nil).
func fallacyLevel(chosen map[string][]PredictedFallacy, align map[string]map[string][]string, gold []Argument) FallacyLevel {
	var predicted, goldN, mapped, necGold, necMapped, argsHit int
	for _, a := range gold {
		preds := chosen[a.ID]
		aligned := map[string]bool{}
		if align != nil {
			for g, ids := range align[a.ID] {
				if len(ids) > 0 {
					aligned[g] = true
				}
			}
		} else {
			classes := map[string]bool{}
			for _, f := range preds {
				classes[f.class()] = true
			}
			for _, f := range a.Argument.Fallacies {
				for _, i := range f.Interchangeable {
					if classes[i.Class] {
						aligned[i.ID] = true
					}
				}
			}
		}
		alignedNec := map[string]bool{}
		for id := range aligned {
			if j := strings.LastIndex(id, ":"); j >= 0 {
				alignedNec[id[:j]] = true
			} else {
				alignedNec[""] = true
			}
		}
		n := 0
		for _, f := range a.Argument.Fallacies {
			goldN += len(f.Interchangeable)
			if alignedNec[f.ID] {
				n++
			}
		}
		predicted += len(preds)
		mapped += len(aligned)
		necGold += len(a.Argument.Fallacies)
		necMapped += n
		if n > 0 {
			argsHit++
		}
	}
	prec := math.NaN()
	if predicted > 0 {
		prec = float64(mapped) / float64(predicted)
	}
	return FallacyLevel{
		Interchangeable: Interchangeable{TotalPredicted: predicted, TotalGold: goldN, TotalMapped: mapped,
			Recall: float64(mapped) / float64(goldN), Precision: prec},
		Necessary: Necessary{TotalGold: necGold, TotalMapped: necMapped, RecallMapped: float64(necMapped) / float64(necGold),
			Arg1: float64(argsHit) / float64(len(gold))},
	}
}
