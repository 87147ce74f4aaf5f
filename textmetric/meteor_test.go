package textmetric

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/stats"
)

var nltkRefs struct {
	Sentences map[string][]string
	Tokens    map[string][]string
	Stems     map[string]string
	Synonyms  map[string][]string
	Meteor    []float64
	Table13   struct {
		YesMean float64 `json:"yes_mean"`
		NoMean  float64 `json:"no_mean"`
		R, P    float64
	}
}

func loadRefs(t testing.TB) {
	if nltkRefs.Tokens != nil {
		return
	}
	data, err := os.ReadFile("testdata/nltk_refs.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &nltkRefs); err != nil {
		t.Fatal(err)
	}
}

func TestSentencesMatchNLTK(t *testing.T) {
	loadRefs(t)
	for text, want := range nltkRefs.Sentences {
		if got := Sentences(text); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%q:\n got %q\nwant %q", text, got, want)
		}
	}
}

func TestTokensMatchNLTK(t *testing.T) {
	loadRefs(t)
	bad := 0
	for text, want := range nltkRefs.Tokens {
		if got := WordTokenize(text); strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			bad++
			if bad <= 3 {
				t.Errorf("%q:\n got %q\nwant %q", text, got, want)
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d of %d texts tokenised differently", bad, len(nltkRefs.Tokens))
	}
}

func TestPorterMatchesNLTK(t *testing.T) {
	loadRefs(t)
	for w, want := range nltkRefs.Stems {
		if got := PorterStem(w); got != want {
			t.Errorf("%q → %q, nltk %q", w, got, want)
		}
	}
}

func TestSynonymsMatchNLTK(t *testing.T) {
	loadRefs(t)
	for w, want := range nltkRefs.Synonyms {
		set, err := Synonyms(w)
		if err != nil {
			t.Fatal(err)
		}
		if len(set) != len(want) {
			t.Errorf("%q: %d synonyms, nltk %d", w, len(set), len(want))
			continue
		}
		for _, s := range want {
			if !set[s] {
				t.Errorf("%q: missing %q", w, s)
			}
		}
	}
}

func humanEval(t testing.TB) [][]string {
	f, err := os.Open("../bench/missci/data/human-eval.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestMeteorReproducesTable13 scores every human-evaluation pair and checks
// each score against nltk and the Table 13 summary against the paper.
func TestMeteorReproducesTable13(t *testing.T) {
	loadRefs(t)
	rows := humanEval(t)
	hdr := map[string]int{}
	for i, h := range rows[0] {
		hdr[h] = i
	}
	var scores, q4 []float64
	for i, r := range rows[1:] {
		s, err := Meteor(r[hdr["reference_premise"]], r[hdr["generated_premise"]])
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(s-nltkRefs.Meteor[i]) > 1e-12 {
			t.Errorf("row %d: METEOR %.17g, nltk %.17g", i+1, s, nltkRefs.Meteor[i])
		}
		scores = append(scores, s)
		if strings.EqualFold(strings.TrimSpace(r[hdr["q4"]]), "true") {
			q4 = append(q4, 1)
		} else {
			q4 = append(q4, 0)
		}
	}
	var yes, no []float64
	for i := range scores {
		if q4[i] == 1 {
			yes = append(yes, scores[i])
		} else {
			no = append(no, scores[i])
		}
	}
	my, _ := stats.Mean(yes)
	mn, _ := stats.Mean(no)
	c, _ := stats.Pearson(scores, q4)
	round3 := func(x float64) float64 { return math.Round(x*1000) / 1000 }
	if round3(my) != 0.280 || round3(mn) != 0.227 || round3(c.R) != 0.153 || round3(c.P) != 0.017 {
		t.Fatalf("Table 13: yes %.4f no %.4f r %.4f p %.4f; paper 0.280 0.227 0.153 0.017", my, mn, c.R, c.P)
	}
}

func TestMeteorEdges(t *testing.T) {
	if s, _ := SingleMeteor(nil, []string{"a"}, DefaultMeteor); s != 0 {
		t.Fatal("empty reference")
	}
	s, _ := SingleMeteor(strings.Fields("the cat sat on the mat today"), strings.Fields("the cat sat on the mat today"), DefaultMeteor)
	if math.Abs(s-0.9985422740524781) > 1e-12 { // SPEC A.7: identical 7-token sentences score 0.9985
		t.Fatalf("identical: %v", s)
	}
}

// BenchmarkMeteor is METEOR pairs per second on the human-evaluation pairs
// (compare: nltk on the same pairs, see testdata/make_nltk_refs.py).
func BenchmarkMeteor(b *testing.B) {
	rows := humanEval(b)[1:]
	Synonyms("warm") // load WordNet once
	b.ResetTimer()
	for i := range b.N {
		r := rows[i%len(rows)]
		Meteor(r[5], r[3])
	}
}

func TestMeteorBatchEqualsSequential(t *testing.T) {
	loadRefs(t)
	rows := humanEval(t)[1:]
	var refs, preds []string
	for _, r := range rows {
		refs, preds = append(refs, r[5]), append(preds, r[3])
	}
	got, err := MeteorBatch(refs, preds)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range got {
		if math.Abs(s-nltkRefs.Meteor[i]) > 1e-12 {
			t.Fatalf("pair %d: %v vs nltk %v", i, s, nltkRefs.Meteor[i])
		}
	}
	if _, err := MeteorBatch(refs, preds[:1]); err == nil {
		t.Fatal("length mismatch accepted")
	}
}

// BenchmarkMeteorBatch scores the 240 human-evaluation pairs per iteration
// on all cores; pairs/s = 240 / (ns/op · 1e-9).
func BenchmarkMeteorBatch(b *testing.B) {
	rows := humanEval(b)[1:]
	var refs, preds []string
	for _, r := range rows {
		refs, preds = append(refs, r[5]), append(preds, r[3])
	}
	Synonyms("warm")
	b.ResetTimer()
	for range b.N {
		MeteorBatch(refs, preds)
	}
	b.ReportMetric(float64(len(refs)*b.N)/b.Elapsed().Seconds(), "pairs/s")
}

// BenchmarkReadWordNet is what the first METEOR score of a process pays:
// reading the embedded WordNet index.
func BenchmarkReadWordNet(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		if _, err := readWordNet(); err != nil {
			b.Fatal(err)
		}
	}
}
