package missci

import (
	"fmt"
	"sort"

	"github.com/fallacylab/fallacylab/stats"
)

// Predictions maps a reasoning-line id to its ranked predictions.
type Predictions map[string][]Prediction

// Reconstruction holds the reconstruction metrics at one cut-off (SPEC A.7).
type Reconstruction struct {
	K           int // 0 means "all"
	Lines, Args int
	HasPositive float64 // P@k; P@1 for k = 1
	ArgK        float64
	ArgT        map[int]float64 // t in percent (10..100) → share of arguments
	MicroF1     float64
	MacroF1     float64
	SamplesF1   float64
	PerClass    []stats.ClassScores
}

// AtK cuts each list to its first k entries (k = 0: all).
func (p Predictions) AtK(k int) Predictions {
	out := Predictions{}
	for id, list := range p {
		if k > 0 && len(list) > k {
			list = list[:k]
		}
		out[id] = list
	}
	return out
}

// EvaluateReconstruction computes HasPositive@k, Arg@k, Arg@t and the F1
// variants. Every gold line needs a prediction; classes outside the ten
// legal names are an error (upstream raises).
func EvaluateReconstruction(args []Argument, preds Predictions, k int) (Reconstruction, error) {
	at := preds.AtK(k)
	res := Reconstruction{K: k, ArgT: map[int]float64{}}
	goldSet := map[string]bool{}
	var yTrue, yPred [][]string
	argsCorrect := 0
	fracs := make([]float64, 0, len(args))
	for _, a := range args {
		correct := 0
		for _, l := range a.Lines {
			list, ok := at[l.ID]
			if !ok || len(list) == 0 {
				return res, fmt.Errorf("no prediction for reasoning line %s", l.ID)
			}
			gold := l.Classes()
			for _, g := range gold {
				goldSet[g] = true
			}
			var predicted []string
			hit := false
			for _, p := range list {
				if !IsValid(p.Class) {
					return res, fmt.Errorf("line %s: predicted class %q is not one of the ten legal names", l.ID, p.Class)
				}
				predicted = append(predicted, p.Class)
				for _, g := range gold {
					if p.Class == g {
						hit = true
					}
				}
			}
			if hit {
				correct++
			}
			yTrue, yPred = append(yTrue, gold), append(yPred, predicted)
			res.Lines++
		}
		if correct > 0 {
			argsCorrect++
		}
		fracs = append(fracs, float64(correct)/float64(len(a.Lines)))
		res.Args++
	}
	hits := 0
	for i := range yTrue {
		for _, p := range yPred[i] {
			if contains(yTrue[i], p) {
				hits++
				break
			}
		}
	}
	res.HasPositive = float64(hits) / float64(res.Lines)
	res.ArgK = float64(argsCorrect) / float64(res.Args)
	for t := 10; t <= 100; t += 10 {
		n := 0
		for _, f := range fracs {
			if f >= float64(t)/100-1e-12 {
				n++
			}
		}
		res.ArgT[t] = float64(n) / float64(res.Args)
	}
	// MultiLabelBinarizer over the sorted gold classes: predicted classes
	// outside it (Other) are dropped, never false positives.
	var labels []string
	for c := range goldSet {
		labels = append(labels, c)
	}
	sort.Strings(labels)
	rep, err := stats.ClassifyMulti(yTrue, yPred, labels)
	if err != nil {
		return res, err
	}
	res.MicroF1, res.MacroF1, res.SamplesF1 = rep.Micro.F1, rep.Macro.F1, rep.Samples.F1
	res.PerClass = rep.Classes
	return res, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ClassifyResult is accuracy and macro-F1 of a classification task.
type ClassifyResult struct {
	N        int
	Accuracy float64
	MacroF1  float64
	Labels   []string
}

// sklearnReport mirrors classification_report's label set: the union of
// true and predicted labels, sorted.
func sklearnReport(yTrue, yPred []string) (ClassifyResult, error) {
	set := map[string]bool{}
	for i := range yTrue {
		set[yTrue[i]], set[yPred[i]] = true, true
	}
	var labels []string
	for l := range set {
		labels = append(labels, l)
	}
	sort.Strings(labels)
	r, err := stats.Classify(yTrue, yPred, labels)
	if err != nil {
		return ClassifyResult{}, err
	}
	return ClassifyResult{N: len(yTrue), Accuracy: r.Accuracy, MacroF1: r.Macro.F1, Labels: labels}, nil
}

// EvaluateWithPremise scores classification given the gold premise (SPEC
// A.8): units are interchangeable fallacies; a prediction absent from every
// gold label becomes "unk", which joins the macro average with F1 = 0.
func EvaluateWithPremise(yTrue, yPred []string) (ClassifyResult, error) {
	if len(yTrue) != len(yPred) {
		return ClassifyResult{}, fmt.Errorf("%d gold labels, %d predictions", len(yTrue), len(yPred))
	}
	gold := map[string]bool{}
	for _, g := range yTrue {
		gold[g] = true
	}
	mapped := make([]string, len(yPred))
	for i, p := range yPred {
		if !IsValid(p) {
			return ClassifyResult{}, fmt.Errorf("prediction %d: %q is not one of the ten legal names", i, p)
		}
		if gold[p] {
			mapped[i] = p
		} else {
			mapped[i] = "unk"
		}
	}
	return sklearnReport(yTrue, mapped)
}

// EvaluateWithoutPremise scores classification without a premise (SPEC
// A.9): per line, gold = the prediction if it is a gold class, else the
// first gold class; no "unk" mapping.
func EvaluateWithoutPremise(args []Argument, preds map[string]string) (ClassifyResult, error) {
	var yTrue, yPred []string
	for _, a := range args {
		for _, l := range a.Lines {
			p, ok := preds[l.ID]
			if !ok {
				return ClassifyResult{}, fmt.Errorf("no prediction for reasoning line %s", l.ID)
			}
			g := l.Classes()[0]
			if contains(l.Classes(), p) {
				g = p
			}
			yTrue, yPred = append(yTrue, g), append(yPred, p)
		}
	}
	return sklearnReport(yTrue, yPred)
}

// SingleFallacy picks the consistency input per line (SPEC A.6): start from
// the top-1 prediction; the last gold-matching prediction within the top k wins.
func SingleFallacy(args []Argument, preds Predictions, k int) map[string]Prediction {
	at := preds.AtK(k)
	out := map[string]Prediction{}
	for _, a := range args {
		for _, l := range a.Lines {
			list := at[l.ID]
			if len(list) == 0 {
				continue
			}
			choice := list[0]
			for _, p := range list {
				if contains(l.Classes(), p.Class) {
					choice = p
				}
			}
			out[l.ID] = choice
		}
	}
	return out
}

// RandomBaseline draws one class per reasoning line exactly as upstream's
// random.seed(seed); random.choice(LABELS) over the arguments and lines in
// file order (SPEC A.11). The premise is the claim or p0, verbatim.
func RandomBaseline(args []Argument, seed uint64, premise string) (Predictions, error) {
	if premise != "claim" && premise != "p0" {
		return nil, fmt.Errorf("--premise %q: use claim or p0", premise)
	}
	r := NewPyRandom(seed)
	out := Predictions{}
	for _, a := range args {
		text := a.Claim
		if premise == "p0" {
			text = a.P0
		}
		for _, l := range a.Lines {
			out[l.ID] = []Prediction{{Premise: text, Class: r.Choice(Classes)}}
		}
	}
	return out, nil
}
