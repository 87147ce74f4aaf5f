package foils

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/corpus"

	"github.com/fallacylab/fallacylab/detect"
)

func examples(items []Item, split string) []detect.Example {
	var out []detect.Example
	for _, it := range Split(items, split) {
		out = append(out, detect.Example{Text: it.Text, Label: it.Gold})
	}
	return out
}

// sklearnParity is a variant of testdata/sklearn_parity.json, made by
// testdata/sklearn_parity.py with Debian's python3-sklearn.
type sklearnParity struct {
	Vocab        int
	C            float64
	Selection    map[string]float64
	TestAccuracy float64 `json:"test_accuracy"`
	TestMacroF1  float64 `json:"test_macro_f1"`
	NTrain       int     `json:"n_train"`
	NTest        int     `json:"n_test"`
	Test         []struct{ ID, Pred string }
	ByText       map[string]string `json:"by_text"`
	Audit        struct {
		NativeFPR  float64 `json:"native_fpr"`
		MatchedFPR float64 `json:"matched_fpr"`
		WrongFlag  float64 `json:"wrong_flag"`
		Sep        float64
		Pooled     float64
		TPrime     float64 `json:"t_prime"`
		T          float64
		Margin     float64
	}
}

// textKey is the fixture's key of a text: its SHA-256's first 16 hex digits, CRLF as LF.
func textKey(text string) string {
	h := sha256.Sum256([]byte(strings.ReplaceAll(text, "\r\n", "\n")))
	return hex.EncodeToString(h[:8])
}

// byText labels each text as the fixture's scikit-learn model did.
type byText map[string]string

func (byText) Name() string { return "sklearn" }

func (m byText) Detect(_ context.Context, in []detect.Input) ([]detect.Prediction, error) {
	out := make([]detect.Prediction, len(in))
	for i, x := range in {
		l, ok := m[textKey(x.Text)]
		if !ok {
			return nil, fmt.Errorf("no scikit-learn prediction for %s", x.ID)
		}
		out[i] = detect.Prediction{ID: x.ID, Label: l, Parsed: true}
	}
	return out, nil
}

