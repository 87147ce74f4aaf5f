package missci

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/pyre"
)

// The parsers extract what upstream's Python extracts, under Python's re
// and str semantics (Unicode \d, IGNORECASE folding 'İ' and 'ı' to 'i',
// str.strip and str.lower): testdata/parse_reference.json was made by
// testdata/parse_reference.py with upstream's regexes.
func TestParsersMatchPython(t *testing.T) {
	b, err := os.ReadFile("testdata/parse_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		GenCls []struct {
			Answer string
			Found  [][2]string
		} `json:"gen_cls"`
		Classify []struct {
			Answer    string
			Line      *string
			OtherKeys []string `json:"other_keys"`
		}
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	for _, c := range ref.GenCls {
		var got [][2]string
		for _, f := range findGenCls(c.Answer) {
			got = append(got, [2]string{f.premise, f.class})
		}
		if len(got) != len(c.Found) || (len(got) > 0 && !reflect.DeepEqual(got, c.Found)) {
			t.Errorf("%q: found %q, Python %q", c.Answer, got, c.Found)
		}
	}
	keys := []string{"Non Sequitur", "None", "Other", "cannot determine the fallacy applied"}
	for _, c := range ref.Classify {
		var line *string
		for _, l := range strings.Split(c.Answer, "\n") {
			if m := reFallacy.FindStringSubmatch(pyre.Strip(l)); m != nil {
				s := pyre.Strip(m[1])
				line = &s
				break
			}
		}
		if (line == nil) != (c.Line == nil) || (line != nil && *line != *c.Line) {
			t.Errorf("%q: fallacy line %v, Python %v", c.Answer, line, c.Line)
		}
		var found []string
		for _, k := range keys {
			if strings.Contains(pyre.Lower(c.Answer), pyre.Lower(k)) {
				found = append(found, k)
			}
		}
		if len(found) != len(c.OtherKeys) || (len(found) > 0 && !reflect.DeepEqual(found, c.OtherKeys)) {
			t.Errorf("%q: other keys %q, Python %q", c.Answer, found, c.OtherKeys)
		}
	}
	// And through the public parser: the crafted answers are no longer Other.
	p, err := ParseGenCls("FALLACIOUS PREM\u0130SE 3.\u0661: a; APPLIED FALLACY CLASS: Ambiguity", ParseOptions{Strict: true})
	if err != nil || len(p) != 1 || p[0].Class != "Ambiguity" || p[0].Premise != "a" {
		t.Fatalf("ParseGenCls: %+v %v", p, err)
	}
}
