package stats

import "fmt"

// ClassScores are precision, recall, F1 and support of one label.
type ClassScores struct {
	Label                 string
	Precision, Recall, F1 float64
	Support               int // true instances
	TP, FP, FN            int
}

// Averages are the averaged scores of a label set.
type Averages struct {
	Precision, Recall, F1 float64
}

// Report is a classification report with scikit-learn semantics
// (precision_recall_fscore_support with an explicit label list and
// zero_division=0): per-class scores in label order, and micro, macro and
// weighted averages; Samples is set for multi-label input.
type Report struct {
	Classes  []ClassScores
	Micro    Averages
	Macro    Averages
	Weighted Averages
	Samples  *Averages
	Accuracy float64 // single-label: share of exact matches over all items
	N        int
}

func safeDiv(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// ConfusionMatrix counts items by (true, predicted) label in the order of
// labels; items whose true or predicted label is not listed are ignored
// (sklearn.metrics.confusion_matrix with labels=).
func ConfusionMatrix(yTrue, yPred, labels []string) ([][]int, error) {
	if len(yTrue) != len(yPred) {
		return nil, ErrLength
	}
	idx := map[string]int{}
	for i, l := range labels {
		if _, dup := idx[l]; dup {
			return nil, fmt.Errorf("stats: label %q listed twice", l)
		}
		idx[l] = i
	}
	m := make([][]int, len(labels))
	for i := range m {
		m[i] = make([]int, len(labels))
	}
	for i := range yTrue {
		a, okA := idx[yTrue[i]]
		b, okB := idx[yPred[i]]
		if okA && okB {
			m[a][b]++
		}
	}
	return m, nil
}

// Classify scores single-label predictions over labels. Accuracy counts every
// item (sklearn.metrics.accuracy_score); per-class and averaged scores count
// only the listed labels.
func Classify(yTrue, yPred, labels []string) (Report, error) {
	if len(yTrue) != len(yPred) {
		return Report{}, ErrLength
	}
	if len(yTrue) == 0 {
		return Report{}, ErrEmpty
	}
	tSets := make([][]string, len(yTrue))
	pSets := make([][]string, len(yPred))
	ok := 0
	for i := range yTrue {
		tSets[i], pSets[i] = []string{yTrue[i]}, []string{yPred[i]}
		if yTrue[i] == yPred[i] {
			ok++
		}
	}
	r, err := classifySets(tSets, pSets, labels, false)
	r.Accuracy = float64(ok) / float64(len(yTrue))
	return r, err
}

// ClassifyMulti scores multi-label predictions (sets of labels per item) over
// labels, with the samples average as sklearn's average="samples".
func ClassifyMulti(yTrue, yPred [][]string, labels []string) (Report, error) {
	if len(yTrue) != len(yPred) {
		return Report{}, ErrLength
	}
	if len(yTrue) == 0 {
		return Report{}, ErrEmpty
	}
	return classifySets(yTrue, yPred, labels, true)
}

func classifySets(yTrue, yPred [][]string, labels []string, samples bool) (Report, error) {
	idx := map[string]int{}
	for i, l := range labels {
		if _, dup := idx[l]; dup {
			return Report{}, fmt.Errorf("stats: label %q listed twice", l)
		}
		idx[l] = i
	}
	r := Report{N: len(yTrue), Classes: make([]ClassScores, len(labels))}
	for i, l := range labels {
		r.Classes[i].Label = l
	}
	var sp, sr, sf float64
	for i := range yTrue {
		t, p := setOf(yTrue[i], idx), setOf(yPred[i], idx)
		tp := 0
		for l := range t {
			if p[l] {
				tp++
				r.Classes[idx[l]].TP++
			} else {
				r.Classes[idx[l]].FN++
			}
			r.Classes[idx[l]].Support++
		}
		for l := range p {
			if !t[l] {
				r.Classes[idx[l]].FP++
			}
		}
		sp += safeDiv(float64(tp), float64(len(p)))
		sr += safeDiv(float64(tp), float64(len(t)))
		sf += safeDiv(2*float64(tp), float64(len(t)+len(p)))
	}
	var TP, FP, FN, support float64
	for i := range r.Classes {
		c := &r.Classes[i]
		c.Precision = safeDiv(float64(c.TP), float64(c.TP+c.FP))
		c.Recall = safeDiv(float64(c.TP), float64(c.TP+c.FN))
		c.F1 = safeDiv(2*c.Precision*c.Recall, c.Precision+c.Recall)
		TP, FP, FN = TP+float64(c.TP), FP+float64(c.FP), FN+float64(c.FN)
		r.Macro.Precision += c.Precision / float64(len(labels))
		r.Macro.Recall += c.Recall / float64(len(labels))
		r.Macro.F1 += c.F1 / float64(len(labels))
		s := float64(c.Support)
		support += s
		r.Weighted.Precision += c.Precision * s
		r.Weighted.Recall += c.Recall * s
		r.Weighted.F1 += c.F1 * s
	}
	r.Weighted.Precision = safeDiv(r.Weighted.Precision, support)
	r.Weighted.Recall = safeDiv(r.Weighted.Recall, support)
	r.Weighted.F1 = safeDiv(r.Weighted.F1, support)
	r.Micro.Precision = safeDiv(TP, TP+FP)
	r.Micro.Recall = safeDiv(TP, TP+FN)
	r.Micro.F1 = safeDiv(2*r.Micro.Precision*r.Micro.Recall, r.Micro.Precision+r.Micro.Recall)
	if samples {
		n := float64(len(yTrue))
		r.Samples = &Averages{Precision: sp / n, Recall: sr / n, F1: sf / n}
	}
	return r, nil
}

// setOf keeps the listed labels of one item.
func setOf(ls []string, idx map[string]int) map[string]bool {
	s := map[string]bool{}
	for _, l := range ls {
		if _, ok := idx[l]; ok {
			s[l] = true
		}
	}
	return s
}
