package missci

import (
	"encoding/csv"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strings"

	"github.com/fallacylab/fallacylab/stats"
	"github.com/fallacylab/fallacylab/textmetric"
)

// Pair is one (gold premise, predicted premise) pair for premise metrics.
type Pair struct {
	LineID               string
	Gold, Pred           string
	GoldClass, PredClass string
	Correct              bool   // the classes agree
	Method               string // "class" or "lexical"
}

// MatchPairs picks one pair per reasoning line (SPEC A.7): the first
// prediction (in rank order) whose class is gold is paired with that class's
// gold premise. Without a class match upstream takes the most similar
// (gold, predicted) premise pair by SBERT cosine; with no embedder this
// version uses a documented lexical fallback — the pair with the highest
// token-set Jaccard overlap (ties: smallest gold, then predicted index) —
// and marks those pairs "lexical".
func MatchPairs(args []Argument, preds Predictions, k int) ([]Pair, error) {
	return MatchPairsWith(args, preds, k, nil)
}

// Embedder returns one vector per text (an embeddings endpoint).
type Embedder func(texts []string) ([][]float64, error)

// MatchPairsWith is MatchPairs with an embedder for lines without a class
// match: the (gold, predicted) premise pair of maximum cosine similarity,
// ties to the smallest gold then predicted index (upstream's SBERT step).
// With a nil embedder the lexical fallback is used.
func MatchPairsWith(args []Argument, preds Predictions, k int, embed Embedder) ([]Pair, error) {
	at := preds.AtK(k)
	var out []Pair
	for _, a := range args {
		for _, l := range a.Lines {
			list, ok := at[l.ID]
			if !ok || len(list) == 0 {
				return nil, fmt.Errorf("no prediction for reasoning line %s", l.ID)
			}
			byClass := map[string]string{}
			for _, f := range l.Fallacies {
				byClass[f.Class] = f.Premise // a later entry overwrites, as upstream
			}
			found := false
			for _, p := range list {
				if g, ok := byClass[p.Class]; ok {
					out = append(out, Pair{LineID: l.ID, Gold: g, Pred: p.Premise, GoldClass: p.Class, PredClass: p.Class, Correct: true, Method: "class"})
					found = true
					break
				}
			}
			if found {
				continue
			}
			sim, method := jaccard, "lexical"
			if embed != nil {
				var texts []string
				for _, f := range l.Fallacies {
					texts = append(texts, f.Premise)
				}
				for _, p := range list {
					texts = append(texts, p.Premise)
				}
				vecs, err := embed(texts)
				if err != nil {
					return nil, fmt.Errorf("embeddings for %s: %w", l.ID, err)
				}
				if len(vecs) != len(texts) {
					return nil, fmt.Errorf("embeddings for %s: %d vectors for %d texts", l.ID, len(vecs), len(texts))
				}
				index := map[string][]float64{}
				for i, t := range texts {
					index[t] = vecs[i]
				}
				sim, method = func(a, b string) float64 { return cosine(index[a], index[b]) }, "embedding"
			}
			best, bi, bj := math.Inf(-1), 0, 0
			for i, f := range l.Fallacies {
				for j, p := range list {
					if s := sim(f.Premise, p.Premise); s > best {
						best, bi, bj = s, i, j
					}
				}
			}
			g, p := l.Fallacies[bi], list[bj]
			out = append(out, Pair{LineID: l.ID, Gold: g.Premise, Pred: p.Premise, GoldClass: g.Class, PredClass: p.Class, Correct: g.Class == p.Class, Method: method})
		}
	}
	return out, nil
}

