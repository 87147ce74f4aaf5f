package foils

import (
	"context"
	"fmt"

	"github.com/fallacylab/fallacylab/detect"
)

// Sets are the items one audit needs.
type Sets struct {
	Corpus  string
	Test    []Item // the corpus' test split, all labels; its "none" items are N
	Matched []Foil
	Wrong   []Foil
}

// Native returns the test items whose gold label is none.
func (s Sets) Native() []Item {
	var out []Item
	for _, it := range s.Test {
		if it.Gold == None {
			out = append(out, it)
		}
	}
	return out
}

// Inputs lists every text a detector must label, each once: "T:" test items,
// "M:" matched and "W:" wrong-scheme foils.
func (s Sets) Inputs() []detect.Input {
	var in []detect.Input
	for _, it := range s.Test {
		in = append(in, detect.Input{ID: "T:" + it.ID, Text: it.Text, Context: it.Context})
	}
	for _, f := range s.Matched {
		in = append(in, detect.Input{ID: "M:" + f.Key(), Text: f.Text})
	}
	for _, f := range s.Wrong {
		in = append(in, detect.Input{ID: "W:" + f.Key(), Text: f.Text})
	}
	return in
}

// LabelOf is the audit label of a detector's prediction: one of Labels,
// detect.Flagged (binary detectors flag without a type) or Unparsed.
func LabelOf(p detect.Prediction) string {
	if !p.Parsed {
		return Unparsed
	}
	if p.Label == detect.Flagged {
		return detect.Flagged
	}
	if l, ok := NormalizeLabel(p.Label); ok {
		return l
	}
	return Unparsed
}

// Predict runs a detector on every input and assembles the audit input.
// Labels outside the audit's label space count as unparsed.
func Predict(ctx context.Context, d detect.Detector, s Sets) (AuditInput, error) {
	in := s.Inputs()
	preds, err := d.Detect(ctx, in)
	if err != nil {
		return AuditInput{}, fmt.Errorf("detector %s: %w", d.Name(), err)
	}
	if len(preds) != len(in) {
		return AuditInput{}, fmt.Errorf("detector %s returned %d predictions for %d inputs", d.Name(), len(preds), len(in))
	}
	byID := make(map[string]string, len(preds))
	answers := make(map[string]Answer, len(preds))
	for _, p := range preds {
		byID[p.ID] = LabelOf(p)
		raw := p.Raw
		if raw == "" && byID[p.ID] == Unparsed {
			raw = p.Label // an external detector's label outside the audit's
		}
		if raw != "" || p.CallKey != "" {
			answers[p.ID] = Answer{Raw: raw, CallKey: p.CallKey}
		}
	}
	a := AuditInput{Corpus: s.Corpus, Detector: d.Name(), Test: s.Test, Matched: s.Matched, Wrong: s.Wrong, Answers: answers}
	if l, ok := d.(*detect.LLM); ok && l.Kind == "binary" {
		a.Binary = true
	}
	for _, it := range s.Test {
		p, ok := byID["T:"+it.ID]
		if !ok {
			return AuditInput{}, fmt.Errorf("detector %s: no prediction for %s", d.Name(), it.ID)
		}
		a.TestPred = append(a.TestPred, p)
		if it.Gold == None {
			a.Native = append(a.Native, it)
			a.NativePred = append(a.NativePred, p)
		}
	}
	for _, f := range s.Matched {
		a.MatchedPred = append(a.MatchedPred, byID["M:"+f.Key()])
	}
	for _, f := range s.Wrong {
		a.WrongPred = append(a.WrongPred, byID["W:"+f.Key()])
	}
	return a, nil
}
