package missciplus

import (
	"cmp"
	"math"
	"slices"

	"github.com/fallacylab/fallacylab/pyre"
	"github.com/fallacylab/fallacylab/tokenize"
)

// BM25Okapi is rank_bm25 0.2.2's BM25Okapi (the version upstream pins),
// written again: each word's idf is log(N − n + 0.5) − log(n + 0.5), a
// negative idf floored at ε times the mean idf, and a document's score is
// the sum over the query's words (repeats counted) of
// idf · f·(k1+1) / (f + k1·(1 − b + b·|d|/avgdl)). The mean idf sums the
// words in the order the corpus first uses them, as the Python dict does.
// It is the scoring half of upstream's BM25 ranker (BM25).
type BM25Okapi struct {
	k1, b     float64
	docFreqs  []map[string]int
	docLen    []int
	avgdl     float64
	idf       map[string]float64
	averageID float64
}

// NewBM25Okapi indexes a tokenised corpus with rank_bm25's defaults (k1
// 1.5, b 0.75, ε 0.25).
func NewBM25Okapi(corpus [][]string) *BM25Okapi {
	m := &BM25Okapi{k1: 1.5, b: 0.75, idf: map[string]float64{}}
	nd := map[string]int{}
	var order []string
	total := 0
	for _, doc := range corpus {
		m.docLen = append(m.docLen, len(doc))
		total += len(doc)
		freq := map[string]int{}
		var first []string
		for _, w := range doc {
			if _, ok := freq[w]; !ok {
				first = append(first, w)
			}
			freq[w]++
		}
		m.docFreqs = append(m.docFreqs, freq)
		for _, w := range first {
			if _, ok := nd[w]; !ok {
				order = append(order, w)
			}
			nd[w]++
		}
	}
	m.avgdl = float64(total) / float64(len(corpus))
	sum := 0.0
	var negative []string
	n := float64(len(corpus))
	for _, w := range order {
		f := float64(nd[w])
		idf := math.Log(n-f+0.5) - math.Log(f+0.5)
		m.idf[w] = idf
		sum += idf
		if idf < 0 {
			negative = append(negative, w)
		}
	}
	m.averageID = sum / float64(len(m.idf))
	for _, w := range negative {
		m.idf[w] = 0.25 * m.averageID
	}
	return m
}

// Scores are every document's score for the query.
func (m *BM25Okapi) Scores(query []string) []float64 {
	out := make([]float64, len(m.docFreqs))
	for _, q := range query {
		idf := m.idf[q]
		for d, freq := range m.docFreqs {
			f := float64(freq[q])
			out[d] += idf * (f * (m.k1 + 1) / (f + m.k1*(1-m.b+m.b*float64(m.docLen[d])/m.avgdl)))
		}
	}
	return out
}

// bm25Words is upstream's BM25Preprocessor: the token texts of spaCy's
// en_core_web_sm tokenizer, lowercased as Python lowercases.
func bm25Words(text string) []string {
	words := tokenize.SpacyEnglish().Words(text)
	for i, w := range words {
		words[i] = pyre.Lower(w)
	}
	return words
}

// BM25 is upstream's BM25 ranker (missci/ranking/bm25.py). The corpus is
// every argument's passages in turn (the selected ones, or all with full),
// each passage once, as the text of its sentences joined by spaces; the
// query is the claim. An argument's passages are ranked by score, highest
// first, ties in corpus order (Python's stable sort).
func BM25(args []Argument, full bool) []Ranking {
	index := map[string]int{}
	var corpus [][]string
	for _, a := range args {
		for _, id := range a.Passages(full) {
			if _, ok := index[id]; ok {
				continue
			}
			p, _ := a.Study.All.Get(id)
			index[id] = len(corpus)
			corpus = append(corpus, bm25Words(p.Text(false)))
		}
	}
	m := NewBM25Okapi(corpus)
	out := make([]Ranking, len(args))
	for i, a := range args {
		scores := m.Scores(bm25Words(a.Argument.Claim))
		ids := a.Passages(full)
		slices.SortFunc(ids, func(x, y string) int { return cmp.Compare(index[x], index[y]) })
		slices.SortStableFunc(ids, func(x, y string) int { return cmp.Compare(scores[index[y]], scores[index[x]]) })
		out[i] = Ranking{ID: a.ID, Ranked: ids}
	}
	return out
}
