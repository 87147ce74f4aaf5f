package missci

import (
	"fmt"
	"strings"

	"github.com/fallacylab/fallacylab/pyre"
)

// Prediction is one ranked (premise, class) answer for a reasoning line.
type Prediction struct {
	Premise string `json:"premise"`
	Class   string `json:"class"`
}

// PredictionLine is one line of a predictions file for `missci eval`
// (docs/schemas/missci-predictions.schema.json): ranked predictions, or
// the model's raw answer to parse.
type PredictionLine struct {
	ID          string       `json:"id"`
	Predictions []Prediction `json:"predictions"`
	Answer      *string      `json:"answer"`
}

var (
	reL1   = pyre.MustCompile(`(?i)^.*fallacious premise( 3\.?\d?)?: (.+)[;\."] applied fallacy class: (.+)$`)
	reL2   = pyre.MustCompile(`(?i)^.*fallacious premise( 3\.?\d?)?: (.+)[;\."] applied fallacy: (.+)$`)
	reFull = pyre.MustCompile(`(?im)^fallacious premise( 3\.?\d?)?: (.+)\n+applied fallacy class: (.+)$`)
)

// ParseOptions control parsing.
type ParseOptions struct {
	// Strict aborts on an unknown class name, as upstream does; otherwise it
	// becomes Other and is counted in Unknown.
	Strict  bool
	Unknown *[]string
}

// Normalize maps a class name under these options.
func (o ParseOptions) Normalize(raw string) (string, error) { return o.normalize(raw) }

func (o ParseOptions) normalize(raw string) (string, error) {
	c, err := Normalize(raw)
	if err == nil {
		return c, nil
	}
	if o.Strict {
		return "", err
	}
	if o.Unknown != nil {
		*o.Unknown = append(*o.Unknown, raw)
	}
	return Other, nil
}

// ParseGenCls parses a reconstruction answer into ranked predictions (SPEC A.5.1).
func ParseGenCls(answer string, o ParseOptions) ([]Prediction, error) {
	found := findGenCls(answer)
	if len(found) == 0 {
		return []Prediction{{Class: Other}}, nil
	}
	out := make([]Prediction, 0, len(found))
	for _, f := range found {
		c, err := o.normalize(pyre.Strip(f.class))
		if err != nil {
			return nil, err
		}
		out = append(out, Prediction{Premise: pyre.Strip(strings.ReplaceAll(f.premise, `"`, "")), Class: c})
	}
	return out, nil
}

// GenClsParsable reports whether a reconstruction answer holds at least one
// premise and class in a form the parser reads; an answer that does not is
// scored as a single Other prediction, and counted as unusable.
func GenClsParsable(answer string) bool { return len(findGenCls(answer)) > 0 }

// ClassifyParsable reports whether a classification answer names a class
// (or one of the phrases that mean Other) in a form the parser reads.
func ClassifyParsable(answer string) bool {
	for _, line := range strings.Split(answer, "\n") {
		if reFallacy.MatchString(pyre.Strip(line)) {
			return true
		}
	}
	for _, k := range classifyKeys {
		if strings.Contains(answer, k.key) {
			return true
		}
	}
	lower := pyre.Lower(answer)
	for _, k := range otherKeys {
		if strings.Contains(lower, pyre.Lower(k)) {
			return true
		}
	}
	return false
}

type genClsRaw struct{ premise, class string }

func findGenCls(answer string) []genClsRaw {
	type raw = genClsRaw
	var found []raw
	for _, line := range strings.Split(answer, "\n") {
		line = pyre.Strip(line)
		if line == "" {
			continue
		}
		if m := reL1.FindStringSubmatch(line); m != nil {
			found = append(found, raw{pyre.Strip(m[2]), pyre.Strip(m[3])})
		} else if m := reL2.FindStringSubmatch(line); m != nil {
			found = append(found, raw{pyre.Strip(m[2]), pyre.Strip(m[3])})
		}
	}
	if len(found) == 0 {
		for _, m := range reFull.FindAllStringSubmatch(answer, -1) {
			found = append(found, raw{m[2], m[3]})
		}
	}
	return found
}

var reFallacy = pyre.MustCompile(`(?i)^fallacy: (.+)$`)

// classifyKeys is the fallback table of SPEC A.5.2, in insertion order.
var classifyKeys = []struct{ key, class string }{
	{"Ambiguity", "Ambiguity"}, {"Impossible Expectations", "Impossible Expectations"}, {"False Equivalence", "False Equivalence"},
	{"False Dilemma", "False Dilemma"}, {"Biased Sample Fallacy", "Biased Sample Fallacy"}, {"Hasty Generalization", "Hasty Generalization"},
	{"Causal Oversimplification", "Causal Oversimplification"}, {"Fallacy of Composition", "Fallacy of Composition"},
	{"Fallacy of Exclusion", "Fallacy of Exclusion"},
	{"False Causality", "Causal Oversimplification"}, {"Causal Simplification", "Causal Oversimplification"}, {"False Cause", "Causal Oversimplification"},
	{"Fallacy of Equivocation", "Ambiguity"}, {"Fallacy of Equivalence", "False Equivalence"}, {"Other", "Other"},
}

// ParseClassify parses a classification answer (SPEC A.5.2).
func ParseClassify(answer string, o ParseOptions) (string, error) {
	for _, line := range strings.Split(answer, "\n") {
		line = pyre.Strip(line)
		if line == "" {
			continue
		}
		if m := reFallacy.FindStringSubmatch(line); m != nil {
			return o.normalize(pyre.Strip(m[1]))
		}
	}
	best, bestPos := "", -1
	for _, k := range classifyKeys {
		if p := strings.Index(answer, k.key); p >= 0 && (bestPos < 0 || p < bestPos) {
			best, bestPos = k.class, p
		}
	}
	if bestPos >= 0 {
		return o.normalize(best)
	}
	lower := pyre.Lower(answer)
	for _, k := range otherKeys {
		if strings.Contains(lower, pyre.Lower(k)) {
			return Other, nil
		}
	}
	if o.Strict {
		return "", fmt.Errorf("%w: no fallacy class in the answer", ErrUnknownClass)
	}
	if o.Unknown != nil {
		*o.Unknown = append(*o.Unknown, "(no class in answer)")
	}
	return Other, nil
}
