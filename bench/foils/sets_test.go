package foils

import (
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/corpus"
)

func TestEmbeddedSets(t *testing.T) {
	for corpus, want := range map[string][2]int{"cocolofa": {655, 738}, "reddit": {387, 389}} {
		m, ws, err := EmbeddedFoils(corpus)
		if err != nil {
			t.Fatal(err)
		}
		if len(m) != want[0] || len(ws) != want[1] {
			t.Fatalf("%s: %d matched, %d wrong-scheme", corpus, len(m), len(ws))
		}
		keys := map[string]bool{}
		for _, f := range m {
			keys[f.Key()] = true
		}
		paired := 0
		for _, f := range ws {
			if f.Target == "" || f.Target == f.Source {
				t.Fatalf("bad target %+v", f)
			}
			if keys[f.Key()] {
				paired++
			}
		}
		if paired == 0 {
			t.Fatalf("%s: no matched/wrong-scheme pairs share a (type, id) key", corpus)
		}
	}
	// Reddit WS keeps raw labels in target_type: mapped.
	_, ws, _ := EmbeddedFoils("reddit")
	if ws[0].Target != "false dilemma" {
		t.Fatalf("raw target not mapped: %q", ws[0].Target)
	}
	items, err := corpus.EmbeddedReddit()
	if err != nil || len(items) != 9758 {
		t.Fatalf("%d %v", len(items), err)
	}
	if _, _, err := EmbeddedFoils("mafalda"); err == nil {
		t.Fatal("unknown corpus accepted")
	}
}

func TestParseFoilsMalformed(t *testing.T) {
	cases := map[string]string{
		"fallacy_type,id,generated\nappeal to authority,x,text\n":                       "line 2: field id",
		"fallacy_type,id,generated\nstrawman,1,text\n":                                  "unknown type",
		"fallacy_type,id,generated\nappeal to authority,1,a\nappeal to authority,1,b\n": "line 3: key (appeal to authority, 1) already on line 2",
		"fallacy_type,id\nappeal to authority,1\n":                                      `no "generated" column`,
		"fallacy_type,id,generated\nappeal to authority,1,\n":                           "field generated: empty",
		"fallacy_type,id,generated\nappeal to authority,1,\"a, b\",extra\n":             "4 fields, header has 3",
	}
	for in, want := range cases {
		_, err := ParseFoils(strings.NewReader(in), "f.csv", Matched, "x")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: want %q, got %v", in, want, err)
		}
	}
	_, err := ParseFoils(strings.NewReader("source_fallacy,target_type,id,generated\nblackwhite,blackwhite,1,t\n"), "w.csv", WrongScheme, "reddit")
	if err == nil || !strings.Contains(err.Error(), "equals the source type") {
		t.Errorf("%v", err)
	}
}
