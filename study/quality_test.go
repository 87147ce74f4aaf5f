package study

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/report"
)

// qualityStudy: three annotators on 10 items and 4 decoys (two known "1",
// two known "0"). ana and ben answer the items alike but for one, and
// every decoy right; cy straight-lines "1" (half the decoys wrong) and
// saves every 2 s, where ana takes 20 s an item and ben 30 s (with one
// 15-minute break, not counted).
func qualityStudy() (Study, []Annotation) {
	s := Study{ID: 1, Kind: "any-kind", Name: "q", Questions: []Question{{ID: "q", Choices: []Choice{{Key: "1"}, {Key: "0"}}, Positive: "1"}}, Overlap: 14}
	for i := range 10 {
		s.Items = append(s.Items, Item{Key: fmt.Sprintf("i%d", i), Text: "t"})
	}
	for i, k := range []string{"1", "1", "0", "0"} {
		s.Items = append(s.Items, Item{Key: fmt.Sprintf("d%d", i), Text: "t", Decoy: true, Known: map[string]string{"q": k}})
	}
	var order []string
	for _, it := range s.Items {
		order = append(order, it.Key)
	}
	for _, n := range []string{"ana", "ben", "cy"} {
		s.Annotators = append(s.Annotators, Annotator{Name: n, Token: n, Order: order})
	}
	var anns []Annotation
	start := time.Unix(1700000000, 0)
	for ai, name := range []string{"ana", "ben", "cy"} {
		gap := []time.Duration{20 * time.Second, 30 * time.Second, 2 * time.Second}[ai]
		at := start
		for i, it := range s.Items {
			v := []string{"1", "0"}[i%2]
			switch {
			case it.Decoy:
				v = it.Known["q"]
			case name == "ben" && i == 2:
				v = "0" // ana says "1"
			}
			if name == "cy" {
				v = "1"
			}
			if name == "ben" && i == 7 {
				at = at.Add(15 * time.Minute)
			}
			at = at.Add(gap)
			anns = append(anns, Annotation{StudyID: 1, Annotator: name, Item: it.Key, Answers: map[string]string{"q": v}, At: at})
		}
	}
	return s, anns
}

