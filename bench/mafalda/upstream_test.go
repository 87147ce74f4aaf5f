package mafalda

import (
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// sharedData is the shared data folder (CI has it).
const sharedData = "../../../shared/data"

// gold reads the gold standard from the shared data folder.
func gold(t *testing.T) []Text {
	t.Helper()
	if _, err := os.Stat(filepath.Join(sharedData, GoldFile)); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the shared data folder lacks MAFALDA: %v", err)
		}
		t.Skip("shared data not present")
	}
	texts, err := Load(os.DirFS(sharedData))
	if err != nil {
		t.Fatal(err)
	}
	return texts
}

// upstreamMeans are upstream's evaluate of a results file: its 18 means,
// in the order of result_subjective_metric.csv's columns (span P/R/F1 at
// levels 0, 1, 2, then label P/R/F1 at levels 0, 1, 2).
func upstreamMeans(t *testing.T, texts []Text, file string, level int, v Variant) []float64 {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	preds, err := ReadPredictions(f)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var sum [18]float64
	n := min(len(preds), len(texts))
	for i := range n {
		g, err := GoldSpans(texts[i])
		if err != nil {
			t.Fatal(err)
		}
		answers := make([]Answer, len(preds[i].Answers))
		for k, a := range preds[i].Answers {
			answers[k] = Answer{Sentence: a.Sentence, Labels: Labels(a.Output, level)}
		}
		r := Evaluate(answers, g, level, v)
		for lv := range 3 {
			for k, v := range []float64{r.Span[lv].P, r.Span[lv].R, r.Span[lv].F1, r.Label[lv].P, r.Label[lv].R, r.Label[lv].F1} {
				if math.IsNaN(v) {
					v = 0
				}
				col := lv*3 + k
				if k >= 3 {
					col = 9 + lv*3 + k - 3
				}
				sum[col] += v
			}
		}
	}
	out := make([]float64, 18)
	for i, s := range sum {
		out[i] = s / float64(n)
	}
	return out
}

