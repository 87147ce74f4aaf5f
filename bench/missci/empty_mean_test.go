package missci

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/report"
)

// A mean over no pairs is undefined: NA in the tables and null in JSON,
// never 0 (upstream leaves it out).
func TestEmptyMeanIsNotZero(t *testing.T) {
	pairs := []Pair{{Gold: "the study shows a link", Pred: "a link is shown", Correct: true}}
	ps, err := ScorePairs(pairs)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(ps.Incorrect) || math.IsNaN(ps.Correct) || ps.Correct <= 0 {
		t.Fatalf("scores %+v: the incorrect-class mean of no pairs must be undefined", ps)
	}
	if none, _ := ScorePairs(nil); !math.IsNaN(none.All) || !math.IsNaN(none.Correct) {
		t.Fatalf("no pairs: %+v", none)
	}
	tab := &report.Table{ID: "x", Columns: report.Cols("METEOR incorrect class"), Rows: [][]report.Cell{{report.F(ps.Incorrect, 4)}}}
	rep := &report.Report{}
	rep.AddSection("s", "").Add(tab)
	var md, js bytes.Buffer
	report.Render(&md, rep, report.Markdown)
	report.Render(&js, rep, report.JSON)
	if strings.Contains(md.String(), "0.0000") || !strings.Contains(md.String(), "NA") || strings.Contains(js.String(), `"value"`) {
		t.Fatalf("an empty mean rendered as a number:\n%s\n%s", md.String(), js.String())
	}
}

// TestUnknownNamesOnce (#41 item 20): a class name no class matched is
// listed once however many answers gave it, with how many did.
func TestUnknownNamesOnce(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{nil, "none"},
		{[]string{"Foo", "Bar"}, "2: Foo, Bar"},
		{[]string{"Foo", "Bar", "Foo", "Foo"}, "2 in 4 answers: Foo, Bar"},
		{[]string{"a", "b", "c", "d", "e", "f", "a"}, "6 in 7 answers: a, b, c, d, e, …"},
	} {
		if got := unknownNames(c.in); got != c.want {
			t.Errorf("unknownNames(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