// TestAnnotatorQuality (#27 item 20): the straight-liner is below the
// decoy bar and left out of the figures by default — the agreement is
// ana's and ben's (9 of 10 items alike), and the report also gives it with
// cy; --keep-flagged counts cy. Time per item: each annotator's median and
// fastest 5 %, breaks left out, and cy flagged as a speeder.
func TestAnnotatorQuality(t *testing.T) {
	s, anns := qualityStudy()
	rep, err := Analyze(s, anns, AnalyzeOptions{Resamples: 50, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	meta := fmt.Sprint(rep.Meta)
	if !strings.Contains(meta, "left out cy: below the decoy bar") {
		t.Fatalf("the report does not say cy is left out: %s", meta)
	}
	agree := rep.Table("agreement").Rows[0]
	if agree[1].Value != 10 || math.Abs(agree[2].Value-0.9) > 1e-12 {
		t.Fatalf("agreement without cy: %v items, raw %v (want 10, 0.9)", agree[1].Value, agree[2].Value)
	}
	if agree[7].Kind == report.Empty {
		t.Fatal("two annotators counted, yet no Cohen's κ")
	}
	with := rep.Table("agreement_with_flagged")
	if with == nil {
		t.Fatal("the report does not give the figures with cy")
	}
	// With cy: pairs ana–ben agree on 9, ana–cy and ben–cy on the 5 or 4
	// items whose answer is "1": (9 + 5 + 4) / 30.
	if got := with.Rows[0][2].Value; math.Abs(got-18.0/30) > 1e-12 {
		t.Fatalf("raw agreement with cy = %v, want %v", got, 18.0/30)
	}
	kept, err := Analyze(s, anns, AnalyzeOptions{Resamples: 50, Seed: 1, KeepFlagged: true})
	if err != nil {
		t.Fatal(err)
	}
	if kept.Table("agreement_with_flagged") != nil || math.Abs(kept.Table("agreement").Rows[0][2].Value-18.0/30) > 1e-12 {
		t.Fatal("--keep-flagged does not count cy in the figures")
	}
	if !strings.Contains(fmt.Sprint(rep.Table("decoys").Rows[2]), "left out of the figures") {
		t.Fatalf("cy's decoy row: %v", rep.Table("decoys").Rows[2])
	}
	tm := rep.Table("time_per_item")
	for i, want := range []struct {
		n       int
		median  float64
		speeder bool
	}{{13, 20, false}, {12, 30, false}, {13, 2, true}} {
		row := tm.Rows[i]
		if int(row[1].Value) != want.n || row[2].Value != want.median || row[3].Value != want.median {
			t.Errorf("%s: %v items timed, median %v, fastest 5 %% %v; want %d, %v, %v", row[0].Text, row[1].Value, row[2].Value, row[3].Value, want.n, want.median, want.median)
		}
		if got := strings.HasPrefix(row[4].Text, "speeder"); got != want.speeder {
			t.Errorf("%s flagged as a speeder: %v, want %v", row[0].Text, got, want.speeder)
		}
	}
}

// TestStraightLining (#27 item 16): with decoys of both answers planted,
// the straight-liner fails half of them and the straight-lining table
// flags one answer to all ten items; Plan plants decoys of each known
// answer in turn; a study whose decoys all know one answer says so.
func TestStraightLining(t *testing.T) {
	s, anns := qualityStudy()
	rep, err := Analyze(s, anns, AnalyzeOptions{Resamples: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	sl := rep.Table("straight_lining")
	for i, want := range []string{"", "", `answered "1" to every item`} {
		if got := sl.Rows[i][5].Text; got != want {
			t.Errorf("%s: flag %q, want %q", sl.Rows[i][0].Text, got, want)
		}
	}
	if got := rep.Table("decoys").Rows[2][3].Value; got != 0.5 {
		t.Errorf("the straight-liner's decoy accuracy %v, want 0.5", got)
	}
	if note := rep.Table("decoys").Note; note != "" {
		t.Errorf("decoys of both answers, yet: %s", note)
	}
	for i := range s.Items {
		if s.Items[i].Decoy {
			s.Items[i].Known = map[string]string{"q": "1"}
		}
	}
	one, _ := Analyze(s, anns, AnalyzeOptions{Resamples: 20, Seed: 1})
	if note := one.Table("decoys").Note; !strings.Contains(note, `q ("1")`) {
		t.Errorf("every decoy knows 1, yet the note is %q", note)
	}

	var pool []Item
	for i := range 9 { // 6 known "1", 3 known "0"
		pool = append(pool, Item{Key: fmt.Sprintf("d%d", i), Known: map[string]string{"q": []string{"1", "1", "0"}[i%3]}})
	}
	var cands []Item
	for i := range 20 {
		cands = append(cands, Item{Key: fmt.Sprintf("c%d", i)})
	}
	for seed := range uint64(20) {
		p, err := Plan("any-kind", s.Questions, cands, pool, Options{N: 10, Decoys: 4, Annotators: []string{"a"}, Seed: seed, Token: func() string { return "t" }})
		if err != nil {
			t.Fatal(err)
		}
		zeros := 0
		for _, it := range p.Items {
			if it.Decoy && it.Known["q"] == "0" {
				zeros++
			}
		}
		if zeros != 2 {
			t.Fatalf("seed %d: %d of 4 decoys know 0, want 2", seed, zeros)
		}
	}
}

// TestAgreementByStratum (#27 item 21): with two strata the report gives
// each question's agreement within each: ana and ben agree on all four
// items of stratum m1 and on two of the four of m2.
func TestAgreementByStratum(t *testing.T) {
	s := Study{ID: 1, Kind: "any-kind", Name: "st", Questions: []Question{{ID: "q", Choices: []Choice{{Key: "1"}, {Key: "0"}}, Positive: "1"}}}
	var anns []Annotation
	at := time.Unix(1700000000, 0)
	for i := range 8 {
		st := []string{"m1", "m2"}[i/4]
		key := fmt.Sprintf("i%d", i)
		s.Items = append(s.Items, Item{Key: key, Text: "t", Stratum: st})
		a, b := []string{"1", "0"}[i%2], []string{"1", "0"}[i%2]
		if st == "m2" && i%4 < 2 {
			b = map[string]string{"1": "0", "0": "1"}[a]
		}
		anns = append(anns, Annotation{StudyID: 1, Annotator: "ana", Item: key, Answers: map[string]string{"q": a}, At: at},
			Annotation{StudyID: 1, Annotator: "ben", Item: key, Answers: map[string]string{"q": b}, At: at})
	}
	for _, n := range []string{"ana", "ben"} {
		s.Annotators = append(s.Annotators, Annotator{Name: n})
	}
	rep, err := Analyze(s, anns, AnalyzeOptions{Resamples: 50, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	tb := rep.Table("agreement_by_stratum")
	if tb == nil || len(tb.Rows) != 2 {
		t.Fatalf("agreement by stratum: %+v", tb)
	}
	for i, want := range []float64{1, 0.5} {
		if row := tb.Rows[i]; row[1].Text != []string{"m1", "m2"}[i] || row[2].Value != 4 || row[3].Value != want {
			t.Errorf("stratum row %d: %v, want raw agreement %v on 4 items", i, row, want)
		}
	}
	one := s
	for i := range one.Items {
		one.Items[i].Stratum = ""
	}
	if rep, _ := Analyze(one, anns, AnalyzeOptions{Resamples: 20, Seed: 1}); rep.Table("agreement_by_stratum") != nil {
		t.Fatal("one stratum, yet a table by stratum")
	}
}

// TestStraightLiningMulti (#41 item 14): a multi question is judged on the
// whole set of picks — ana ticks "a" on every item among other picks and
// is not a straight-liner; bo gives "a,b" to every item and is.
func TestStraightLiningMulti(t *testing.T) {
	s := Study{ID: 1, Kind: "any-kind", Name: "m", Questions: []Question{{ID: "m", Type: Multi, Choices: []Choice{{Key: "a"}, {Key: "b"}, {Key: "c"}}}}}
	for i := range 12 {
		s.Items = append(s.Items, Item{Key: fmt.Sprintf("i%d", i), Text: "t"})
	}
	var anns []Annotation
	at := time.Unix(1700000000, 0)
	for _, name := range []string{"ana", "bo"} {
		s.Annotators = append(s.Annotators, Annotator{Name: name, Token: name})
		for i, it := range s.Items {
			v := []string{"a", "a,b", "a,c"}[i%3]
			if name == "bo" {
				v = "a,b"
			}
			at = at.Add(20 * time.Second)
			anns = append(anns, Annotation{StudyID: 1, Annotator: name, Item: it.Key, Answers: map[string]string{"m": v}, At: at})
		}
	}
	rep, err := Analyze(s, anns, AnalyzeOptions{Resamples: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	sl := rep.Table("straight_lining")
	for i, want := range []string{"", `answered "a,b" to every item`} {
		if got := sl.Rows[i][5].Text; got != want {
			t.Errorf("%s: flag %q, want %q", sl.Rows[i][0].Text, got, want)
		}
	}
}

// TestSheetAnnotatorIsNotASpeeder (#41 item 14): answers imported from a
// coding sheet are saved at one moment: they time nothing, so the offline
// annotator is not a 0.0 s speeder and the real speeder (cy, 2 s an item)
// is still found against the others' medians.
func TestSheetAnnotatorIsNotASpeeder(t *testing.T) {
	s, anns := qualityStudy()
	s.Annotators = append(s.Annotators, Annotator{Name: "dee", Token: "dee"})
	at := time.Unix(1700005000, 0)
	for i, it := range s.Items {
		anns = append(anns, Annotation{StudyID: 1, Annotator: "dee", Item: it.Key, Answers: map[string]string{"q": []string{"1", "0"}[i%2]}, At: at.Add(time.Duration(i) * time.Millisecond)})
	}
	rep, err := Analyze(s, anns, AnalyzeOptions{Resamples: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rep.Table("time_per_item").Rows {
		speeder := strings.HasPrefix(row[4].Text, "speeder")
		if (row[0].Text == "cy") != speeder {
			t.Errorf("%s: flagged %v (%v items timed)", row[0].Text, speeder, row[1].Value)
		}
		if row[0].Text == "dee" && row[1].Value != 0 {
			t.Errorf("the sheet's answers timed %v items", row[1].Value)
		}
	}
}

// A study whose answers all came from coding sheets timed nothing: its
// time section says so, not that the study's median is 0.0 s.
func TestSheetOnlyStudyTimesNothing(t *testing.T) {
	s, _ := qualityStudy()
	at := time.Unix(1700005000, 0)
	var anns []Annotation
	for _, a := range s.Annotators {
		for _, it := range s.Items {
			anns = append(anns, Annotation{StudyID: 1, Annotator: a.Name, Item: it.Key, Answers: map[string]string{"q": "1"}, At: at})
		}
	}
	rep, err := Analyze(s, anns, AnalyzeOptions{Resamples: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, sec := range rep.Sections {
		if sec.Title == "Time per item" && (strings.Contains(sec.Intro, "0.0 s") || !strings.Contains(sec.Intro, "no save timed yet")) {
			t.Fatalf("%s", sec.Intro)
		}
	}
}

// TestFewDecoys: one miss is below the bar where (d−1)/d is; the note
// names the number of decoys that allows one.
func TestFewDecoys(t *testing.T) {
	for _, c := range []struct {
		d    int
		bar  float64
		want string
	}{
		{0, 0.8, ""},
		{1, 0.8, "with 1 decoy, a miss puts an annotator below the 80 % bar; 5 decoys or more allow one miss"},
		{4, 0.8, "with 4 decoys, one miss puts an annotator below the 80 % bar (3 of 4 is 75 %); 5 decoys or more allow one"},
		{5, 0.8, ""},
		{9, 0.9, "with 9 decoys, one miss puts an annotator below the 90 % bar (8 of 9 is 89 %); 10 decoys or more allow one"},
		{2, 0.5, ""},
	} {
		if got := FewDecoys(c.d, c.bar); got != c.want {
			t.Errorf("%d decoys at %g: %q, want %q", c.d, c.bar, got, c.want)
		}
	}
}