func cosine(a, b []float64) float64 {
	var dot, na, nb float64
	for i := range a {
		if i < len(b) {
			dot += a[i] * b[i]
		}
		na += a[i] * a[i]
	}
	for _, v := range b {
		nb += v * v
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// jaccard is the token-set overlap of two premises (nltk word tokens,
// lower-cased): the pairing fallback without an embedder.
func jaccard(a, b string) float64 {
	return textmetric.Jaccard(textmetric.WordTokenize(strings.ToLower(a)), textmetric.WordTokenize(strings.ToLower(b)))
}

// PerClassMeteor is the mean METEOR of the correct pairs per gold class
// (SPEC A.7's per-fallacy premise metrics), with the number of pairs.
func PerClassMeteor(pairs []Pair) (map[string]float64, map[string]int, error) {
	sum, n := map[string]float64{}, map[string]int{}
	for _, p := range pairs {
		if !p.Correct {
			continue
		}
		m, err := textmetric.Meteor(p.Gold, p.Pred)
		if err != nil {
			return nil, nil, err
		}
		sum[p.GoldClass] += m
		n[p.GoldClass]++
	}
	for c := range sum {
		sum[c] /= float64(n[c])
	}
	return sum, n, nil
}

// PremiseScores are METEOR means over all, correct and incorrect pairs.
type PremiseScores struct {
	All, Correct, Incorrect float64
	N, NCorrect, NLexical   int
	NEmbedding              int
}

// ScorePairs computes nltk-exact METEOR (reference = gold premise) per pair.
func ScorePairs(pairs []Pair) (PremiseScores, error) {
	var s PremiseScores
	var sc, si float64
	refs, hyps := make([]string, len(pairs)), make([]string, len(pairs))
	for i, p := range pairs {
		refs[i], hyps[i] = p.Gold, p.Pred
	}
	ms, err := textmetric.MeteorBatch(refs, hyps)
	if err != nil {
		return s, err
	}
	for i, p := range pairs {
		m := ms[i]
		s.All += m
		if p.Correct {
			sc += m
			s.NCorrect++
		} else {
			si += m
		}
		switch p.Method {
		case "lexical":
			s.NLexical++
		case "embedding":
			s.NEmbedding++
		}
	}
	// A mean of no pairs is undefined (NaN: "NA" in every renderer, null
	// in JSON), never 0; upstream leaves it out.
	s.N = len(pairs)
	s.All = meanOf(s.All, s.N)
	s.Correct = meanOf(sc, s.NCorrect)
	s.Incorrect = meanOf(si, s.N-s.NCorrect)
	return s, nil
}

// meanOf is sum/n, NaN (undefined) for no values.
func meanOf(sum float64, n int) float64 {
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// HumanEvalMeteor is Table 13 for METEOR (SPEC A.12): the mean on rows with
// q4 = True and q4 = False, and Pearson r (two-sided p) with q4.
type HumanEvalMeteor struct {
	YesMean, NoMean float64
	NYes, NNo       int
	R, P            float64
}

// HumanEval reads the human-evaluation CSV and computes HumanEvalMeteor.
func HumanEval(r io.Reader, name string) (HumanEvalMeteor, error) {
	rows, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return HumanEvalMeteor{}, fmt.Errorf("%s: %w", name, err)
	}
	if len(rows) < 2 {
		return HumanEvalMeteor{}, fmt.Errorf("%s: no rows", name)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, c := range []string{"generated_premise", "reference_premise", "q4"} {
		if _, ok := col[c]; !ok {
			return HumanEvalMeteor{}, fmt.Errorf("%s: no %q column", name, c)
		}
	}
	var h HumanEvalMeteor
	var scores, q4 []float64
	var ys, ns float64
	for i, row := range rows[1:] {
		m, err := textmetric.Meteor(row[col["reference_premise"]], row[col["generated_premise"]])
		if err != nil {
			return h, err
		}
		var q float64
		switch strings.ToLower(strings.TrimSpace(row[col["q4"]])) {
		case "true":
			q = 1
			ys += m
			h.NYes++
		case "false":
			ns += m
			h.NNo++
		default:
			return h, fmt.Errorf("%s line %d: field q4: %q is not True or False", name, i+2, row[col["q4"]])
		}
		scores, q4 = append(scores, m), append(q4, q)
	}
	h.YesMean, h.NoMean = meanOf(ys, h.NYes), meanOf(ns, h.NNo)
	c, err := stats.Pearson(scores, q4)
	h.R, h.P = c.R, c.P
	return h, err
}

// HumanEvalCSV opens the embedded human-evaluation sheet
// (human-analysis/human-eval.csv, SPEC A.12).
func HumanEvalCSV() (fs.File, error) { return data.Open("data/human-eval.csv") }

// EmbeddedHumanEval runs HumanEval on the embedded CSV.
func EmbeddedHumanEval() (HumanEvalMeteor, error) {
	f, err := HumanEvalCSV()
	if err != nil {
		return HumanEvalMeteor{}, err
	}
	defer f.Close()
	return HumanEval(f, "human-eval.csv")
}

// Stratum holds, for one (model, prompt) of the human evaluation, the share
// of "True" per question among items whose predicted class is a gold class
// of their reasoning line (correct) and among the others (incorrect): the
// paper's Table 14 (30 items each).
type Stratum struct {
	Model, Prompt        string
	NCorrect, NIncorrect int
	Correct, Incorrect   [4]float64 // q1..q4
}

// Table14 computes the strata from the human-evaluation CSV; gold classes
// come from the arguments (test split).
func Table14(r io.Reader, name string, args []Argument) ([]Stratum, error) {
	rows, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	gold := map[string][]string{}
	for _, a := range args {
		for _, l := range a.Lines {
			gold[l.ID] = l.Classes()
		}
	}
	type acc struct {
		n   [2]int
		yes [2][4]int
	}
	by := map[[2]string]*acc{}
	var order [][2]string
	for i, row := range rows[1:] {
		k := [2]string{row[col["model"]], row[col["prompt"]]}
		a := by[k]
		if a == nil {
			a = &acc{}
			by[k] = a
			order = append(order, k)
		}
		g, ok := gold[row[col["fallacy_id"]]]
		if !ok {
			return nil, fmt.Errorf("%s line %d: field fallacy_id: %q is not a test reasoning line", name, i+2, row[col["fallacy_id"]])
		}
		stratum := 1
		if contains(g, row[col["predicted_fallacy"]]) {
			stratum = 0
		}
		a.n[stratum]++
		for q := range 4 {
			if strings.EqualFold(strings.TrimSpace(row[col[fmt.Sprintf("q%d", q+1)]]), "true") {
				a.yes[stratum][q]++
			}
		}
	}
	var out []Stratum
	for _, k := range order {
		a := by[k]
		s := Stratum{Model: k[0], Prompt: k[1], NCorrect: a.n[0], NIncorrect: a.n[1]}
		for q := range 4 {
			s.Correct[q] = meanOf(float64(a.yes[0][q]), a.n[0])
			s.Incorrect[q] = meanOf(float64(a.yes[1][q]), a.n[1])
		}
		out = append(out, s)
	}
	return out, nil
}

// Approximate is the paper's Table 4 approximation for one question:
// s = P@1·h_correct + (1 − P@1)·h_incorrect (SPEC A.12). It reproduces the
// GPT-4 (D) row; the paper's other rows are inconsistent with it.
func (s Stratum) Approximate(pAt1 float64, q int) float64 {
	return pAt1*s.Correct[q] + (1-pAt1)*s.Incorrect[q]
}

// EmbeddedTable14 runs Table14 on the embedded CSV and test split.
func EmbeddedTable14() ([]Stratum, error) {
	args, err := Load("test")
	if err != nil {
		return nil, err
	}
	f, err := HumanEvalCSV()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Table14(f, "human-eval.csv", args)
}
