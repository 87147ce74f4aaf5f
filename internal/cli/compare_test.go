package cli_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/bench/classify"
	"github.com/fallacylab/fallacylab/llm/llmtest"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/sqlite"
	"github.com/fallacylab/fallacylab/web/webtest"
)

// TestCompareRuns (#44): two classify runs of one split by two models,
// compared item by item: each arm's accuracy on the shared texts, the
// paired difference, McNemar's exact test on the texts only one got right
// (as statsmodels computes it: stats.McNemar), in every format; a third
// arm brings Holm and BH over the three pairs; an arm named twice, a
// missing run and arms of two benchmarks are refused.
func TestCompareRuns(t *testing.T) {
	answers := map[string]string{"gpt-4.1-mini": "appeal to authority", "gpt-4.1": "none", "gpt-4.1-nano": "appeal to authority"}
	_, dir := guaranteeEnv(t, func(c llmtest.Call) llmtest.Reply { return llmtest.Reply{Text: answers[c.Model]} })
	for _, m := range []string{"gpt-4.1-mini", "gpt-4.1", "gpt-4.1-nano"} {
		if _, stderr, err := runCLI(t, dir, "--max-unusable", "1", "classify", "run", "--model", "openai:"+m, "--limit", "80"); err != nil {
			t.Fatalf("%s: %v\n%s", m, err, stderr)
		}
	}
	st, err := sqlite.Open(filepath.Join(dir, "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	right := func(run int64) map[string]bool {
		_, preds, err := classify.Load(t.Context(), st, run)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, p := range preds {
			out[p.ID] = p.Pred != "" && p.Pred == p.Gold
		}
		return out
	}
	a, b := right(1), right(2)
	st.Close()
	var onlyA, onlyB int
	for id, x := range a {
		if x && !b[id] {
			onlyA++
		}
		if b[id] && !x {
			onlyB++
		}
	}
	want, _ := stats.McNemar(onlyA, onlyB, true, false)
	if onlyA+onlyB == 0 {
		t.Fatal("the two models never differ: the test cannot tell")
	}
	rep, _ := jsonReport(t, dir, "compare", "1", "2", "--format", "json", "--resamples", "200")
	row := rep.Table("paired").Rows[0]
	if row[0].Text != "accuracy" || row[1].Text != "run 1 (openai:gpt-4.1-mini)" || row[9].Text != "McNemar exact" || row[10].Value != want.P || row[11].Value != stats.McNemarMidP(onlyA, onlyB) {
		t.Fatalf("pair row %+v, want McNemar p %v on %d / %d discordant", row, want.P, onlyA, onlyB)
	}
	for _, f := range []string{"md", "csv", "tex", "html"} {
		out, stderr, err := runCLI(t, dir, "compare", "1", "2", "--format", f, "--resamples", "50")
		if err != nil || !strings.Contains(out, "McNemar") {
			t.Fatalf("--format %s: %v\n%s\n%s", f, err, stderr, out)
		}
	}
	rep, _ = jsonReport(t, dir, "compare", "1", "2", "3", "--format", "json", "--resamples", "50")
	pairs := rep.Table("paired").Rows
	if len(pairs) != 3 {
		t.Fatalf("%d pairs of three arms", len(pairs))
	}
	ps := []float64{pairs[0][10].Value, pairs[1][10].Value, pairs[2][10].Value}
	holm := stats.Holm(ps)
	for i := range pairs {
		if pairs[i][12].Value != holm[i] || pairs[i][14].Text == "" {
			t.Fatalf("pair %d: Holm %v, want %v (%q)", i, pairs[i][12].Value, holm[i], pairs[i][14].Text)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"1", "1"}, "named twice"},
		{[]string{"1", "9"}, "no run 9"},
		{[]string{"1", "x"}, "name a run"},
		{[]string{"1", "2:openai:gpt-9"}, "has no model openai:gpt-9"},
	} {
		_, stderr, err := runCLI(t, dir, append([]string{"compare"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error()+stderr, c.want) {
			t.Fatalf("compare %v: %v, want %q", c.args, err, c.want)
		}
	}
}

// TestCompareModelsInADeflectRun (#44): two models inside one DeflectBench
// run, compared on the generations both have, by outcome rate; the claim
// is the cluster (a claim's frames and samples move together), so the test
// is the sign-flip over claims, and the estimates are each model's rate on
// the shared generations as the report's consensus reads them. A run with
// two models needs the model named.
func TestCompareModelsInADeflectRun(t *testing.T) {
	_, dir := guaranteeEnv(t, scripted)
	os.WriteFile(filepath.Join(dir, "claims.jsonl"), []byte(fourClaims), 0o644)
	if _, stderr, err := runCLI(t, dir, "deflect", "run", "--models", "openai:model-a,openai:model-b", "--judges", "anthropic:judge-a,gemini:judge-b",
		"--samples", "2", "--claims", filepath.Join(dir, "claims.jsonl")); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if _, stderr, err := runCLI(t, dir, "compare", "1", "1:openai:model-b"); err == nil || !strings.Contains(err.Error()+stderr, "name one as 1:MODEL") {
		t.Fatalf("a two-model run without a model: %v", err)
	}
	rep, _ := jsonReport(t, dir, "compare", "1:openai:model-a", "1:openai:model-b", "--format", "json", "--resamples", "100")
	rows := rep.Table("paired").Rows
	if len(rows) != 4 {
		t.Fatalf("%d rows, want one per outcome rate", len(rows))
	}
	for _, r := range rows {
		if r[1].Text != "run 1:openai:model-a" || r[4].Value != 4 || r[3].Text != "120 / 120 / 120" || !strings.HasPrefix(r[9].Text, "sign-flip over claims") {
			t.Fatalf("row %+v", r)
		}
		// Four claims: every one of the 16 sign flips enumerated, so p is
		// a multiple of 1/8 (two-sided).
		if p := r[10].Value * 8; math.Abs(p-math.Round(p)) > 1e-9 {
			t.Fatalf("%s: p %v is not an exact sign-flip p over 4 claims", r[0].Text, r[10].Value)
		}
	}
	// The run alone compares its models: the same pair, the same figures.
	whole, _ := jsonReport(t, dir, "compare", "1", "--format", "json", "--resamples", "100")
	plain := func(rows [][]report.Cell) (out [][]string) {
		for _, r := range rows {
			var line []string
			for _, c := range r {
				line = append(line, c.Plain())
			}
			out = append(out, line)
		}
		return out
	}
	if got, want := plain(whole.Table("paired").Rows), plain(rows); !reflect.DeepEqual(got, want) {
		t.Fatalf("compare 1:\n%q\nwant\n%q", got, want)
	}
	// Exported as inspect logs and imported back, the two models compare
	// as they did: the logs keep the claims as clusters (the stderr's
	// cluster field), so the same intervals and sign-flip test, not a
	// McNemar test of generations one by one.
	logs := filepath.Join(dir, "logs")
	if _, stderr, err := runCLI(t, dir, "runs", "export", "1", "--format", "inspect", "--out-dir", logs); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, m := range []string{"model-a", "model-b"} {
		if _, stderr, err := runCLI(t, dir, "runs", "import", filepath.Join(logs, "deflect_openai_"+m+"_run1.eval")); err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
	}
	back, _ := jsonReport(t, dir, "compare", "2", "3", "--format", "json", "--resamples", "100")
	got := plain(back.Table("paired").Rows)
	for i, want := range plain(rows) {
		if !reflect.DeepEqual(got[i][3:], want[3:]) { // the arms' labels name other runs
			t.Fatalf("imported logs, row %d:\n%q\nwant\n%q", i, got[i], want)
		}
	}
	// A colleague's exported run, imported, compares with one's own run of
	// the benchmark: model-a here against model-b's imported log.
	mixed, _ := jsonReport(t, dir, "compare", "1:openai:model-a", "3", "--format", "json", "--resamples", "100")
	got = plain(mixed.Table("paired").Rows)
	for i, want := range plain(rows) {
		if !reflect.DeepEqual(got[i][3:], want[3:]) {
			t.Fatalf("own run against an imported log, row %d:\n%q\nwant\n%q", i, got[i], want)
		}
	}
	// Exported as Every Eval Ever results and imported back: the same.
	eee := filepath.Join(dir, "eee")
	if _, stderr, err := runCLI(t, dir, "runs", "export", "1", "--format", "eee", "--out-dir", eee); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	aggs, _ := filepath.Glob(filepath.Join(eee, "data", "deflect", "*", "model-b", "*.json"))
	if len(aggs) != 1 {
		t.Fatalf("model-b's aggregate: %v", aggs)
	}
	if out, stderr, err := runCLI(t, dir, "runs", "import", "--format", "eee", aggs[0]); err != nil || !strings.HasPrefix(out, "run 4:") {
		t.Fatalf("%v\n%s\n%s", err, out, stderr)
	}
	viaEEE, _ := jsonReport(t, dir, "compare", "1:openai:model-a", "4", "--format", "json", "--resamples", "100")
	got = plain(viaEEE.Table("paired").Rows)
	for i, want := range plain(rows) {
		if !reflect.DeepEqual(got[i][3:], want[3:]) {
			t.Fatalf("own run against imported EEE results, row %d:\n%q\nwant\n%q", i, got[i], want)
		}
	}
	// The same generations judged again by another panel: a comparison
	// across the two runs says their outcomes come from different judges.
	if _, stderr, err := runCLI(t, dir, "deflect", "judge", "--run", "1", "--judges", "anthropic:judge-c,gemini:judge-b"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	judged, _ := jsonReport(t, dir, "compare", "1:openai:model-a", "5:openai:model-a", "--format", "json", "--resamples", "50")
	note := ""
	for _, m := range judged.Meta {
		if m[0] == "judges" {
			note = m[1]
		}
	}
	if !strings.Contains(note, "run 1: anthropic:judge-a, gemini:judge-b; run 5: anthropic:judge-c, gemini:judge-b") {
		t.Fatalf("two panels: %+v", judged.Meta)
	}
	for _, m := range whole.Meta {
		if m[0] == "judges" {
			t.Fatalf("one panel: %+v", whole.Meta)
		}
	}
	// A panel of one judge is "1 judge" (it said "1 judges").
	if _, stderr, err := runCLI(t, dir, "deflect", "judge", "--run", "1", "--judges", "gemini:judge-b"); err != nil || !strings.Contains(stderr, "responses with 1 judge\n") {
		t.Fatalf("one judge: %v\n%s", err, stderr)
	}
}

// TestCompareFoilsAudits (#44): two Scheme Foils audits (the built-in
// detector, and an LLM detector that calls everything a fallacy) compared
// item by item: McNemar's test on each rate, every item a cluster; a
// Foils run against a classify run is refused.
func TestCompareFoilsAudits(t *testing.T) {
	_, dir := guaranteeEnv(t, func(c llmtest.Call) llmtest.Reply { return llmtest.Reply{Text: "slippery slope"} })
	if _, stderr, err := runCLI(t, dir, "foils", "audit", "--limit", "40", "--resamples", "50", "--permutations", "50"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if _, stderr, err := runCLI(t, dir, "foils", "audit", "--limit", "40", "--detector", "llm:openai:detector-model:typed", "--resamples", "50", "--permutations", "50"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if _, stderr, err := runCLI(t, dir, "compare", "1"); err == nil || !strings.Contains(err.Error()+stderr, "run 1 has one model") {
		t.Fatalf("a run of one model alone: %v", err)
	}
	rep, _ := jsonReport(t, dir, "compare", "1", "2", "--format", "json", "--resamples", "50")
	rows := rep.Table("paired").Rows
	if len(rows) != 3 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		// The LLM detector flags every item: B's rate is 1.
		if r[9].Text != "McNemar exact" || r[6].Value != 1 || !strings.HasPrefix(r[2].Text, "run 2 (llm:openai:detector-model:typed") {
			t.Fatalf("row %+v", r)
		}
	}
	if _, stderr, err := runCLI(t, dir, "--max-unusable", "1", "classify", "run", "--model", "openai:gpt-4.1-mini", "--limit", "5"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if _, stderr, err := runCLI(t, dir, "compare", "1", "3"); err == nil || !strings.Contains(err.Error()+stderr, "do not compare") {
		t.Fatalf("arms of two benchmarks: %v", err)
	}
}

// TestCompareMissciRuns (#44): two Missci reconstruction runs compared:
// P@1 line by line, clustered by argument (a sign-flip over arguments),
// and Arg@1 argument by argument (McNemar).
func TestCompareMissciRuns(t *testing.T) {
	class := map[string]string{"gpt-4.1": "Hasty Generalization", "gpt-4.1-mini": "Causal Oversimplification"}
	_, dir := guaranteeEnv(t, func(c llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Text: "Fallacious Premise: the study proves it for everyone; Applied Fallacy Class: " + class[c.Model]}
	})
	for _, m := range []string{"openai:gpt-4.1", "openai:gpt-4.1-mini"} {
		if _, stderr, err := runCLI(t, dir, "missci", "run", "--model", m, "--split", "dev", "--max-unusable", "0.6"); err != nil {
			t.Fatalf("%s: %v\n%s", m, err, stderr)
		}
	}
	rep, _ := jsonReport(t, dir, "compare", "1", "2", "--format", "json", "--resamples", "50")
	rows := rep.Table("paired").Rows
	if len(rows) != 2 || rows[0][0].Text != "P@1" || !strings.HasPrefix(rows[0][9].Text, "sign-flip over arguments") || rows[1][0].Text != "Arg@1" || rows[1][9].Text != "McNemar exact" {
		t.Fatalf("rows %+v", rows)
	}
	if !strings.Contains(rows[0][1].Text, "openai:gpt-4.1 ") || rows[0][4].Value < 20 {
		t.Fatalf("arm %q, %v clusters", rows[0][1].Text, rows[0][4].Value)
	}
	// A plan from a run of the dev split knows its 30 arguments (it said
	// nothing where it needed more).
	if out, stderr, err := runCLI(t, dir, "plan", "--pilot", "2", "--delta", "0.02"); err != nil || !strings.Contains(out, "too few arguments**: the benchmark has 30 arguments: ") {
		t.Fatalf("plan from a Missci pilot: %v\n%s%s", err, out, stderr)
	}
}

// TestPlanFromADeflectPilot (#44 item 2): a DeflectBench run as the pilot
// of one model: its refusal rate, the claims' intra-cluster correlation
// (by one-way ANOVA) and its spend give the items per arm, the
// observations and the price; the pilot's own minimum detectable effect
// is printed; stated rates plan without a pilot, and no price is made up;
// a plan that needs more items than the benchmark has says what all of
// them need, or that nothing suffices.
func TestPlanFromADeflectPilot(t *testing.T) {
	_, dir := guaranteeEnv(t, scripted)
	os.WriteFile(filepath.Join(dir, "claims.jsonl"), []byte(fourClaims), 0o644)
	// Priced models: the plan prices the planned run from the pilot's spend.
	cfg := filepath.Join(dir, "fallacylab.yaml")
	b, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, append(b, []byte("  openai:model-a: {input: 300, output: 900}\n  openai:model-b: {input: 300, output: 900}\n  anthropic:judge-a: {input: 100, output: 400}\n  gemini:judge-b: {input: 100, output: 400}\n")...), 0o644)
	if _, stderr, err := runCLI(t, dir, "deflect", "run", "--models", "openai:model-a,openai:model-b", "--judges", "anthropic:judge-a,gemini:judge-b",
		"--samples", "2", "--claims", filepath.Join(dir, "claims.jsonl")); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	rep, _ := jsonReport(t, dir, "plan", "--pilot", "1:openai:model-a", "--metric", "refusal", "--delta", "0.1", "--format", "json")
	row := rep.Table("plan").Rows[0]
	rate, m := row[0].Value, row[4].Value
	if m != 30 || rate <= 0 || rate >= 1 {
		t.Fatalf("plan row %+v", row)
	}
	mde := rep.Table("mde").Rows[0]
	if mde[0].Value != 4 || mde[1].Value != 30 {
		t.Fatalf("mde row %+v", mde)
	}
	// The items per arm follow from the printed figures.
	h := 2*math.Asin(math.Sqrt(math.Min(1, rate+0.1))) - 2*math.Asin(math.Sqrt(rate))
	n, _ := stats.SampleSize(h, 0.05, 0.8)
	if int(math.Ceil(n)) != int(row[3].Value) {
		t.Fatalf("observations per arm %v, want ⌈%v⌉", row[3].Value, n)
	}
	// The price: the pilot's spend per observation (both models' 240
	// generations, judges included) times the observations planned.
	st, err := sqlite.Open(filepath.Join(dir, "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	spend, err := st.RunSpend(t.Context(), 1)
	st.Close()
	if err != nil || spend <= 0 {
		t.Fatalf("the pilot's spend: %v, %v", spend, err)
	}
	if want := fmt.Sprintf("$%.2f", row[6].Value*spend/240); row[7].Text != want {
		t.Fatalf("price per arm %+v, want %s (spend $%.4f over 240 observations, %v planned)", row[7], want, spend, row[6].Value)
	}
	rep, _ = jsonReport(t, dir, "plan", "--rate", "0.3", "--delta", "0.05", "--samples", "75", "--icc", "0.2", "--format", "json")
	row = rep.Table("plan").Rows[0]
	if row[5].Value != 290 || row[6].Value != 290*75 || row[7].Kind != "empty" {
		t.Fatalf("stated plan %+v", row)
	}
	if _, _, err := runCLI(t, dir, "plan", "--rate", "1.2"); err == nil {
		t.Fatal("a rate above 1 was planned for")
	}
	// More items than the benchmark has: all of them at more observations
	// each — 80·26/(1 + 25·0.02) ≥ 1376 > 80·25/(1 + 24·0.02) — or none
	// suffices (80 items give at most 80/ρ = 400 effective observations).
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--icc", "0.02", "--samples", "15", "--max-items", "80"}, "the benchmark has 80 items: 118 per arm is more than there are; all 80 at 26 observations per item reach it (design effect 1.500)"},
		{[]string{"--icc", "0.2", "--samples", "75", "--max-items", "80"}, "the benchmark has 80 items: 290 per arm is more than there are, and no number of observations per item reaches it: with ρ = 0.2, 80 items give at most 400 effective observations (80/ρ), fewer than the 1376 needed"},
		{[]string{"--icc", "0.02", "--samples", "15", "--max-items", "200"}, ""},
	} {
		rep, _ := jsonReport(t, dir, append([]string{"plan", "--rate", "0.3", "--delta", "0.05", "--format", "json"}, c.args...)...)
		var got string
		for _, m := range rep.Meta {
			if m[0] == "too few items" {
				got = m[1]
			}
		}
		if !strings.HasPrefix(got, c.want) || (c.want == "") != (got == "") {
			t.Errorf("plan %v: %q, want %q", c.args, got, c.want)
		}
	}
	if _, _, err := runCLI(t, dir, "plan", "--pilot", "99"); err == nil || err.Error() != "--pilot: the store has no run 99 (fallacylab runs lists them)" {
		t.Errorf("a pilot the store lacks: %v", err) // it said "(<nil>)"
	}
	if _, _, err := runCLI(t, dir, "plan", "--rate", "0.3", "--max-items", "-1"); err == nil || !strings.Contains(err.Error(), "--max-items") {
		t.Errorf("--max-items -1: %v", err)
	}
	// A pilot of the embedded claims knows there are 80: the minimum
	// detectable effect of all of them is printed beside the pilot's.
	if _, stderr, err := runCLI(t, dir, "deflect", "run", "--models", "openai:model-a", "--judges", "anthropic:judge-a,gemini:judge-b",
		"--samples", "1", "--pilot", "4"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	rep, _ = jsonReport(t, dir, "plan", "--pilot", "2", "--delta", "0.1", "--format", "json")
	if rows := rep.Table("mde").Rows; len(rows) != 2 || rows[0][0].Value != 4 || rows[1][0].Value != 80 || rows[1][1].Value != 15 {
		t.Errorf("the embedded pilot's minimum detectable effects: %+v", rows)
	}
	// A change past 0 or 1 is refused (it was planned for 1 silently);
	// a metric that is no rate, or not the pilot's, names the rates it has.
	for _, c := range []struct{ args []string }{
		{[]string{"--rate", "0.99", "--delta", "0.05"}},
		{[]string{"--rate", "0.3", "--delta", "-0.35"}},
	} {
		if _, _, err := runCLI(t, dir, append([]string{"plan"}, c.args...)...); err == nil || !strings.Contains(err.Error(), "not a rate") {
			t.Errorf("plan %v: %v", c.args, err)
		}
	}
	if _, _, err := runCLI(t, dir, "plan", "--pilot", "1:openai:model-a", "--metric", "nope"); err == nil ||
		!strings.Contains(err.Error(), `run 1 has no rate "nope": its rates are refusal, soft refusal, labelled compliance, clean compliance`) {
		t.Errorf("a metric the pilot does not have: %v", err)
	}
}

// TestStudyCorrectsTheRunsRates (#44 item 3): a DeflectBench run and a
// deflect-rubric study of it whose people disagree with the judges'
// consensus on every fourth item: the study's report gives each field's
// judged rate over the whole run, the consensus's sensitivity and
// specificity against the people's majority, and the Rogan–Gladen
// corrected rate, (p + Sp − 1)/(Se + Sp − 1).
func TestStudyCorrectsTheRunsRates(t *testing.T) {
	_, dir := guaranteeEnv(t, scripted)
	os.WriteFile(filepath.Join(dir, "claims.jsonl"), []byte(fourClaims), 0o644)
	if _, stderr, err := runCLI(t, dir, "deflect", "run", "--models", "openai:model-a", "--judges", "anthropic:judge-a,gemini:judge-b",
		"--samples", "2", "--claims", filepath.Join(dir, "claims.jsonl")); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	// Without a study the report says how to get the rates corrected.
	hint := "fallacylab study create --run 1 --kind deflect-rubric"
	if out, _, err := runCLI(t, dir, "deflect", "report", "--run", "1", "--resamples", "20"); err != nil || !strings.Contains(out, hint) {
		t.Fatalf("the report of a run without a study does not say how to correct its rates: %v\n%.1500s", err, out)
	}
	if out, stderr, err := runCLI(t, dir, "study", "create", "--run", "1", "--kind", "deflect-rubric", "--fields", "refusal", "--annotators", "ana,ben", "--decoys", "0", "--n", "60", "--seed", "3"); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, stderr)
	}
	st, err := sqlite.Open(filepath.Join(dir, "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := st.Study(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	var anns []store.Annotation
	tp, fn, tn, fp := 0, 0, 0, 0
	for i, it := range s.Items {
		c := ""
		for k, v := range it.Hidden {
			if strings.HasPrefix(k, "judge:") && strings.HasSuffix(k, ":refusal") && (v == "0" || v == "1") && (c == "" || v == "1") {
				c = v
			}
		}
		h := c
		if it.Decoy {
			h = it.Known["refusal"]
		} else if i%4 == 0 {
			h = map[string]string{"1": "0", "0": "1"}[c]
		}
		if !it.Decoy && c != "" {
			switch {
			case h == "1" && c == "1":
				tp++
			case h == "1":
				fn++
			case c == "1":
				fp++
			default:
				tn++
			}
		}
		for _, who := range []string{"ana", "ben"} {
			anns = append(anns, store.Annotation{StudyID: 1, Annotator: who, Item: it.Key, Answers: map[string]string{"refusal": h}, At: time.Unix(1700000000, 0)})
		}
	}
	if err := st.PutAnnotations(t.Context(), anns); err != nil {
		t.Fatal(err)
	}
	st.Close()
	rep, _ := jsonReport(t, dir, "study", "report", "1", "--format", "json", "--resamples", "50")
	tab := rep.Table("corrected_rates")
	if tab == nil || len(tab.Rows) != 1 {
		t.Fatalf("no corrected rates: %+v", tab)
	}
	row := tab.Rows[0]
	se, sp := float64(tp)/float64(tp+fn), float64(tn)/float64(tn+fp)
	p := row[2].Value
	if math.Abs(row[3].Value-se) > 1e-12 || math.Abs(row[4].Value-sp) > 1e-12 || row[5].Text != fmt.Sprintf("%d / %d", tp+fn, tn+fp) || row[1].Value != 120 {
		t.Fatalf("row %+v, want Se %v Sp %v", row, se, sp)
	}
	t.Logf("refusal: judged %.3f over %v generations, Se %.3f Sp %.3f (%s), corrected %v", p, row[1].Value, se, sp, row[5].Text, row[6].Value)
	if j := se + sp - 1; j > 0 {
		want := math.Min(1, math.Max(0, (p+sp-1)/j))
		if math.Abs(row[6].Value-want) > 1e-12 {
			t.Fatalf("corrected %v, want %v", row[6].Value, want)
		}
		// The bootstrap over both samples brackets it, near the delta
		// method's interval.
		if b := row[7]; !b.HasCI || b.Lo > want || b.Hi < want || math.Abs((b.Hi-b.Lo)-(row[6].Hi-row[6].Lo)) > 0.5*(row[6].Hi-row[6].Lo) {
			t.Fatalf("bootstrap %+v, delta %+v", b, row[6])
		}
	} else if row[6].Kind != "empty" {
		t.Fatalf("Se + Sp ≤ 1, yet a corrected rate: %+v", row[6])
	}
	// The run's own report gives the same, beside its raw rates.
	runRep, _ := jsonReport(t, dir, "deflect", "report", "--run", "1", "--format", "json", "--resamples", "50")
	own := runRep.Table("corrected_rates")
	if own == nil || len(own.Rows) != 1 || own.Rows[0][6].Value != row[6].Value || own.Rows[0][3].Value != row[3].Value {
		t.Fatalf("the run's report: %+v, want the study's %+v", own, row)
	}
	for _, m := range runRep.Meta {
		if m[0] == "judge bias" {
			t.Fatalf("a run with a study still says how to get one: %q", m[1])
		}
	}
	// A second study whose annotator fails every decoy: the run's report
	// says that annotator is left out of its corrections.
	if out, stderr, err := runCLI(t, dir, "study", "create", "--run", "1", "--kind", "deflect-rubric", "--fields", "refusal", "--annotators", "cy,dee", "--decoys", "2", "--n", "10", "--seed", "4"); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, stderr)
	}
	st, err = sqlite.Open(filepath.Join(dir, "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	s2, _, err := st.Study(t.Context(), 2)
	if err != nil {
		t.Fatal(err)
	}
	anns = nil
	for _, it := range s2.Items {
		right := it.Known["refusal"]
		if right == "" {
			right = "0"
		}
		wrong := map[string]string{"1": "0", "0": "1"}[right]
		anns = append(anns, store.Annotation{StudyID: 2, Annotator: "cy", Item: it.Key, Answers: map[string]string{"refusal": wrong}, At: time.Unix(1700000000, 0)},
			store.Annotation{StudyID: 2, Annotator: "dee", Item: it.Key, Answers: map[string]string{"refusal": right}, At: time.Unix(1700000000, 0)})
	}
	if err := st.PutAnnotations(t.Context(), anns); err != nil {
		t.Fatal(err)
	}
	st.Close()
	runRep, _ = jsonReport(t, dir, "deflect", "report", "--run", "1", "--format", "json", "--resamples", "20")
	said := ""
	for _, m := range runRep.Meta {
		if m[0] == "study 2" {
			said = m[1]
		}
	}
	if !strings.HasPrefix(said, "cy left out of its corrections: below the decoy bar") {
		t.Fatalf("the run's report does not say who study 2 left out: %q", said)
	}
	// The viewer's run page says where the corrected rates are.
	page := webtest.Visitor(viewerOf(t, dir))("GET", "/runs/1", nil).Body.String()
	if !strings.Contains(page, `2 annotators): its report gives this run's judged rates corrected for the judges' errors</li>`) {
		t.Fatalf("the run page does not say its studies correct its rates:\n%.3000s", page[max(0, strings.Index(page, "Human validation")):])
	}
}

// TestMissciClassificationRunsReportLater (#43): a Missci classify-gold
// and a classify-only run store their units: `missci report --run N` gives
// the report the run printed, and the viewer's run page shows it.
func TestMissciClassificationRunsReportLater(t *testing.T) {
	_, dir := guaranteeEnv(t, func(c llmtest.Call) llmtest.Reply { return llmtest.Reply{Text: "Hasty Generalization"} })
	for i, task := range []string{"classify-gold", "classify-only"} {
		printed, _ := jsonReport(t, dir, "missci", "run", "--task", task, "--model", "openai:gpt-4.1", "--split", "dev", "--max-unusable", "1", "--format", "json")
		later, _ := jsonReport(t, dir, "missci", "report", "--run", fmt.Sprint(i+1), "--format", "json")
		a, b := printed.Table("classification"), later.Table("classification")
		if a == nil || b == nil || fmt.Sprint(a.Rows) != fmt.Sprint(b.Rows) || len(a.Rows) == 0 { // NaN fields print alike
			t.Fatalf("%s: the report later differs from the run's:\n%+v\n%+v", task, a, b)
		}
	}
	viewer := viewerOf(t, dir)
	rec := webtest.Visitor(viewer)("GET", "/runs/2", nil)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "Accuracy and macro-F1") {
		t.Fatalf("the run page: %d\n%s", rec.Code, rec.Body.String())
	}
}
