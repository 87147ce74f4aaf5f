package foils

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/fallacylab/fallacylab/corpus"
	"math"
	"os"
	"testing"

	"github.com/fallacylab/fallacylab/detect"
)

func examples(items []Item, split string) []detect.Example {
	var out []detect.Example
	for _, it := range Split(items, split) {
		out = append(out, detect.Example{Text: it.Text, Label: it.Gold})
	}
	return out
}

// TestTFIDFMatchesSklearn trains the built-in detector on Reddit train, picks
// C on dev, and compares test accuracy and vocabulary with scikit-learn on the
// same features (testdata/sklearn_parity.py).
func TestTFIDFMatchesSklearn(t *testing.T) {
	if testing.Short() {
		t.Skip("trains three models")
	}
	var ref struct {
		Vocab        int
		TestAccuracy float64 `json:"test_accuracy"`
		NTrain       int     `json:"n_train"`
		NTest        int     `json:"n_test"`
	}
	data, err := os.ReadFile("testdata/sklearn_parity.json")
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(data, &ref)
	items, err := corpus.EmbeddedReddit()
	if err != nil {
		t.Fatal(err)
	}
	tr, dv, te := examples(items, "train"), examples(items, "dev"), examples(items, "test")
	if len(tr) != ref.NTrain || len(te) != ref.NTest {
		t.Fatalf("splits %d/%d differ from sklearn's %d/%d", len(tr), len(te), ref.NTrain, ref.NTest)
	}
	m, err := detect.TrainTFIDF(tr, dv, Labels, nil, detect.VectorizerOptions{Sublinear: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Vectorizer.IDF) != ref.Vocab {
		t.Fatalf("vocabulary %d, sklearn %d", len(m.Vectorizer.IDF), ref.Vocab)
	}
	ok := 0
	for _, e := range te {
		if m.Label(e.Text) == e.Label {
			ok++
		}
	}
	acc := float64(ok) / float64(len(te))
	t.Logf("Go test accuracy %.4f (C=%g), sklearn %.4f", acc, m.Model.C, ref.TestAccuracy)
	if math.Abs(acc-ref.TestAccuracy) > 0.01 {
		t.Fatalf("test accuracy %.4f is more than 1 pp from sklearn's %.4f", acc, ref.TestAccuracy)
	}
	// Save and load give the same predictions.
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	m2, err := detect.LoadTFIDF(&buf, "mem")
	if err != nil {
		t.Fatal(err)
	}
	in := []detect.Input{{ID: "a", Text: te[0].Text}, {ID: "b", Text: te[1].Text}}
	p1, _ := m.Detect(context.Background(), in)
	p2, _ := m2.Detect(context.Background(), in)
	if p1[0].Label != p2[0].Label || p1[1].Label != p2[1].Label {
		t.Fatal("loaded model predicts differently")
	}
	if _, err := detect.LoadTFIDF(bytes.NewReader([]byte("junk")), "junk.json"); err == nil {
		t.Fatal("junk model accepted")
	}
}

// BenchmarkTrainReddit is the figure: TF-IDF + LR training on the
// Reddit train split with C chosen on dev (three fits).
func BenchmarkTrainReddit(b *testing.B) {
	items, _ := corpus.EmbeddedReddit()
	tr, dv := examples(items, "train"), examples(items, "dev")
	for range b.N {
		if _, err := detect.TrainTFIDF(tr, dv, Labels, nil, detect.VectorizerOptions{Sublinear: true}); err != nil {
			b.Fatal(err)
		}
	}
}
