package mafalda_test

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fallacylab/fallacylab/bench/benchtest"
	"github.com/fallacylab/fallacylab/bench/mafalda"
	"github.com/fallacylab/fallacylab/llm/llmtest"
	"github.com/fallacylab/fallacylab/report"
)

func TestMain(m *testing.M) {
	benchtest.Main()
	os.Exit(m.Run())
}

var sharedData, _ = filepath.Abs("../../../shared/data")

// released are gpt-3.5's answers upstream released, by text and sentence.
func released(t *testing.T) map[[2]string]string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(sharedData, mafalda.GoldFile)); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the shared data folder lacks MAFALDA: %v", err)
		}
		t.Skip("shared data not present")
	}
	f, err := os.Open(filepath.Join(sharedData, "mafalda/upstream/results/gpt-3.5_level_2_results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	preds, err := mafalda.ReadPredictions(f)
	if err != nil {
		t.Fatal(err)
	}
	out := map[[2]string]string{}
	for _, p := range preds {
		for _, a := range p.Answers {
			out[[2]string{p.Text, a.Sentence}] = a.Output
		}
	}
	return out
}

// textAndSentence read a prompt's text and sentence back.
func textAndSentence(prompt string) (string, string) {
	_, after, _ := strings.Cut(prompt, "Text: \"")
	text, _, _ := strings.Cut(after, "\"\n\n    Based on the above text")
	_, after, _ = strings.Cut(prompt, "Sentence: \"")
	sentence, _, _ := strings.Cut(after, "\" \n")
	return text, sentence
}

// TestRunEqualsUpstreamTable (#43): `mafalda run` on the 200 texts, with a
// model that answers each prompt as gpt-3.5 answered it in upstream's
// released results (found by the text and sentence the prompt asks
// about), and `mafalda report --metric published`: the 18 figures equal
// gpt-3.5's row of upstream's published table. Every prompt the run sends
// is one gpt-3.5 was asked (its text and sentence are in the released
// file). A dry run prices every call and sends none; the same command
// again pays for nothing.
func TestRunEqualsUpstreamTable(t *testing.T) {
	answers := released(t)
	var calls, unknown atomic.Int64
	h := benchtest.New(t, func(c llmtest.Call) llmtest.Reply {
		calls.Add(1)
		text, sentence := textAndSentence(c.Prompt)
		a, ok := answers[[2]string{text, sentence}]
		if !ok {
			unknown.Add(1)
		}
		return llmtest.Reply{Text: a}
	})
	run := []string{"--data-dir", sharedData, "mafalda", "run", "--model", "openai:gpt-4.1-mini"}
	out, stderr, err := h.Try(append(run, "--dry-run")...)
	if err != nil || calls.Load() != 0 || !strings.Contains(out+stderr, "$") {
		t.Fatalf("dry run: %v, %d calls\n%s\n%s", err, calls.Load(), out, stderr)
	}
	if _, stderr, err := h.Try(run...); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr)
	}
	sent := calls.Load()
	texts, err := mafalda.Load(os.DirFS(sharedData))
	if err != nil {
		t.Fatal(err)
	}
	sentences := 0
	for _, tx := range texts {
		sentences += len(mafalda.Sentences(tx))
	}
	if unknown.Load() != 0 || sent != int64(sentences) {
		t.Fatalf("%d calls for %d sentences, %d asking about a text or sentence gpt-3.5 was not asked about", sent, sentences, unknown.Load())
	}
	if _, _, err := h.Try(run...); err != nil || calls.Load() != sent {
		t.Fatalf("the same command again: %v, %d more calls", err, calls.Load()-sent)
	}
	js, stderr, err := h.Try("mafalda", "report", "--run", "1", "--format", "json", "--metric", "published", "--resamples", "20")
	if err != nil {
		t.Fatalf("report: %v\n%s", err, stderr)
	}
	rep, err := report.FromJSON([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	want := publishedRow(t, "gpt-3.5")
	tab := rep.Table("scores")
	if tab == nil || len(tab.Rows) != 3 {
		t.Fatalf("scores table: %+v", tab)
	}
	worst := 0.0
	for r, lv := range []int{2, 1, 0} {
		for k := range 6 {
			col := lv*3 + k%3
			if k >= 3 {
				col += 9
			}
			got := tab.Rows[r][1+k].Value
			worst = max(worst, math.Abs(got-want[col]))
			if math.Abs(got-want[col]) > 1e-12 {
				t.Errorf("level %d, %s: %.17g, upstream's table %.17g", lv, tab.Columns[1+k].Label, got, want[col])
			}
		}
	}
	t.Logf("%d calls; 18 figures, largest difference from the published table %.3g", sent, worst)
}

// publishedRow is a model's row of upstream's published table.
func publishedRow(t *testing.T, model string) []float64 {
	t.Helper()
	f, err := os.Open(filepath.Join(sharedData, "mafalda/upstream/results/result_subjective_metric.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows[1:] {
		if r[0] == model {
			out := make([]float64, 18)
			for i, c := range r[1:] {
				if out[i], err = strconv.ParseFloat(strings.TrimSpace(c), 64); err != nil {
					t.Fatal(err)
				}
			}
			return out
		}
	}
	t.Fatalf("no row for %s", model)
	return nil
}
