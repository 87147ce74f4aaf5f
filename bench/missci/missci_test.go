package missci

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/textmetric"
)

func TestDatasetCounts(t *testing.T) {
	for split, want := range map[string][3]int{"dev": {30, 72, 96}, "test": {154, 363, 454}} {
		args, err := Load(split)
		if err != nil {
			t.Fatal(err)
		}
		lines, facs := 0, 0
		for _, a := range args {
			lines += len(a.Lines)
			for _, l := range a.Lines {
				facs += len(l.Fallacies)
			}
		}
		if len(args) != want[0] || lines != want[1] || facs != want[2] {
			t.Fatalf("%s: %d/%d/%d", split, len(args), lines, facs)
		}
	}
	if _, err := Parse(strings.NewReader(`{"id":"a","argument":{"claim":"c","fallacies":[{"id":"a:1","interchangeable_fallacies":[{"class":"Nonsense"}]}]}}`), "x.jsonl"); err == nil || !strings.Contains(err.Error(), "x.jsonl line 1") {
		t.Fatal(err)
	}
}

// The published random rows of Table 2: mean over seeds 1–5 on test.
func TestRandomBaselineReproducesTable2(t *testing.T) {
	args, _ := Load("test")
	var p1, a1, f1 float64
	for seed := uint64(1); seed <= 5; seed++ {
		preds, err := RandomBaseline(args, seed, "claim")
		if err != nil {
			t.Fatal(err)
		}
		r, err := EvaluateReconstruction(args, preds, 1)
		if err != nil {
			t.Fatal(err)
		}
		p1, a1, f1 = p1+r.HasPositive/5, a1+r.ArgK/5, f1+r.MicroF1/5
	}
	got := [3]float64{round4(p1), round4(a1), round4(f1)}
	if got != [3]float64{0.1311, 0.2636, 0.1165} {
		t.Fatalf("random baseline P@1, Arg@1, micro-F1 = %v; paper 0.1311, 0.2636, 0.1165", got)
	}
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

func TestNormalizeA3(t *testing.T) {
	for in, want := range map[string]string{
		"Hasty Generalization / Biased Sample Fallacy": "Biased Sample Fallacy",
		"False Equivalence (or Ambiguity)":             "Ambiguity",
		"Fallacy of Composition":                       "Fallacy of Division/Composition",
		"False Dilemma":                                "False Dilemma / Affirming the Disjunct",
		"None of the above":                            Other,
		"Correlation does not imply causation":         "Causal Oversimplification",
	} {
		got, err := Normalize(in)
		if err != nil || got != want {
			t.Errorf("%q → %q %v, want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"false equivalence", "Fallacy of Division/Composition", "Cherry Picking", "Nonsense"} {
		if _, err := Normalize(bad); !errors.Is(err, ErrUnknownClass) {
			t.Errorf("%q should be unknown: %v", bad, err)
		}
	}
}

func TestParseGenCls(t *testing.T) {
	strict := ParseOptions{Strict: true}
	p, err := ParseGenCls("1. Fallacious Premise: \"A\" causes B; Applied Fallacy Class: False Cause.\n- Fallacious Premise: X. Applied fallacy: Ambiguity", strict)
	if err != nil || len(p) != 2 || p[0].Premise != "A causes B" || p[0].Class != "Causal Oversimplification" || p[1].Class != "Ambiguity" {
		t.Fatalf("%+v %v", p, err)
	}
	p, _ = ParseGenCls("Fallacious Premise 2: x; Applied Fallacy Class: Ambiguity", strict)
	if len(p) != 1 || p[0].Class != Other || p[0].Premise != "" {
		t.Fatalf("'Premise 2' should fall back to Other: %+v", p)
	}
	p, _ = ParseGenCls("Fallacious Premise: x Applied Fallacy Class: Ambiguity", strict)
	if p[0].Class != Other {
		t.Fatalf("missing separator should fall back: %+v", p)
	}
	p, _ = ParseGenCls("Fallacious Premise 3.1: a; b; Applied Fallacy Class: Ambiguity", strict)
	if p[0].Premise != "a; b" {
		t.Fatalf("greedy split: %+v", p)
	}
	p, _ = ParseGenCls("Fallacious Premise: the premise\n\nApplied Fallacy Class: False Analogy", strict)
	if len(p) != 1 || p[0].Class != "False Equivalence" || p[0].Premise != "the premise" {
		t.Fatalf("full-text form: %+v", p)
	}
	if _, err := ParseGenCls("Fallacious Premise: x; Applied Fallacy Class: Appeal to Nature", strict); err == nil {
		t.Fatal("unknown class should abort in strict mode")
	}
	var unknown []string
	p, err = ParseGenCls("Fallacious Premise: x; Applied Fallacy Class: Appeal to Nature", ParseOptions{Unknown: &unknown})
	if err != nil || p[0].Class != Other || len(unknown) != 1 {
		t.Fatalf("%+v %v %v", p, err, unknown)
	}
}

func TestParseClassify(t *testing.T) {
	strict := ParseOptions{Strict: true}
	for in, want := range map[string]string{
		"Because...\nFallacy: False Dilemma":                 "False Dilemma / Affirming the Disjunct",
		"It is a False Cause, maybe Ambiguity":               "Causal Oversimplification",
		"Neither Ambiguity nor Fallacy of Equivalence apply": "Ambiguity",
		"I cannot determine the fallacy applied here":        Other,
	} {
		got, err := ParseClassify(in, strict)
		if err != nil || got != want {
			t.Errorf("%q → %q %v, want %q", in, got, err, want)
		}
	}
	if _, err := ParseClassify("Fallacy: ambiguity", strict); err == nil {
		t.Error("case-sensitive normalisation: lower-case ambiguity aborts")
	}
	if _, err := ParseClassify("no idea", strict); err == nil {
		t.Error("no class should be an error in strict mode")
	}
}

func TestMicroF1IgnoresOther(t *testing.T) {
	args := []Argument{{ID: "a", Lines: []Line{
		{ID: "a:1", Fallacies: []Interchangeable{{Class: "Ambiguity"}}},
		{ID: "a:2", Fallacies: []Interchangeable{{Class: "False Equivalence"}}}}}}
	preds := Predictions{"a:1": {{Class: "Ambiguity"}}, "a:2": {{Class: Other}}}
	r, err := EvaluateReconstruction(args, preds, 1)
	if err != nil {
		t.Fatal(err)
	}
	// TP 1, P_kept 1 (Other dropped), gold 2: micro-F1 = 2/(1+2).
	if math.Abs(r.MicroF1-2.0/3) > 1e-12 || r.HasPositive != 0.5 || r.ArgK != 1 {
		t.Fatalf("%+v", r)
	}
	if r.ArgT[50] != 1 || r.ArgT[60] != 0 {
		t.Fatalf("Arg@t %v", r.ArgT)
	}
}

func TestUnkLowersMacroF1(t *testing.T) {
	yTrue := []string{"Ambiguity", "Ambiguity", "False Equivalence", "Fallacy of Exclusion"}
	yPred := []string{"Ambiguity", Other, "False Equivalence", "Ambiguity"}
	r, err := EvaluateWithPremise(yTrue, yPred)
	if err != nil {
		t.Fatal(err)
	}
	// Labels: 3 gold + unk. Ambiguity P 1/2 R 1/2 F1 .5; FE F1 1; Exclusion 0; unk 0 → 1.5/4.
	if r.Accuracy != 0.5 || math.Abs(r.MacroF1-0.375) > 1e-12 || len(r.Labels) != 4 {
		t.Fatalf("%+v", r)
	}
}

func TestFillTemplates(t *testing.T) {
	if n := len(Templates()); n != 49 {
		t.Fatalf("%d templates, want 49", n)
	}
	for _, name := range Templates() {
		tpl, _ := Template(name)
		out, err := Fill(name, tpl, "CLAIM", "", "P0", "PREMISE")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !strings.Contains(out, "CLAIM") {
			t.Errorf("%s: claim not filled", name)
		}
	}
	if _, err := Fill("gen_cls/x", "@@claim@@ @@unknown@@", "c", "", "p", ""); err == nil {
		t.Fatal("leftover @@ accepted")
	}
}

func TestConsistencyAndSingleFallacy(t *testing.T) {
	args := []Argument{{ID: "a", Lines: []Line{{ID: "a:1", Fallacies: []Interchangeable{{Class: "Ambiguity"}, {Class: "False Equivalence"}}}}}}
	preds := Predictions{"a:1": {{Premise: "p1", Class: "Hasty Generalization"}, {Premise: "p2", Class: "Ambiguity"}, {Premise: "p3", Class: "False Equivalence"}}}
	if got := SingleFallacy(args, preds, 1)["a:1"]; got.Premise != "p1" {
		t.Fatalf("k=1 takes the top-1: %+v", got)
	}
	if got := SingleFallacy(args, preds, 3)["a:1"]; got.Premise != "p3" {
		t.Fatalf("the last gold match within k wins: %+v", got)
	}
	units := []ClassifyUnit{{ID: "x", Premise: "this is ambiguity talk", Gold: "Ambiguity"}, {ID: "y", Premise: "p", Gold: "Ambiguity"}, {ID: "z", Premise: "q", Gold: "Other"}}
	c, err := EvaluateConsistency(units, map[string]string{"x": "Ambiguity", "y": "Ambiguity", "z": "False Equivalence"}, false)
	if err != nil || c.N != 2 || c.Matches != 1 || len(c.Excluded) != 1 || c.MatchesAt1 != 50 {
		t.Fatalf("%+v %v", c, err)
	}
	if _, err := EvaluateConsistency(units, map[string]string{"x": "Ambiguity", "y": "Ambiguity", "z": "Other"}, true); err == nil {
		t.Fatal("strict mode should abort on a self-naming premise")
	}
	if n := len(GoldPremiseUnits(mustLoad(t, "test"))); n != 454 {
		t.Fatalf("%d gold-premise units, want 454", n)
	}
}

func mustLoad(t *testing.T, split string) []Argument {
	a, err := Load(split)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestHumanEvalTable13(t *testing.T) {
	h, err := EmbeddedHumanEval()
	if err != nil {
		t.Fatal(err)
	}
	r3 := func(x float64) float64 { return math.Round(x*1000) / 1000 }
	if h.NYes != 68 || h.NNo != 172 || r3(h.YesMean) != 0.280 || r3(h.NoMean) != 0.227 || r3(h.R) != 0.153 || r3(h.P) != 0.017 {
		t.Fatalf("%+v; paper: 68/172 rows, 0.280, 0.227, r 0.153, p 0.017", h)
	}
}

func TestMatchPairsAndMeteor(t *testing.T) {
	args := []Argument{{ID: "a", Lines: []Line{
		{ID: "a:1", Fallacies: []Interchangeable{{Premise: "Vaccines cause autism in children", Class: "Causal Oversimplification"}}},
		{ID: "a:2", Fallacies: []Interchangeable{{Premise: "A small trial proves it works for everyone", Class: "Hasty Generalization"}, {Premise: "Mice are like humans", Class: "False Equivalence"}}}}}}
	preds := Predictions{
		"a:1": {{Premise: "Something else", Class: "Ambiguity"}, {Premise: "vaccines cause autism", Class: "Causal Oversimplification"}},
		"a:2": {{Premise: "mice are similar to humans", Class: "Ambiguity"}},
	}
	pairs, err := MatchPairs(args, preds, 2)
	if err != nil {
		t.Fatal(err)
	}
	if pairs[0].Method != "class" || pairs[0].Pred != "vaccines cause autism" || !pairs[0].Correct {
		t.Fatalf("%+v", pairs[0])
	}
	if pairs[1].Method != "lexical" || pairs[1].Gold != "Mice are like humans" || pairs[1].Correct {
		t.Fatalf("%+v", pairs[1])
	}
	s, err := ScorePairs(pairs)
	m0, _ := textmetric.Meteor(pairs[0].Gold, pairs[0].Pred)
	m1, _ := textmetric.Meteor(pairs[1].Gold, pairs[1].Pred)
	if err != nil || s.N != 2 || s.NCorrect != 1 || s.NLexical != 1 || s.Correct != m0 || s.Incorrect != m1 || math.Abs(s.All-(m0+m1)/2) > 1e-15 {
		t.Fatalf("%+v %v", s, err)
	}
}

// BenchmarkEvaluateK6 is the figure: scoring a k = 6 prediction set
// for the test split (all cut-offs' class metrics plus METEOR of the pairs).
func BenchmarkEvaluateK6(b *testing.B) {
	args, _ := Load("test")
	preds := Predictions{}
	r := NewPyRandom(7)
	for _, a := range args {
		for _, l := range a.Lines {
			for k := range 6 {
				premise := a.Claim
				if k%2 == 1 {
					premise = a.P0
				}
				preds[l.ID] = append(preds[l.ID], Prediction{Premise: premise, Class: r.Choice(Classes)})
			}
		}
	}
	b.ResetTimer()
	for range b.N {
		for _, k := range []int{1, 2, 3, 4, 5, 6, 0} {
			if _, err := EvaluateReconstruction(args, preds, k); err != nil {
				b.Fatal(err)
			}
		}
		pairs, _ := MatchPairs(args, preds, 6)
		if _, err := ScorePairs(pairs); err != nil {
			b.Fatal(err)
		}
	}
}

func TestPerClassMeteor(t *testing.T) {
	pairs := []Pair{
		{Gold: "a b c", Pred: "a b c", GoldClass: "Ambiguity", Correct: true},
		{Gold: "x y", Pred: "q r", GoldClass: "Ambiguity", Correct: true},
		{Gold: "x y", Pred: "x y", GoldClass: "False Equivalence", Correct: false},
	}
	per, n, err := PerClassMeteor(pairs)
	m0, _ := textmetric.Meteor("a b c", "a b c")
	if err != nil || n["Ambiguity"] != 2 || n["False Equivalence"] != 0 || math.Abs(per["Ambiguity"]-m0/2) > 1e-15 {
		t.Fatalf("%v %v %v", per, n, err)
	}
}

// Table 4's GPT-4 (D) row: with P@1 = 0.317 the approximation gives 0.674
// (q2) and 0.481 (q3), as published.
func TestTable4Approximation(t *testing.T) {
	strata, err := EmbeddedTable14()
	if err != nil {
		t.Fatal(err)
	}
	var s *Stratum
	for i := range strata {
		if strata[i].Model == "GPT 4" && strata[i].Prompt == "definition" {
			s = &strata[i]
		}
		if strata[i].NCorrect != 30 || strata[i].NIncorrect != 30 {
			t.Fatalf("strata should hold 30 items each: %+v", strata[i])
		}
	}
	r3 := func(x float64) float64 { return math.Round(x*1000) / 1000 }
	if s == nil || r3(s.Approximate(0.317, 1)) != 0.674 || r3(s.Approximate(0.317, 2)) != 0.481 {
		t.Fatalf("%+v", s)
	}
}
