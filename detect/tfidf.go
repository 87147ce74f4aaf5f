package detect

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// VectorizerOptions mirror scikit-learn's TfidfVectorizer parameters.
type VectorizerOptions struct {
	MinN, MaxN int  // n-gram range (default 1, 2)
	MinDF      int  // drop terms in fewer documents (default 2)
	Sublinear  bool // tf → 1 + ln tf
}

// Vectorizer is a fitted TF-IDF vectoriser with scikit-learn semantics:
// lower-casing, tokens = runs of two or more word characters (the default
// token_pattern (?u)\b\w\w+\b), word n-grams joined by a space, smooth idf
// ln((1+n)/(1+df)) + 1, optional sublinear tf, rows L2-normalised.
type Vectorizer struct {
	Options VectorizerOptions `json:"options"`
	Vocab   map[string]int    `json:"vocab"`
	IDF     []float64         `json:"idf"`
}

// Sparse is an L2-normalised sparse row.
type Sparse struct {
	Idx []int32
	Val []float64
}

func isWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// Tokens splits text like scikit-learn's default analyser.
func Tokens(text string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !isWord(r) }) {
		if len([]rune(f)) >= 2 {
			out = append(out, f)
		}
	}
	return out
}

func (o VectorizerOptions) terms(text string) []string {
	toks := Tokens(text)
	var out []string
	for n := o.MinN; n <= o.MaxN; n++ {
		for i := 0; i+n <= len(toks); i++ {
			out = append(out, strings.Join(toks[i:i+n], " "))
		}
	}
	return out
}

func (o *VectorizerOptions) defaults() {
	if o.MinN == 0 {
		o.MinN = 1
	}
	if o.MaxN == 0 {
		o.MaxN = 2
	}
	if o.MinDF == 0 {
		o.MinDF = 2
	}
}

// FitVectorizer learns the vocabulary and idf from training texts. Terms are
// numbered in sorted order, as scikit-learn does.
func FitVectorizer(texts []string, o VectorizerOptions) *Vectorizer {
	o.defaults()
	df := map[string]int{}
	for _, t := range texts {
		seen := map[string]bool{}
		for _, term := range o.terms(t) {
			if !seen[term] {
				seen[term] = true
				df[term]++
			}
		}
	}
	var vocab []string
	for term, n := range df {
		if n >= o.MinDF {
			vocab = append(vocab, term)
		}
	}
	sort.Strings(vocab)
	v := &Vectorizer{Options: o, Vocab: make(map[string]int, len(vocab)), IDF: make([]float64, len(vocab))}
	n := float64(len(texts))
	for i, term := range vocab {
		v.Vocab[term] = i
		v.IDF[i] = math.Log((1+n)/(1+float64(df[term]))) + 1
	}
	return v
}

// Transform maps a text to its TF-IDF row.
func (v *Vectorizer) Transform(text string) Sparse {
	tf := map[int32]float64{}
	for _, term := range v.Options.terms(text) {
		if i, ok := v.Vocab[term]; ok {
			tf[int32(i)]++
		}
	}
	s := Sparse{Idx: make([]int32, 0, len(tf)), Val: make([]float64, 0, len(tf))}
	for i := range tf {
		s.Idx = append(s.Idx, i)
	}
	sort.Slice(s.Idx, func(a, b int) bool { return s.Idx[a] < s.Idx[b] })
	norm := 0.0
	for _, i := range s.Idx {
		x := tf[i]
		if v.Options.Sublinear {
			x = 1 + math.Log(x)
		}
		x *= v.IDF[i]
		s.Val = append(s.Val, x)
		norm += x * x
	}
	if norm > 0 {
		norm = math.Sqrt(norm)
		for k := range s.Val {
			s.Val[k] /= norm
		}
	}
	return s
}
