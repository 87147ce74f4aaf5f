package detect

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Example is a labelled training text.
type Example struct {
	Text  string
	Label string
}

// TFIDFModel is the built-in detector: TF-IDF features and a multinomial
// logistic regression, with C chosen by dev accuracy only (never by any
// false-positive rate: the Scheme Foils rule).
type TFIDFModel struct {
	Vectorizer *Vectorizer `json:"vectorizer"`
	Model      *LogReg     `json:"model"`
	// Selection records the dev accuracy of every C tried.
	Selection map[string]float64 `json:"selection"`
	Corpus    string             `json:"corpus,omitempty"`
}

// TrainTFIDF fits the vectoriser on train, fits one model per C in grid, and
// keeps the one with the best dev accuracy (ties: the smaller C).
func TrainTFIDF(train, dev []Example, labels []string, grid []float64, vo VectorizerOptions) (*TFIDFModel, error) {
	if len(train) == 0 || len(dev) == 0 {
		return nil, fmt.Errorf("detect: training needs train and dev examples (have %d and %d)", len(train), len(dev))
	}
	if len(grid) == 0 {
		grid = []float64{1, 10, 100}
	}
	idx := map[string]int{}
	for i, l := range labels {
		idx[l] = i
	}
	texts := make([]string, len(train))
	y := make([]int, len(train))
	for i, e := range train {
		k, ok := idx[e.Label]
		if !ok {
			return nil, fmt.Errorf("detect: training label %q is not in the label set", e.Label)
		}
		texts[i], y[i] = e.Text, k
	}
	vec := FitVectorizer(texts, vo)
	X := make([]Sparse, len(train))
	for i, t := range texts {
		X[i] = vec.Transform(t)
	}
	Xd := make([]Sparse, len(dev))
	for i, e := range dev {
		Xd[i] = vec.Transform(e.Text)
	}
	best := &TFIDFModel{Vectorizer: vec, Selection: map[string]float64{}}
	bestAcc := -1.0
	for _, c := range grid {
		m, err := TrainLogReg(X, y, labels, len(vec.IDF), TrainOptions{C: c})
		if err != nil {
			return nil, err
		}
		ok := 0
		for i, e := range dev {
			if m.Predict(Xd[i]) == e.Label {
				ok++
			}
		}
		acc := float64(ok) / float64(len(dev))
		best.Selection[fmt.Sprint(c)] = acc
		if acc > bestAcc {
			bestAcc, best.Model = acc, m
		}
	}
	return best, nil
}

// SelectionText says how C was chosen: "C = 1: 0.8288, C = 10: 0.8384,
// C = 100: 0.8389" (dev accuracy of every C tried, smallest C first).
func SelectionText(selection map[string]float64) string {
	cs := make([]string, 0, len(selection))
	for c := range selection {
		cs = append(cs, c)
	}
	sort.Slice(cs, func(i, j int) bool {
		a, _ := strconv.ParseFloat(cs[i], 64)
		b, _ := strconv.ParseFloat(cs[j], 64)
		return a < b
	})
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("C = %s: %.4f", c, selection[c])
	}
	return strings.Join(parts, ", ")
}

// Name implements Detector.
func (m *TFIDFModel) Name() string { return fmt.Sprintf("tfidf-logreg(C=%g)", m.Model.C) }

// Label classifies one text.
func (m *TFIDFModel) Label(text string) string { return m.Model.Predict(m.Vectorizer.Transform(text)) }

// Detect implements Detector.
func (m *TFIDFModel) Detect(ctx context.Context, in []Input) ([]Prediction, error) {
	out := make([]Prediction, len(in))
	for i, x := range in {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out[i] = Prediction{ID: x.ID, Label: m.Label(x.Text), Parsed: true}
	}
	return out, nil
}

// Save writes the model as gzip-compressed JSON.
func (m *TFIDFModel) Save(w io.Writer) error {
	zw := gzip.NewWriter(w)
	if err := json.NewEncoder(zw).Encode(m); err != nil {
		return err
	}
	return zw.Close()
}

// LoadTFIDF reads a model written by Save.
func LoadTFIDF(r io.Reader, name string) (*TFIDFModel, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("model %s: not a fallacylab TF-IDF model (gzip): %w", name, err)
	}
	var m TFIDFModel
	if err := json.NewDecoder(zr).Decode(&m); err != nil {
		return nil, fmt.Errorf("model %s: %w", name, err)
	}
	if m.Vectorizer == nil || m.Model == nil || len(m.Model.W) != len(m.Model.Classes) || len(m.Vectorizer.IDF) != m.Model.D {
		return nil, fmt.Errorf("model %s: incomplete or inconsistent model file", name)
	}
	return &m, nil
}
