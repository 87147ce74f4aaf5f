package missciplus

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/fallacylab/fallacylab/stats"
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

// TestShareOfArgumentsIsWilson: a metric every argument scores 0 or 1 (a
// share of arguments) has Wilson's interval — not the bootstrap's point
// at 0 or 1 — and a mean of ranks keeps the bootstrap's.
func TestShareOfArgumentsIsWilson(t *testing.T) {
	sc := Scores{Names: []string{"P@1", "has-positives-3", "MRR"}, N: 4,
		Rows: [][]float64{{1, 1, 1}, {0, 1, 0.5}, {0, 1, 0.5}, {0, 1, 1.0 / 3}}}
	row, err := scoreRow("ordered", sc, ReportOptions{Resamples: 200, Seed: 1, Level: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	for j, k := range []int{1, 4} {
		w, _ := stats.Prop(k, 4, 0.95, stats.Wilson)
		if c := row[2+j]; c.Value != float64(k)/4 || c.Lo != w.Lo || c.Hi != w.Hi {
			t.Errorf("%s: %v [%v, %v], want Wilson's %v [%v, %v]", sc.Names[j], c.Value, c.Lo, c.Hi, w.Estimate, w.Lo, w.Hi)
		}
	}
	// 4 of 4: Wilson's lower bound is 1/(1 + z²/4) (0.5101, as
	// statsmodels' proportion_confint(4, 4, method="wilson")).
	if c := row[3]; math.Abs(c.Lo-0.5101) > 1e-4 || c.Hi != 1 {
		t.Errorf("4 of 4: [%v, %v], want [0.5101, 1]", c.Lo, c.Hi)
	}
	if c := row[4]; c.Lo >= c.Value || c.Hi <= c.Value || c.Hi > 1 {
		t.Errorf("MRR: %v [%v, %v], want the bootstrap's interval around it", c.Value, c.Lo, c.Hi)
	}
	if _, ok := (Scores{Rows: [][]float64{{0.5}}}).share(0); ok {
		t.Error("a mean over seeds counted as a share of arguments")
	}
}