// TestTFIDFMatchesSklearn trains the default audit's detector on Reddit's
// annotated train split, picks C on dev and checks it against
// scikit-learn's pipeline on the same data (testdata/sklearn_parity.py):
// the same C, every dev accuracy, the test predictions one by one, the
// predictions on every text of the default audit, and the audit's figures.
func TestTFIDFMatchesSklearn(t *testing.T) {
	if testing.Short() {
		t.Skip("trains three models")
	}
	var fixture struct{ Annotated sklearnParity }
	data, err := os.ReadFile("testdata/sklearn_parity.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &fixture); err != nil {
		t.Fatal(err)
	}
	ref := fixture.Annotated
	all, err := corpus.EmbeddedReddit()
	if err != nil {
		t.Fatal(err)
	}
	items, err := redditVariant("reddit", "annotated", all)
	if err != nil {
		t.Fatal(err)
	}
	tr, dv, te := examples(items, "train"), examples(items, "dev"), examples(items, "test")
	if len(tr) != ref.NTrain || len(te) != ref.NTest || len(ref.Test) != len(te) {
		t.Fatalf("splits %d/%d differ from sklearn's %d/%d", len(tr), len(te), ref.NTrain, ref.NTest)
	}
	m, err := detect.TrainTFIDF(tr, dv, Labels, nil, detect.VectorizerOptions{Sublinear: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Vectorizer.IDF) != ref.Vocab {
		t.Fatalf("vocabulary %d, sklearn %d", len(m.Vectorizer.IDF), ref.Vocab)
	}
	if m.Model.C != ref.C {
		t.Errorf("chose C = %g on dev (%v), sklearn C = %g (%v)", m.Model.C, m.Selection, ref.C, ref.Selection)
	}
	for c, acc := range ref.Selection {
		// One dev text either way.
		if got := m.Selection[c]; math.Abs(got-acc) > 1.5/float64(len(dv)) {
			t.Errorf("C = %s: dev accuracy %.4f, sklearn %.4f", c, got, acc)
		}
	}
	same, ok := 0, 0
	testIDs := Split(items, "test")
	for i, e := range te {
		if testIDs[i].ID != ref.Test[i].ID {
			t.Fatalf("test item %d is %s, sklearn's %s", i, testIDs[i].ID, ref.Test[i].ID)
		}
		got := m.Label(e.Text)
		if got == ref.Test[i].Pred {
			same++
		}
		if got == e.Label {
			ok++
		}
	}
	acc := float64(ok) / float64(len(te))
	t.Logf("C=%g: %d of %d test predictions equal to sklearn's; accuracy %.4f, sklearn %.4f", m.Model.C, same, len(te), acc, ref.TestAccuracy)
	if same < len(te)-1 || math.Abs(acc-ref.TestAccuracy) > 1.5/float64(len(te)) {
		t.Fatalf("%d of %d test predictions equal to sklearn's (want all but at most one)", same, len(te))
	}
	// The default audit: the test split and the released Reddit sets.
	mt, wr, err := EmbeddedFoils("reddit")
	if err != nil {
		t.Fatal(err)
	}
	sets := Sets{Corpus: "reddit", Test: testIDs, Matched: mt, Wrong: wr}
	inputs := sets.Inputs()
	agree := 0
	for _, in := range inputs {
		if m.Label(in.Text) == ref.ByText[textKey(in.Text)] {
			agree++
		}
	}
	t.Logf("%d of %d audit texts labelled as sklearn does", agree, len(inputs))
	if agree < len(inputs)-2 {
		t.Fatalf("%d of %d audit texts labelled as sklearn does (want all but at most two)", agree, len(inputs))
	}
	opts := AuditOptions{Seed: 1, Resamples: 200, Perms: 200}
	figures := func(d detect.Detector) Summary {
		in, err := Predict(context.Background(), d, sets)
		if err != nil {
			t.Fatal(err)
		}
		_, sum, err := Audit(in, opts)
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	// Our audit of sklearn's predictions is the script's own arithmetic …
	sk, goSum := figures(byText(ref.ByText)), figures(m)
	a := ref.Audit
	for _, c := range []struct {
		name           string
		got, want, tol float64
	}{
		{"native FPR", sk.NativeFPR.Estimate, a.NativeFPR, 1e-12},
		{"matched FPR", sk.MatchedFPR.Estimate, a.MatchedFPR, 1e-12},
		{"wrong-scheme flags", sk.WrongFlag.Estimate, a.WrongFlag, 1e-12},
		{"Sep", 100 * sk.Sep, a.Sep, 1e-9},
		{"pooled", 100 * sk.Pooled, a.Pooled, 1e-9},
		{"T′", sk.TPrime, a.TPrime, 1e-12},
		{"T", sk.T, a.T, 1e-12},
		{"margin", 100 * sk.Margin, a.Margin, 1e-9},
		// … and the Go detector's audit is within the texts it labels otherwise.
		{"Go native FPR", goSum.NativeFPR.Estimate, a.NativeFPR, 2.5 / float64(sk.NativeFPR.N)},
		{"Go matched FPR", goSum.MatchedFPR.Estimate, a.MatchedFPR, 2.5 / float64(len(mt))},
		{"Go wrong-scheme flags", goSum.WrongFlag.Estimate, a.WrongFlag, 2.5 / float64(len(wr))},
		{"Go Sep", 100 * goSum.Sep, a.Sep, 100 * 2.5 / 45},
		{"Go margin", 100 * goSum.Margin, a.Margin, 100 * 2.5 / float64(len(wr))},
	} {
		if math.Abs(c.got-c.want) > c.tol {
			t.Errorf("%s %.6g, sklearn %.6g", c.name, c.got, c.want)
		}
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
