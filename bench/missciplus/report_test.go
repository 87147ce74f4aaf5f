package missciplus

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// TestReportMeanOfSeedsIsUpstreams: a random run's report gives a row per
// seed and their mean — the figure upstream's run-subtask1.py prints (the
// mean of its five evaluations) — each with an interval around it; a run
// of part of the split scores only its arguments.
func TestReportMeanOfSeedsIsUpstreams(t *testing.T) {
	b, _ := os.ReadFile("testdata/upstream.json")
	var ref struct {
		Runs []struct {
			Subtask int
			Split   string
			Full    bool
			Ranker  string
			Scores  map[string]float64
		}
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{}
	for _, r := range ref.Runs {
		if r.Subtask == 1 && r.Split == "test" && !r.Full && r.Ranker == "random" {
			for _, m := range Subtask1Metrics {
				want[m] += r.Scores[m] / 5
			}
		}
	}
	args, err := Load("test")
	if err != nil {
		t.Fatal(err)
	}
	seeds := []uint64{1, 2, 3, 4, 5}
	rks, err := Rank("random", args, false, seeds)
	if err != nil {
		t.Fatal(err)
	}
	setup := Setup{Subtask: 1, Split: "test", Ranker: "random", Seeds: seeds}
	for _, a := range args {
		setup.IDs = append(setup.IDs, a.ID)
	}
	rep, err := Report(setup, rks, ReportOptions{Resamples: 200, Seed: 1, Level: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	tb := rep.Table("scores")
	if len(tb.Rows) != 6 || tb.Rows[5][0].Text != "random, mean of 5 seeds" || tb.Rows[5][1].Value != 75 {
		t.Fatalf("rows: %+v", tb.Rows)
	}
	for j, m := range Subtask1Metrics {
		c := tb.Rows[5][2+j]
		if math.Abs(c.Value-want[m]) > 1e-9 || c.Lo > c.Value || c.Hi < c.Value {
			t.Errorf("%s: %v [%v, %v], upstream's mean of seeds %v", m, c.Value, c.Lo, c.Hi, want[m])
		}
	}
	setup.IDs = setup.IDs[:10]
	var part [][]Ranking
	for _, rk := range rks {
		part = append(part, rk[:10])
	}
	rep, err = Report(setup, part, ReportOptions{Resamples: 50, Seed: 1, Level: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, a := range args[:10] {
		if a.HasMappedP0() {
			n++
		}
	}
	if got := rep.Table("scores").Rows[0][1].Value; int(got) != n {
		t.Errorf("a run of 10 arguments scores %v, want the %d whose p0 is mapped", got, n)
	}
}

// TestRankingsMustCoverTheStudy: a ranking that leaves out a passage, or
// ranks one the setting does not hold, is refused, as upstream refuses it.
func TestRankingsMustCoverTheStudy(t *testing.T) {
	a := firstWithP0(t)
	p := a.Passages(false)
	if _, err := Subtask1Scores(a, p[1:], false); err == nil {
		t.Error("a ranking without a selected passage was scored")
	}
	if _, err := Subtask1Scores(a, p, true); err == nil {
		t.Error("the selected passages were scored in the open setting")
	}
	if _, err := Subtask1Scores(a, a.Passages(true), false); err != nil {
		t.Errorf("the closed setting keeps the selected passages of a whole ranking: %v", err)
	}
	if _, err := Subtask2Scores(a, p); err == nil {
		t.Error("subtask 2 scored a ranking of the selected passages only")
	}
}
