package missciplus

import (
	"encoding/json"
	"os"
	"testing"
)

// TestParserEqualsUpstream: on 171 crafted answers of every shape its
// patterns were written for (testdata/make_parser.py), the parser gives
// what upstream's ArgumentReconstructionParser gives — whether it parsed,
// whether the answer says no fallacy, and each fallacy's premise,
// generated and normalised class and rank.
func TestParserEqualsUpstream(t *testing.T) {
	b, err := os.ReadFile("testdata/parser.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []struct {
			Answer     string
			IsParsed   bool `json:"is_parsed"`
			ValidLogic bool `json:"valid_logic"`
			Fallacies  []ParsedFallacy
		}
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) < 150 {
		t.Fatalf("%d cases", len(ref.Cases))
	}
	fallacies := 0
	for i, c := range ref.Cases {
		got := ParseReconstruction(c.Answer)
		if got.IsParsed != c.IsParsed || got.ValidLogic != c.ValidLogic || len(got.Fallacies) != len(c.Fallacies) {
			t.Errorf("case %d %q: parsed %v valid %v, %d fallacies; upstream %v %v %d", i, c.Answer, got.IsParsed, got.ValidLogic, len(got.Fallacies), c.IsParsed, c.ValidLogic, len(c.Fallacies))
			continue
		}
		for j, w := range c.Fallacies {
			g := got.Fallacies[j]
			same := g.Premise == w.Premise && g.Generated == w.Generated && g.Rank == w.Rank && (g.Class == nil) == (w.Class == nil) && (g.Class == nil || *g.Class == *w.Class)
			if !same {
				t.Errorf("case %d fallacy %d: %+v (class %v), upstream %+v (class %v)", i, j, g, deref(g.Class), w, deref(w.Class))
			}
			fallacies++
		}
	}
	if fallacies < 200 {
		t.Errorf("only %d fallacies compared", fallacies)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
