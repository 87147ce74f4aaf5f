package report

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func sample() *Report {
	r := &Report{Title: "Sample report", Benchmark: "test", Meta: [][2]string{{"models", "a, b"}, {"seed", "1"}}}
	s := r.AddSection("Rates", "Intro with <angle> & ampersand.")
	t := s.Add(&Table{ID: "rates", Title: "Rates by model", Note: "A note | with a pipe.", Columns: Cols("model", "frame", "refusal", "κ", "p"),
		Charts: []Chart{{Kind: "bars", Title: "Refusal", Label: []int{0, 1}, Value: 2}, {Kind: "heatmap", Title: "Refusal map", Label: []int{0, 1}, Value: 2}}})
	t.Rows = [][]Cell{
		{T("model-a"), T("direct"), PCI(0.25, 0.2, 0.31, 400), F(0.4567, 3), PV(0.000012)},
		{T("model-a"), T("coach"), PCI(0.5, 0.45, 0.55, 400), F(math.NaN(), 3), PV(0.5)},
		{T("model-b"), T("direct"), P(0, 0), NA("no rows"), I(7)},
		{T("model-b"), T("coach"), NCI(12.5, -1.25, 20, 1), F(1, 0), T("x_y & z")},
	}
	return r
}

func TestGolden(t *testing.T) {
	for _, f := range []Format{Markdown, CSV, JSON, LaTeX, HTML} {
		var buf bytes.Buffer
		if err := Render(&buf, sample(), f); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", "golden", "report."+string(f))
		if *update {
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./report -update to create it)", err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s output differs from %s (go test ./report -update after checking the change)", f, path)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	Render(&buf, sample(), JSON)
	r, err := FromJSON(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	c := r.Tables()[0].Rows[0][2]
	if c.Kind != Prop || c.Value != 0.25 || c.Lo != 0.2 || c.N != 400 || !c.HasCI {
		t.Fatalf("%+v", c)
	}
	if !math.IsNaN(r.Tables()[0].Rows[1][3].Value) {
		t.Fatal("NaN lost")
	}
	if _, err := FromJSON([]byte(`{"schema":"other"}`)); err == nil {
		t.Fatal("foreign schema accepted")
	}
}

func TestChartOfNamesColumns(t *testing.T) {
	tab := sample().Tables()[0]
	c, err := ChartOf(tab, "heatmap", "x", "refusal", "model", "frame")
	if err != nil || c.Value != 2 || len(c.Label) != 2 || c.Label[0] != 0 || c.Label[1] != 1 {
		t.Fatalf("%+v %v", c, err)
	}
	if _, err := ChartOf(tab, "bars", "x", "no_such", "model"); err == nil || !strings.Contains(err.Error(), `table rates has no column "no_such"`) {
		t.Fatalf("a missing column: %v", err)
	}
	if tab.Col("κ") != -1 && tab.Col(tab.Columns[3].Key) != 3 {
		t.Fatal("Col")
	}
}

func TestUnderflowedPValue(t *testing.T) {
	if got := PV(0).Plain(); got != "< 1e-300" {
		t.Fatalf("a p-value that underflowed prints %q", got)
	}
	if got := PV(4.27873751207419e-28).Plain(); got != "4.28e-28" {
		t.Fatalf("%q", got)
	}
}
