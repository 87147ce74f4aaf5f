package report

import (
	"bytes"
	"encoding/csv"
	"testing"
)

func TestCSVSafe(t *testing.T) {
	for in, want := range map[string]string{
		"=HYPERLINK(\"http://x\")": "'=HYPERLINK(\"http://x\")",
		"+1+2":                     "'+1+2",
		"-cmd|' /C calc'!A0":       "'-cmd|' /C calc'!A0",
		"@SUM(A1)":                 "'@SUM(A1)",
		"\t=1":                     "'\t=1",
		"\r=1":                     "'\r=1",
		"-0.25":                    "-0.25",
		"+3":                       "+3",
		"1e-3":                     "1e-3",
		"plain text":               "plain text",
		"":                         "",
		"a=b":                      "a=b",
	} {
		if got := CSVSafe(in); got != want {
			t.Errorf("CSVSafe(%q) = %q, want %q", in, got, want)
		}
		if back := CSVUnsafe(CSVSafe(in)); back != in {
			t.Errorf("CSVUnsafe(CSVSafe(%q)) = %q", in, back)
		}
	}
	var b bytes.Buffer
	tab := &Table{Columns: []Column{{Key: "text"}, {Key: "h"}}, Rows: [][]Cell{{{Kind: Text, Text: "=1+1"}, {Kind: Num, Value: -0.5, Digits: 2}}}}
	if err := RenderCSVTable(&b, tab); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(recs) != 2 || recs[1][0] != "'=1+1" || recs[1][1] != "-0.5" {
		t.Fatalf("table CSV: %q %v", recs, err)
	}
}
