package foils

import (
	"math"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/corpus"
)

func TestSampleNoneStratified(t *testing.T) {
	items, _ := corpus.EmbeddedReddit()
	s := SampleNone(items, 30, 7)
	if len(s) != 30 {
		t.Fatalf("%d sampled", len(s))
	}
	strata := map[string]bool{}
	for _, it := range s {
		if it.Gold != None {
			t.Fatal("sampled a fallacious item")
		}
		strata[it.Source] = true
	}
	if len(strata) < 8 {
		t.Fatalf("only %d strata represented", len(strata))
	}
	again := SampleNone(items, 30, 7)
	for i := range s {
		if s[i].ID != again[i].ID {
			t.Fatal("same seed, different sample")
		}
	}
	rows := SheetRows(s)
	if len(rows) != 31 || rows[0][0] != "item_id" {
		t.Fatal("sheet rows")
	}
}

func TestSheetReport(t *testing.T) {
	// C.8 shape on a small sheet: 10 items, codes for two annotators.
	csv := "item_id,corpus,stratum,context,text,code_1,code_2,resolved\n" +
		"1,x,s,c,t,A,A,\n2,x,s,c,t,A,B,A\n3,x,s,c,t,B,B,\n4,x,s,c,t,N,N,\n5,x,s,c,t,B,A,\n" +
		"6,y,s,c,t,b,b,\n7,y,s,c,t,N,B,\n8,y,s,c,t,B,B,\n9,y,s,c,t,A,A,\n10,y,s,c,t,N,N,\n"
	items, err := ReadSheet(strings.NewReader(csv), "sheet.csv")
	if err != nil {
		t.Fatal(err)
	}
	rep := SheetReport(items)
	ar := rep.Tables()[0]
	// x: A from items 1 and 2 (resolved), item 5 unresolved → non-A: 2/5.
	if ar.Rows[0][3].Value != 2 || ar.Rows[0][2].Value != 1 || math.Abs(ar.Rows[0][6].Value-0.4) > 1e-12 {
		t.Fatalf("x row %+v", ar.Rows[0])
	}
	ag := rep.Tables()[1]
	if math.Abs(ag.Rows[1][1].Value-0.7) > 1e-12 { // 7 of 10 agree
		t.Fatalf("raw agreement %v", ag.Rows[1][1].Value)
	}
	// PSA_A = 2·n_AA/(n_A· + n_·A) = 2·2/(3 + 3).
	if math.Abs(ag.Rows[4][1].Value-4.0/6) > 1e-12 {
		t.Fatalf("PSA %v", ag.Rows[4][1].Value)
	}
	_, err = ReadSheet(strings.NewReader("item_id,corpus,code_1,code_2,resolved\n1,x,A,Q,\n"), "bad.csv")
	if err == nil || !strings.Contains(err.Error(), `bad.csv line 2: field code_2: "Q" is not A, B or N`) {
		t.Fatal(err)
	}
}
