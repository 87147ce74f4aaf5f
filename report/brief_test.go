package report

import (
	"strings"
	"testing"
)

// TestBrief: the headline table as aligned columns under the title and
// lead; a report without a headline has no brief.
func TestBrief(t *testing.T) {
	r := &Report{Title: "T", Lead: "the lead", Headline: "h"}
	s := r.AddSection("S", "")
	s.Add(&Table{ID: "h", Title: "Scores", Columns: Cols("model", "accuracy"),
		Rows: [][]Cell{{T("m-long-name"), F(0.5, 3)}, {T("m"), F(0.25, 3)}}})
	var b strings.Builder
	if !Brief(&b, r) {
		t.Fatal("no brief")
	}
	want := "T\nthe lead\n\nScores\n  model        accuracy\n  m-long-name  0.500\n  m            0.250\n"
	if b.String() != want {
		t.Fatalf("brief:\n%s\nwant:\n%s", b.String(), want)
	}
	if Brief(&b, &Report{Title: "no headline"}) {
		t.Fatal("a report without a headline has a brief")
	}
}
