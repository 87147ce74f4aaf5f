package deflect

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/judge"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
)

func findTable(t *testing.T, r *report.Report, id string) *report.Table {
	t.Helper()
	for _, tb := range r.Tables() {
		if tb.ID == id {
			return tb
		}
	}
	t.Fatalf("table %s missing", id)
	return nil
}

func TestReportEqualsScriptedTruth(t *testing.T) {
	// Model A refuses every manipulation-frame prompt and nothing else; model
	// B never refuses. Judge B flips soft refusal 10 % of the time.
	d, truth, err := Synthesize(SynthOptions{Models: []string{"model-a", "model-b"}, Samples: 2, Seed: 3, SoftFlip: 0.1,
		Refusal: func(m string, num int) float64 {
			if m == "model-a" && num == 4 {
				return 1
			}
			return 0
		}})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Analyze(d, Options{Seed: 1, Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	frame := findTable(t, rep, "outcomes_by_frame")
	for _, row := range frame.Rows {
		model, fr, refusal := row[0].Text, row[1].Text, row[2]
		want := 0.0
		if model == "model-a" && strings.HasPrefix(fr, "4 ") {
			want = 1
		}
		if refusal.Value != want || refusal.Lo != want || refusal.Hi != want {
			t.Fatalf("%s %s refusal %v [%v, %v], want %v", model, fr, refusal.Value, refusal.Lo, refusal.Hi, want)
		}
	}
	// Soft refusal under "any" is the OR of both judges: compare with the truth
	// and the flips directly.
	main := findTable(t, rep, "outcomes_by_model")
	for _, row := range main.Rows {
		model := row[0].Text
		var k, n float64
		for _, e := range d.Evals {
			if e.JudgeModel != "synthetic:judge-b" || !strings.Contains(e.GenID, "__"+Slug(model)+"__") {
				continue
			}
			n++
			if truth[e.GenID]["soft_refusal"] == 1 || e.Scores.Get("soft_refusal") == 1 {
				k++
			}
		}
		if got := row[2].Value; math.Abs(got-k/n) > 1e-12 || row[2].N != int(n) {
			t.Fatalf("%s soft refusal %v (n=%d), direct %v (n=%v)", model, got, row[2].N, k/n, n)
		}
		if !(row[2].Lo <= row[2].Value && row[2].Value <= row[2].Hi) {
			t.Fatalf("CI does not cover the estimate: %+v", row[2])
		}
	}
	// κ and AC1 equal the values computed directly from the two judges.
	var a, b []string
	byGen := map[string][2]int{}
	for _, e := range d.Evals {
		x := byGen[e.GenID]
		if e.JudgeModel == "synthetic:judge-a" {
			x[0] = e.Scores.Get("soft_refusal")
		} else {
			x[1] = e.Scores.Get("soft_refusal")
		}
		byGen[e.GenID] = x
	}
	for _, x := range byGen {
		a, b = append(a, strconv.Itoa(x[0])), append(b, strconv.Itoa(x[1]))
	}
	k, _ := stats.CohenKappa(a, b)
	pairs, _ := stats.Pairs(a, b)
	ac, _ := stats.GwetAC1(pairs, 2)
	rel := findTable(t, rep, "reliability")
	for _, row := range rel.Rows {
		if row[0].Text == "soft_refusal" {
			if row[1].Value != float64(len(a)) || math.Abs(row[3].Value-k.Kappa) > 1e-12 || math.Abs(row[5].Value-ac.AC1) > 1e-12 || !row[3].HasCI || !row[5].HasCI {
				t.Fatalf("reliability row %+v; direct κ %v AC1 %v n %d", row, k.Kappa, ac.AC1, len(a))
			}
			if row[3].Value > 0.95 {
				t.Fatalf("10 %% flips should lower κ: %v", row[3].Value)
			}
		}
	}
}

func TestConsensusModesOnUnjudgedAndMissing(t *testing.T) {
	d, _, _ := Synthesize(SynthOptions{Models: []string{"m"}, Samples: 1, Seed: 5})
	// Remove all judge rows of the first generation and break one judge's
	// refusal value on the second.
	first, second := d.Gens[0].GenID, d.Gens[1].GenID
	var evals []Eval
	for _, e := range d.Evals {
		if e.GenID == first {
			continue
		}
		if e.GenID == second && e.JudgeModel == "synthetic:judge-a" {
			e.Scores = d.Evals[2].Scores
			e.Scores.Set("refusal", judge.Missing)
		}
		evals = append(evals, e)
	}
	d.Evals = evals
	for _, mode := range []judge.Mode{judge.Any, judge.Code, judge.All, judge.Mean} {
		rep, err := Analyze(d, Options{Mode: mode, Resamples: 50})
		if err != nil {
			t.Fatal(mode, err)
		}
		ov := findTable(t, rep, "overview")
		noJudge := ov.Rows[0][6].Value
		if noJudge != 1 {
			t.Errorf("%s: unjudged count %v", mode, noJudge)
		}
		main := findTable(t, rep, "outcomes_by_model")
		n := main.Rows[0][1].N
		want := 1199
		if mode == judge.Code {
			want = 1200 // the unjudged row stays as all zeros
		}
		if n != want {
			t.Errorf("%s: refusal n = %d, want %d", mode, n, want)
		}
	}
}

func TestAnalyzeRejectsDuplicates(t *testing.T) {
	d, _, _ := Synthesize(SynthOptions{Models: []string{"m"}, Samples: 1})
	d.Gens = append(d.Gens, d.Gens[0])
	if _, err := Analyze(d, Options{Resamples: 10}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("%v", err)
	}
}

// BenchmarkFullReport is the figure: the full report with every CI
// for a synthetic full-scale run (4 models × 6,000 generations × 2 judges).
func BenchmarkFullReport(b *testing.B) {
	d, _, err := Synthesize(SynthOptions{Models: []string{"claude-opus-4-7", "deepseek-v4-pro", "gpt-5.5", "grok-4.3"}, Seed: 1, SoftFlip: 0.05, ErrorRate: 0.0005})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu0 := cpuTime()
	for range b.N {
		if _, err := Analyze(d, Options{Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
}

// cpuTime is the CPU time the process has used, on all cores: on a busy
// machine of two cores a steadier measure of work than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestPanelAgreementWithThreeJudges: a third judge identical to the first,
// the second flipping soft refusal only. Every other field is in perfect
// agreement across the panel; soft refusal is not. Fleiss' κ over the three
// equals the statistic computed directly on the same ratings.
func TestPanelAgreementWithThreeJudges(t *testing.T) {
	d, _, err := Synthesize(SynthOptions{Models: []string{"model-a"}, Samples: 1, Seed: 4, SoftFlip: 0.2,
		Refusal: func(_ string, num int) float64 { return map[bool]float64{true: 0.6, false: 0.1}[num == 4] }})
	if err != nil {
		t.Fatal(err)
	}
	first := d.Evals[0].JudgeModel
	var third []Eval
	for _, e := range d.Evals {
		if e.JudgeModel == first {
			c := e
			c.JudgeModel, c.EvalID = "judge-c", e.EvalID+"-c"
			third = append(third, c)
		}
	}
	d.Evals = append(d.Evals, third...)
	rep, err := Analyze(d, Options{Seed: 1, Resamples: 50})
	if err != nil {
		t.Fatal(err)
	}
	tb := findTable(t, rep, "reliability_panel")
	if !strings.Contains(tb.Title, "all 3 judges") {
		t.Fatalf("title %q", tb.Title)
	}
	var softAC1 float64
	for _, row := range tb.Rows {
		field, ac1, alpha := row[0].Text, row[2].Value, row[3].Value
		switch field {
		case "soft_refusal":
			softAC1 = ac1
			if ac1 >= 0.999 {
				t.Fatalf("soft refusal flips, yet AC1 = %v", ac1)
			}
		case "refusal", "compliance_clean":
			if math.Abs(ac1-1) > 1e-12 || math.Abs(alpha-1) > 1e-12 {
				t.Fatalf("%s: AC1 %v α %v, want 1 (all judges agree)", field, ac1, alpha)
			}
		}
	}
	if softAC1 == 0 {
		t.Fatal("no soft_refusal row")
	}
	// Fleiss' κ for refusal equals a direct computation on the ratings.
	byGen := map[string][]string{}
	for _, e := range d.Evals {
		if v := e.Scores.Get("refusal"); e.ParseError == 0 && v != judge.Missing {
			byGen[e.GenID] = append(byGen[e.GenID], strconv.Itoa(v))
		}
	}
	var complete [][]string
	for _, r := range byGen {
		if len(r) == 3 {
			complete = append(complete, r)
		}
	}
	want, err := stats.FleissKappa(complete)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range tb.Rows {
		if row[0].Text == "refusal" && (math.Abs(row[5].Value-want) > 1e-12 || int(row[4].Value) != len(complete)) {
			t.Fatalf("Fleiss κ %v over %v, want %v over %d", row[5].Value, row[4].Value, want, len(complete))
		}
	}
}

// Mean |J1 − J2| keeps −1 as a value, as the released code's
// (j1 - j2).abs().mean() does (SPEC B.8), and the per-field disagreement
// rates are reported.
func TestJudgeDifferencesKeepMissing(t *testing.T) {
	d, _, _ := Synthesize(SynthOptions{Models: []string{"m"}, Samples: 1, Seed: 5})
	set := map[string][2]int{d.Gens[0].GenID: {1, -1}, d.Gens[1].GenID: {0, 0}, d.Gens[2].GenID: {0, 1}, d.Gens[3].GenID: {-1, -1}}
	for i, e := range d.Evals {
		v, ok := set[e.GenID]
		if !ok {
			continue
		}
		sc := e.Scores
		if e.JudgeModel == "synthetic:judge-a" {
			sc.Set("refusal", v[0])
		} else {
			sc.Set("refusal", v[1])
		}
		d.Evals[i].Scores = sc
	}
	byGen := map[string]map[string]int{}
	for _, e := range d.Evals {
		if e.ParseError != 0 {
			continue
		}
		if byGen[e.GenID] == nil {
			byGen[e.GenID] = map[string]int{}
		}
		byGen[e.GenID][e.JudgeModel] = e.Scores.Get("refusal")
	}
	sum, n, differ := 0.0, 0, 0
	for _, m := range byGen {
		a, okA := m["synthetic:judge-a"]
		b, okB := m["synthetic:judge-b"]
		if okA && okB {
			sum += math.Abs(float64(a - b))
			n++
			if a != b {
				differ++
			}
		}
	}
	for _, mode := range []judge.Mode{judge.Any, judge.Code} {
		rep, err := Analyze(d, Options{Mode: mode, Resamples: 20})
		if err != nil {
			t.Fatal(err)
		}
		pm := findTable(t, rep, "reliability_by_model")
		if got := pm.Rows[0][pm.Col("mean_j1_j2_refusal")].Value; math.Abs(got-sum/float64(n)) > 1e-12 {
			t.Fatalf("%s: mean |J1 − J2| %v, want %v (−1 kept)", mode, got, sum/float64(n))
		}
		dis := findTable(t, rep, "disagreement_by_field")
		if got := dis.Rows[0][2].Value; dis.Rows[0][0].Text != "refusal" || math.Abs(got-float64(differ)/float64(n)) > 1e-12 {
			t.Fatalf("%s: refusal disagreement %v, want %v", mode, got, float64(differ)/float64(n))
		}
	}
}

// A cell whose rows come from one claim gets no claim bootstrap interval
// (every resample is that claim: a zero-width "interval" is not one) but
// Wilson's over its generations, its note saying so; the report says how
// many.
func TestFewClustersNoInterval(t *testing.T) {
	d, _, _ := Synthesize(SynthOptions{Models: []string{"m"}, Samples: 1, Seed: 2})
	for _, min := range []int{DefaultMinClusters, 0, -1} {
		rep, err := Analyze(d, Options{Resamples: 100, MinClusters: min})
		if err != nil {
			t.Fatal(err)
		}
		dom := findTable(t, rep, "outcomes_by_domain")
		var culture, other []report.Cell
		for _, r := range dom.Rows {
			switch r[1].Text {
			case "culture":
				culture = r
			case "politics":
				other = r
			}
		}
		if culture == nil || other == nil {
			t.Fatal("no culture or politics row")
		}
		meta := map[string]string{}
		for _, m := range rep.Meta {
			meta[m[0]] = m[1]
		}
		if min == DefaultMinClusters { // `deflect report`'s: at least 5 claims
			k := math.Round(culture[2].Value * float64(culture[2].N))
			w, _ := stats.Prop(int(k), culture[2].N, 0.95, stats.Wilson)
			if !culture[2].HasCI || culture[2].Lo != w.Lo || culture[2].Hi != w.Hi || !strings.Contains(culture[2].Note, "Wilson interval") ||
				!other[2].HasCI || other[2].Note != "" || !strings.Contains(meta["intervals"], "fewer than 5 claims") {
				t.Fatalf("default: culture %+v, politics %+v, meta %q", culture[2], other[2], meta["intervals"])
			}
		} else if !culture[2].HasCI || culture[2].Lo != culture[2].Hi || meta["intervals"] != "" {
			t.Fatalf("no minimum (%d): culture %+v", min, culture[2])
		}
	}
}

// TestJudgedBuilderKeepsEachJudgesOrder: judgements read in any order of
// judges come out as each judge's rows in the order read — the order
// prepare takes a judge's first parsed row per generation in — the judges
// in the order they first came.
func TestJudgedBuilderKeepsEachJudgesOrder(t *testing.T) {
	var b judgedBuilder
	for i, judge := range []string{"b", "a", "b", "c", "a", "a", "b", "c", "b"} {
		b.add(&Eval{GenID: fmt.Sprint("g", i), JudgeModel: judge, ParseError: i % 2, Scores: Scores{i % 2}})
	}
	got := b.done()
	want := map[string]string{"b": "g0 g2 g6 g8", "a": "g1 g4 g5", "c": "g3 g7"}
	if !reflect.DeepEqual(got.judges, []string{"b", "a", "c"}) || len(got.rows) != 3 {
		t.Fatalf("judges %v, %d runs of rows", got.judges, len(got.rows))
	}
	for judge, ids := range want {
		var seen []string
		for _, r := range got.rows[judge] {
			n, _ := strconv.Atoi(strings.TrimPrefix(r.GenID, "g"))
			if r.ParseError != n%2 || r.Scores[0] != int8(n%2) {
				t.Fatalf("row %s of %s carries another judgement's fields: %+v", r.GenID, judge, r)
			}
			seen = append(seen, r.GenID)
		}
		if rows := got.rows[judge]; strings.Join(seen, " ") != ids || cap(rows) != len(rows) {
			t.Fatalf("judge %s: rows %q (capacity %d), want %q in a slice of its size", judge, seen, cap(rows), ids)
		}
	}
}

// TestPointIntervalsAreCounted: the report's meta counts the intervals
// that are the point itself (the synthetic judges' raw agreement, 100 %
// in every claim), as many as its tables hold.
func TestPointIntervalsAreCounted(t *testing.T) {
	d, _, _ := Synthesize(SynthOptions{Models: []string{"m", "n"}, Samples: 1, Seed: 2})
	rep, err := Analyze(d, Options{Resamples: 100, MinClusters: DefaultMinClusters})
	if err != nil {
		t.Fatal(err)
	}
	points := 0
	for _, s := range rep.Sections {
		for _, tb := range s.Tables {
			for _, r := range tb.Rows {
				for _, c := range r {
					if c.HasCI && c.Lo == c.Value && c.Hi == c.Value {
						points++
					}
				}
			}
		}
	}
	var meta string
	for _, m := range rep.Meta {
		if m[0] == "point intervals" {
			meta = m[1]
		}
	}
	if points == 0 || !strings.HasPrefix(meta, fmt.Sprintf("%d intervals are the point itself", points)) {
		t.Fatalf("%d point intervals in the tables; meta %q", points, meta)
	}
}
