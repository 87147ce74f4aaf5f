package foils

import (
	"fmt"
	"math"
	"testing"
)

// scripted builds sets whose audit numbers are known in closed form:
// matched: of each type's two items, the first is called its source type and
// the second none → M_τ = ½, matched FPR ½; wrong-scheme: every item is called
// its target type → W_τ = 0, T′ = 1, T = 0; native: 1 of 10 flagged.
func scripted() AuditInput {
	var in AuditInput
	in.Corpus, in.Detector = "test", "scripted"
	for i, t := range Types {
		for k := range 2 {
			f := Foil{Condition: Matched, Source: t, ID: k, Text: fmt.Sprintf("matched %d %d. Short words here.", i, k)}
			in.Matched = append(in.Matched, f)
			if k == 0 {
				in.MatchedPred = append(in.MatchedPred, t)
			} else {
				in.MatchedPred = append(in.MatchedPred, None)
			}
			tgt := Types[(i+1)%len(Types)]
			in.Wrong = append(in.Wrong, Foil{Condition: WrongScheme, Source: t, Target: tgt, ID: k, Text: fmt.Sprintf("wrong %d %d. Considerably elaborate vocabulary.", i, k)})
			in.WrongPred = append(in.WrongPred, tgt)
		}
	}
	for i := range 10 {
		it := Item{ID: fmt.Sprint("n", i), Gold: None, Split: "test"}
		p := None
		if i == 0 {
			p = "appeal to nature"
		}
		in.Native, in.NativePred = append(in.Native, it), append(in.NativePred, p)
		in.Test, in.TestPred = append(in.Test, it), append(in.TestPred, p)
	}
	// Fallacious test items: 4 errors, 3 of them "none".
	for i, p := range []string{None, None, None, "appeal to majority", "slippery slope", "slippery slope"} {
		it := Item{ID: fmt.Sprint("f", i), Gold: "slippery slope", Split: "test"}
		in.Test, in.TestPred = append(in.Test, it), append(in.TestPred, p)
	}
	return in
}

func TestAuditKnownNumbers(t *testing.T) {
	rep, s, err := Audit(scripted(), AuditOptions{Seed: 1, Resamples: 500, Perms: 500})
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("native FPR", s.NativeFPR.Estimate, 0.1)
	check("matched FPR", s.MatchedFPR.Estimate, 0.5)
	check("WS flag", s.WrongFlag.Estimate, 1)
	check("gap", s.Gap, 0.4)
	check("separation", s.Sep, 0.5)
	check("pooled", s.Pooled, 0.5)
	check("T′", s.TPrime, 1)
	check("T", s.T, 0)
	check("margin", s.Margin, 1)
	check("share none", s.ShareNone, 0.75)
	if !(s.GapLo <= s.Gap && s.Gap <= s.GapHi) || !s.Dissociation {
		t.Errorf("interval or verdict: %+v", s)
	}
	if s.FirthOR <= 1 {
		t.Errorf("matched items are flagged as τ more often: Firth OR %v", s.FirthOR)
	}
	if len(rep.Tables()) < 5 {
		t.Errorf("%d tables", len(rep.Tables()))
	}
	// Unparsed predictions leave the denominators.
	in := scripted()
	in.NativePred[5] = Unparsed
	_, s2, _ := Audit(in, AuditOptions{Resamples: 50, Perms: 50})
	if s2.Unparsed != 1 || s2.NativeFPR.N != 9 {
		t.Errorf("unparsed: %d, native n %d", s2.Unparsed, s2.NativeFPR.N)
	}
	in.MatchedPred = in.MatchedPred[:3]
	if _, _, err := Audit(in, AuditOptions{}); err == nil {
		t.Error("misaligned predictions accepted")
	}
}