// TestPublishedTable: every level-2 results file upstream released,
// scored here, equals upstream's published table
// (result_subjective_metric.csv) in all 18 columns.
func TestPublishedTable(t *testing.T) {
	texts := gold(t)
	dir := filepath.Join(sharedData, "mafalda/upstream/results")
	f, err := os.Open(filepath.Join(dir, "result_subjective_metric.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	values, models, worst := 0, 0, 0.0
	for _, row := range rows[1:] {
		file := filepath.Join(dir, row[0]+"_level_2_results.jsonl")
		if _, err := os.Stat(file); err != nil {
			t.Logf("%s: no results file upstream (%v)", row[0], err)
			continue
		}
		got := upstreamMeans(t, texts, file, 2, Published)
		models++
		for c, cell := range row[1:] {
			want, err := strconv.ParseFloat(strings.TrimSpace(cell), 64)
			if err != nil {
				t.Fatal(err)
			}
			d := math.Abs(got[c] - want)
			worst = max(worst, d)
			values++
			if d > 1e-12 {
				t.Errorf("%s %s: %.17g, upstream's table %.17g", row[0], rows[0][c+1], got[c], want)
			}
		}
	}
	t.Logf("%d values of %d models, largest difference %.3g", values, models, worst)
	if models < 14 {
		t.Fatalf("%d models scored", models)
	}
}

// reference is testdata/reference.json (testdata/make_reference.py: upstream's
// own code, run unmodified).
type reference struct {
	Asserted []struct {
		Score string `json:"score"`
		Pred  []struct {
			Label    int    `json:"label"`
			Interval [2]int `json:"interval"`
		} `json:"pred"`
		Gold []struct {
			Labels   []int  `json:"labels"`
			Interval [2]int `json:"interval"`
		} `json:"gold"`
		Value float64 `json:"value"`
	} `json:"asserted"`
	Models    map[string][]float64 `json:"models"`
	PerText   map[string][][]any   `json:"per_text"`
	Sentences []string             `json:"sentences"`
	Prompts   []string             `json:"prompts"`
}

func loadReference(t *testing.T) reference {
	t.Helper()
	b, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var r reference
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestAssertedCases: every precision and recall new_metrics.py's __main__
// block asserts (96 calls), with upstream's value.
func TestAssertedCases(t *testing.T) {
	ref := loadReference(t)
	for i, c := range ref.Asserted {
		var pred []PredSpan
		for _, p := range c.Pred {
			pred = append(pred, PredSpan{Label: p.Label, Start: p.Interval[0], End: p.Interval[1]})
		}
		var gold []GoldSpan
		for _, g := range c.Gold {
			gold = append(gold, GoldSpan{Labels: g.Labels, Start: g.Interval[0], End: g.Interval[1]})
		}
		got := spanRecall(pred, gold)
		if c.Score == "precision_score" {
			got = spanPrecision(pred, gold, Current)
		}
		if got != c.Value {
			t.Errorf("case %d, %s of %v against %v: %v, upstream %v", i, c.Score, pred, gold, got, c.Value)
		}
	}
	if len(ref.Asserted) < 90 {
		t.Fatalf("%d asserted calls", len(ref.Asserted))
	}
}

// TestUpstreamEvaluate: every results file upstream released (14 at level
// 2, 2 at level 1), scored here with upstream's current code, equals its
// evaluate (all 18 means, or evaluate_level_1's 6), and two models' every
// per-text value equals the one evaluate computed.
func TestUpstreamEvaluate(t *testing.T) {
	texts, ref := gold(t), loadReference(t)
	dir := filepath.Join(sharedData, "mafalda/upstream/results")
	values, worst := 0, 0.0
	check := func(what string, got, want float64) {
		values++
		d := math.Abs(got - want)
		worst = max(worst, d)
		if d > 0 {
			t.Errorf("%s: %.17g, upstream %.17g", what, got, want)
		}
	}
	for file, want := range ref.Models {
		level := 2
		if strings.Contains(file, "_level_1_") {
			level = 1
		}
		got := upstreamMeans(t, texts, filepath.Join(dir, file), level, Current)
		if level == 1 {
			// evaluate_level_1: span P/R/F1, then label P/R/F1, at level 1.
			got = []float64{got[3], got[4], got[5], got[12], got[13], got[14]}
		}
		for c := range want {
			check(fmt.Sprintf("%s value %d", file, c), got[c], want[c])
		}
	}
	for file, seq := range ref.PerText {
		f, err := os.Open(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		preds, err := ReadPredictions(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		// evaluate's order: per level (2, 1, 0), per text, label then span.
		k := 0
		results := make([]Result, len(texts))
		for i := range texts {
			g, _ := GoldSpans(texts[i])
			results[i] = Evaluate(answersOf(preds[i], 2), g, 2, Current)
		}
		for lv := 2; lv >= 0; lv-- {
			for i := range texts {
				for _, kind := range []string{"label", "span"} {
					s := results[i].Label[lv]
					if kind == "span" {
						s = results[i].Span[lv]
					}
					e := seq[k]
					k++
					if e[0] != kind {
						t.Fatalf("%s: value %d is upstream's %v, want %s", file, k, e[0], kind)
					}
					for j, v := range []float64{s.P, s.R, s.F1} {
						check(fmt.Sprintf("%s text %d level %d %s %d", file, i, lv, kind, j), v, e[j+1].(float64))
					}
				}
			}
		}
	}
	t.Logf("%d values, largest difference %.3g", values, worst)
}

// answersOf are a results file's answers about one text, parsed.
func answersOf(p Prediction, level int) []Answer {
	out := make([]Answer, len(p.Answers))
	for k, a := range p.Answers {
		out[k] = Answer{Sentence: a.Sentence, Labels: Labels(a.Output, level)}
	}
	return out
}

// TestSentencesAsUpstream: the sentences asked about each of the 200 texts
// are upstream's process_data's, in its order.
func TestSentencesAsUpstream(t *testing.T) {
	texts, ref := gold(t), loadReference(t)
	for i, tx := range texts {
		sum := sha256.Sum256([]byte(strings.Join(Sentences(tx), "\n")))
		if got := hex.EncodeToString(sum[:]); got != ref.Sentences[i] {
			t.Errorf("text %d: sentences %q differ from upstream's", i, Sentences(tx))
		}
	}
}

// TestPromptsAsUpstream: the prompt of each level, for the first sentence
// of the first text, is upstream's ALT_PROMPT as its pipeline fills it.
func TestPromptsAsUpstream(t *testing.T) {
	texts, ref := gold(t), loadReference(t)
	for lv, want := range ref.Prompts {
		p, err := Prompt(lv, texts[0].Text, Sentences(texts[0])[0])
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(p))
		if got := hex.EncodeToString(sum[:]); got != want {
			t.Errorf("level %d: prompt differs from upstream's:\n%s", lv, p)
		}
	}
}
