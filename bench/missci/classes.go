package missci

import (
	"fmt"
	"sort"
	"strings"
)

// Classes are the nine dataset classes in their (alphabetical) list order.
var Classes = []string{"Ambiguity", "Biased Sample Fallacy", "Causal Oversimplification", "Fallacy of Division/Composition",
	"Fallacy of Exclusion", "False Dilemma / Affirming the Disjunct", "False Equivalence", "Hasty Generalization", "Impossible Expectations"}

// Other is the pseudo-class a prediction may take; it is never gold.
const Other = "Other"

func isClass(s string) bool {
	for _, c := range Classes {
		if c == s {
			return true
		}
	}
	return false
}

// IsValid reports whether s is one of the ten legal prediction names.
func IsValid(s string) bool { return s == Other || isClass(s) }

// normTable is table T of SPEC A.3: prompt names and aliases.
var normTable = map[string]string{
	"Ambiguity": "Ambiguity", "Impossible Expectations": "Impossible Expectations", "False Equivalence": "False Equivalence",
	"False Dilemma": "False Dilemma", "Biased Sample Fallacy": "Biased Sample Fallacy", "Hasty Generalization": "Hasty Generalization",
	"Causal Oversimplification": "Causal Oversimplification", "Fallacy of Composition": "Fallacy of Composition",
	"Fallacy of Exclusion": "Fallacy of Exclusion",
	"False Cause":          "Causal Oversimplification", "False Causality": "Causal Oversimplification", "Fallacy of Oversimplification": "Causal Oversimplification",
	"Correlation does not imply causation": "Causal Oversimplification", "Causal oversimplification": "Causal Oversimplification",
	"Correlation-Causality Fallacy": "Causal Oversimplification",
	"False Exclusion":               "Fallacy of Exclusion", "Exclusion": "Fallacy of Exclusion", "Argument from Ignorance": "Fallacy of Exclusion",
	"Fallacy of Equivocation": "Ambiguity", "ambiguous": "Ambiguity", "false-equivocation": "Ambiguity",
	"False Expectations": "Impossible Expectations", "Imaginary Expectations": "Impossible Expectations",
	"Fallacy of Biased Sample": "Biased Sample Fallacy", "Bias Sample Fallacy": "Biased Sample Fallacy",
	"Fallacy of Equivalence": "False Equivalence", "False Analogy": "False Equivalence",
}

// otherKeys map to Other when no table key occurs (SPEC A.3 step 4).
var otherKeys = []string{"Non Sequitur", "False Conclusion", "Coercive Definition", "False Negative",
	"Appeal to Authority", "Fallacy of Authority", "False Generalization", "False Authority",
	"Confirmation Bias", "None", "False Assumption", "Other", "Fallacy of Repetition",
	"Begging the Question", "Fallacy of Tradition", "Fallacy of Misleading Statistics",
	"impossible to correctly identify the applied fallacy class.",
	"it's impossible to accurately determine what fallacy might be in play",
	"ot enough information given in this example to determine an applied fallacy",
	"cannot determine the fallacy applied"}

// ErrUnknownClass is wrapped by Normalize for a name it cannot map.
var ErrUnknownClass = fmt.Errorf("unknown fallacy class")

// Normalize maps a raw class name to a dataset class or Other (SPEC A.3):
// among the table keys occurring in s as case-sensitive substrings, the one
// that sorts first in byte order wins; otherwise any "other" key gives Other;
// otherwise the name is unknown (upstream aborts).
func Normalize(s string) (string, error) {
	var hits []string
	for k := range normTable {
		if strings.Contains(s, k) {
			hits = append(hits, k)
		}
	}
	if len(hits) > 0 {
		sort.Strings(hits)
		return finalName(normTable[hits[0]]), nil
	}
	for _, k := range otherKeys {
		if strings.Contains(s, k) {
			return Other, nil
		}
	}
	return "", fmt.Errorf("%w: %q", ErrUnknownClass, s)
}

func finalName(s string) string {
	switch s {
	case "Fallacy of Composition":
		return "Fallacy of Division/Composition"
	case "False Dilemma":
		return "False Dilemma / Affirming the Disjunct"
	}
	return s
}
