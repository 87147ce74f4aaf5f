package detect

import "testing"

var labels = []string{"appeal to authority", "appeal to majority", "appeal to nature", "appeal to tradition",
	"appeal to worse problems", "false dilemma", "hasty generalization", "slippery slope", "none"}

func TestParseTyped(t *testing.T) {
	for raw, want := range map[string]string{
		"appeal to authority":           "appeal to authority",
		"  \"Slippery Slope.\"  ":       "slippery slope",
		"None":                          "none",
		"The fallacy is: false dilemma": "false dilemma",
		"hasty generalization or none":  "",
		"strawman":                      "",
		"":                              "",
	} {
		got, ok := ParseTyped(raw, labels)
		if got != want || ok != (want != "") {
			t.Errorf("%q → %q %v, want %q", raw, got, ok, want)
		}
	}
}

func TestParseBinary(t *testing.T) {
	for raw, want := range map[string]string{"Yes.": Flagged, "no": "none", "NO, it does not": "none", "maybe": "", "": ""} {
		got, ok := ParseBinary(raw)
		if got != want || ok != (want != "") {
			t.Errorf("%q → %q %v", raw, got, ok)
		}
	}
}
