package classify_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/bench/benchtest"
	"github.com/fallacylab/fallacylab/bench/classify"
	"github.com/fallacylab/fallacylab/cachedir"
	"github.com/fallacylab/fallacylab/corpus"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/llm/llmtest"
	"github.com/fallacylab/fallacylab/llm/openai"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/runner"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/sqlite"
	"github.com/fallacylab/fallacylab/study"
)

// TestMain keeps the checks of the tests' stores out of the user's cache.
func TestMain(m *testing.M) {
	benchtest.Main()
	os.Exit(cachedir.Run(m))
}

func TestParse(t *testing.T) {
	ls := classify.LabelSet{"ad hominem", "appeal to emotion", "red herring", "hasty generalization", corpus.None}
	for answer, want := range map[string]string{
		"ad hominem": "ad hominem", "Label: Ad Hominem.": "ad hominem", "**red herring**": "red herring", "none": corpus.None,
		"No fallacy": corpus.None, "The text commits a hasty generalization, since it": "hasty generalization",
		"ad hominem or red herring": "", "I cannot tell": "", "": "",
	} {
		got, ok := ls.Parse(answer)
		if got != want || ok != (want != "") {
			t.Errorf("Parse(%q) = %q, %v; want %q", answer, got, ok, want)
		}
	}
	// A label inside a longer label it names is not a second label.
	if got, ok := (classify.LabelSet{"generalization", "hasty generalization"}).Parse("a hasty generalization"); !ok || got != "hasty generalization" {
		t.Errorf("nested labels: %q %v", got, ok)
	}
}

// TestScore: an answer that names no label is wrong and counted; accuracy
// and macro-F1 are scikit-learn's (stats.Classify) on that view, with
// intervals around them.
func TestScore(t *testing.T) {
	setup := classify.Setup{Labels: classify.LabelSet{"a", "b", "c"}}
	preds := []classify.Prediction{{ID: "1", Gold: "a", Pred: "a"}, {ID: "2", Gold: "a", Pred: "b"}, {ID: "3", Gold: "b", Pred: "b"},
		{ID: "4", Gold: "b", Pred: ""}, {ID: "5", Gold: "c", Pred: "c"}, {ID: "6", Gold: "c", Failed: "500"}}
	sc, err := classify.Score(setup, preds, classify.ReportOptions{Resamples: 200, Seed: 1, Level: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	// a: P 1, R 1/2; b: P 1/2, R 1/2; c: P 1, R 1/2 → F1 2/3, 1/2, 2/3.
	if sc.Accuracy != 0.5 || math.Abs(sc.MacroF1-(2.0/3+0.5+2.0/3)/3) > 1e-12 || sc.Unusable != 1 || sc.Failed != 1 {
		t.Fatalf("scores %+v", sc)
	}
	if !(sc.AccLo < sc.Accuracy && sc.Accuracy < sc.AccHi && sc.MacroLo < sc.MacroF1 && sc.MacroF1 < sc.MacroHi) {
		t.Fatalf("intervals [%v, %v], [%v, %v]", sc.AccLo, sc.AccHi, sc.MacroLo, sc.MacroHi)
	}
	if got := fmt.Sprint(sc.Confusion[:3]); got != "[[1 1 0 0] [0 1 0 1] [0 0 1 1]]" {
		t.Fatalf("confusion %s", got)
	}
}

// fixture runs the Task through the one runner against a scripted server
// that answers each text's gold label, but "I cannot tell" for texts about
// a fixed word, and a wrong label for texts with another.
type fixture struct {
	st  *sqlite.Store
	srv *llmtest.Server
	out bytes.Buffer
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	items, err := corpus.Load(nil, "reddit", corpus.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gold := map[string]string{}
	for _, it := range items {
		gold[it.Text] = it.NativeLabel()
	}
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv := llmtest.New(llmtest.Options{Respond: func(c llmtest.Call) llmtest.Reply {
		i := strings.LastIndex(c.Prompt, "\nText: ")
		text := strings.TrimSuffix(c.Prompt[i+len("\nText: "):], "\nLabel:")
		switch g := gold[text]; {
		case g == "slippery slope":
			return llmtest.Reply{Text: "I cannot tell."}
		case g == "false dilemma":
			return llmtest.Reply{Text: "Label: hasty generalization"}
		default:
			return llmtest.Reply{Text: g}
		}
	}})
	t.Cleanup(srv.Close)
	return &fixture{st: st, srv: srv}
}

func (f *fixture) run(t *testing.T, dry bool, args ...string) (runner.Result, error) {
	t.Helper()
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	build := classify.Task{}.BindRun(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	env := bench.Env{Records: f.st, Stdout: &f.out, Stderr: &f.out, DryRun: dry}
	spec, err := build(context.Background(), env)
	if err != nil {
		return runner.Result{}, err
	}
	spec.Benchmark = classify.Name
	engineOf := func(runID int64) *engine.Engine {
		o := engine.Options{Store: f.st, RunID: runID, MaxAttempts: 1, Limits: func(string) engine.Limits { return engine.Limits{Concurrency: 4} }}
		o.Providers = func(name string) (llm.Provider, error) {
			if dry {
				return engine.Offline{Provider: name}, nil
			}
			return openai.New(openai.Config{BaseURL: f.srv.OpenAIURL(), APIKey: "k"}), nil
		}
		return engine.New(o)
	}
	return runner.New(runner.Env{Store: f.st, Engine: engineOf, DryRun: dry, Stdout: &f.out, Stderr: &f.out,
		Estimate: func(e engine.Estimate) { fmt.Fprintf(&f.out, "estimate: %d jobs\n", e.Jobs) }}).Run(context.Background(), spec)
}

func (f *fixture) report(t *testing.T, runID int64) *report.Report {
	t.Helper()
	fs := pflag.NewFlagSet("report", pflag.ContinueOnError)
	build := classify.Task{}.BindReport(fs)
	if err := fs.Parse([]string{"--resamples", "200"}); err != nil {
		t.Fatal(err)
	}
	r, ok, err := f.st.Run(context.Background(), runID)
	if err != nil || !ok {
		t.Fatalf("run %d: %v", runID, err)
	}
	rep, err := build(context.Background(), bench.Env{Records: f.st}, r)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestRunAndReport: a limited run of the embedded Reddit test split (two
// texts of each of the nine labels) calls once per text, stores a
// prediction per text, and its report scores what the model answered: the
// two "slippery slope" texts named no label, the two "false dilemma" ones
// the wrong one. A dry run calls nothing; the same run again pays nothing.
func TestRunAndReport(t *testing.T) {
	f := newFixture(t)
	args := []string{"--model", "openai:m", "--limit", "18"}
	if _, err := f.run(t, true, args...); err != nil || len(f.srv.Ledger()) != 0 || !strings.Contains(f.out.String(), "estimate: 18 jobs") {
		t.Fatalf("dry run: %v, %d requests\n%s", err, len(f.srv.Ledger()), f.out.String())
	}
	res, err := f.run(t, false, args...)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.srv.Ledger()); n != 18 {
		t.Fatalf("%d requests for 18 texts", n)
	}
	setup, preds, err := classify.Load(context.Background(), f.st, res.RunID)
	if err != nil || len(preds) != 18 || len(setup.Labels) != 9 || setup.Texts == 0 {
		t.Fatalf("records: %v, %d predictions, setup %+v", err, len(preds), setup)
	}
	rep := f.report(t, res.RunID)
	var b bytes.Buffer
	if err := report.Render(&b, rep, report.CSV); err != nil {
		t.Fatal(err)
	}
	// 14 of 18 right; 2 named no label.
	if !strings.Contains(b.String(), "openai:m,reddit,zero-shot,18,0.7777") || !strings.Contains(b.String(), ",2,0\n") {
		t.Fatalf("report:\n%s", b.String())
	}
	if !strings.Contains(b.String(), "false dilemma,0,0,0,0,0,0,2,0,0,0\n") {
		t.Fatalf("confusion of false dilemma:\n%s", b.String())
	}
	if _, err := f.run(t, false, args...); err != nil || len(f.srv.Ledger()) != 18 {
		t.Fatalf("again: %v, %d requests", err, len(f.srv.Ledger()))
	}
	var kinds []string
	if err := f.st.Records(context.Background(), res.RunID, "", func(r store.Record) error {
		if len(kinds) == 0 || kinds[len(kinds)-1] != r.Kind {
			kinds = append(kinds, r.Kind)
		}
		return nil
	}); err != nil || strings.Join(kinds, " ") != classify.KindPrediction+" "+classify.KindSetup {
		t.Fatalf("record kinds %v (%v)", kinds, err)
	}
}

// TestEveryTextIsScored: a text the corpus holds twice (the Reddit test
// split has one) is two predictions, so the report counts every text.
func TestEveryTextIsScored(t *testing.T) {
	f := newFixture(t)
	res, err := f.run(t, false, "--model", "openai:m")
	if err != nil {
		t.Fatal(err)
	}
	setup, preds, err := classify.Load(context.Background(), f.st, res.RunID)
	if err != nil || len(preds) != setup.Texts {
		t.Fatalf("%d predictions for %d texts (%v)", len(preds), setup.Texts, err)
	}
}

// TestBaseline: the built-in TF-IDF detector, trained on the train split,
// classifies the same texts with no model call, through the same runner
// and records; a dry run says it calls nothing; a corpus with no train
// split is refused.
func TestBaseline(t *testing.T) {
	f := newFixture(t)
	if _, err := f.run(t, true, "--model", classify.Baseline, "--limit", "18"); err != nil || !strings.Contains(f.out.String(), "0 jobs: builtin:tfidf calls no model") {
		t.Fatalf("dry run: %v\n%s", err, f.out.String())
	}
	res, err := f.run(t, false, "--model", classify.Baseline, "--limit", "18")
	if err != nil {
		t.Fatal(err)
	}
	_, preds, err := classify.Load(context.Background(), f.st, res.RunID)
	if err != nil || len(preds) != 18 || len(f.srv.Ledger()) != 0 {
		t.Fatalf("%d predictions, %d requests (%v)", len(preds), len(f.srv.Ledger()), err)
	}
	sc, err := classify.Score(classify.Setup{Labels: classify.LabelSet(corpus.Labels)}, preds, classify.ReportOptions{Resamples: 50, Seed: 1, Level: 0.95})
	if err != nil || sc.Unusable != 0 || sc.Accuracy <= 0 {
		t.Fatalf("scores %+v (%v)", sc, err)
	}
	// One table compares it with a model's run on the same texts.
	llmRun, err := f.run(t, false, "--model", "openai:m", "--limit", "18")
	if err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("report", pflag.ContinueOnError)
	build := classify.Task{}.BindReport(fs)
	if err := fs.Parse([]string{"--resamples", "50", "--with", fmt.Sprint(llmRun.RunID)}); err != nil {
		t.Fatal(err)
	}
	r, _, _ := f.st.Run(context.Background(), res.RunID)
	rep, err := build(context.Background(), bench.Env{Records: f.st}, r)
	if err != nil {
		t.Fatal(err)
	}
	if rows := rep.Tables()[0].Rows; len(rows) != 2 || rows[0][0].Text != classify.Baseline || rows[1][0].Text != "openai:m" {
		t.Fatalf("scores table rows %v", rows)
	}
	counts, err := f.st.Phases(context.Background(), res.RunID)
	if err != nil || len(counts) != 1 || counts[0].Answered != 18 || counts[0].Model != classify.Baseline {
		t.Fatalf("phase counts %+v (%v)", counts, err)
	}
	if _, err := f.run(t, false, "--model", classify.Baseline, "--corpus", "argotario"); err == nil || !strings.Contains(err.Error(), "train split") {
		t.Fatalf("argotario: %v", err)
	}
	// Two models given to --model are refused, not run as one named "a,b".
	if _, err := f.run(t, false, "--model", "openai:m,openai:n", "--limit", "2"); err == nil || !strings.Contains(err.Error(), "takes one provider:model") || len(f.srv.Ledger()) != 18 {
		t.Fatalf("--model a,b: %v (%d requests)", err, len(f.srv.Ledger()))
	}
}

// TestTemplates: definitions and few-shot prompts hold what they promise,
// and a template a corpus cannot fill is refused before anything is paid.
func TestTemplates(t *testing.T) {
	f := newFixture(t)
	if _, err := f.run(t, false, "--model", "openai:m", "--limit", "9", "--template", "few-shot"); err != nil {
		t.Fatal(err)
	}
	p := f.srv.Ledger()[0].Call.Prompt
	if strings.Count(p, "\nLabel: ") != 9 || strings.Count(p, "\nText: ") != 10 {
		t.Fatalf("few-shot prompt: one example per label, then the text:\n%s", p)
	}
	if _, err := f.run(t, false, "--model", "openai:m", "--limit", "9", "--template", "definitions"); err != nil {
		t.Fatal(err)
	}
	if p := f.srv.Ledger()[9].Call.Prompt; !strings.Contains(p, "- slippery slope: ") {
		t.Fatalf("definitions prompt:\n%s", p)
	}
	before := len(f.srv.Ledger())
	if _, err := f.run(t, false, "--model", "openai:m", "--corpus", "argotario", "--template", "few-shot"); err == nil || !strings.Contains(err.Error(), "few-shot") {
		t.Fatalf("few-shot on a corpus with one split: %v", err)
	}
	if _, err := f.run(t, false, "--model", "openai:m", "--corpus", "logic"); err == nil || !strings.Contains(err.Error(), "not embedded") {
		t.Fatalf("a corpus not in the data folder: %v", err)
	}
	if len(f.srv.Ledger()) != before {
		t.Fatal("a refused run paid for calls")
	}
}

// TestLogic: LOGIC's test split from the shared data folder, with its own
// label set and definitions.
func TestLogic(t *testing.T) {
	data := os.DirFS("../../../shared/data")
	if _, err := os.Stat("../../../shared/data/logic"); err != nil {
		t.Skip("shared data not present")
	}
	items, err := corpus.Load(data, "logic", corpus.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defs, err := classify.Definitions(data, "logic", classify.LabelSet(corpus.LogicLabels))
	if err != nil || len(defs) < 13 {
		t.Fatalf("definitions: %v (%d)", err, len(defs))
	}
	p := classify.Prompt(items[0], classify.LabelSet(corpus.LogicLabels), defs, nil)
	if !strings.Contains(p, "- faulty generalization: an informal fallacy") || !strings.HasSuffix(p, "Label:") {
		t.Fatalf("prompt:\n%s", p)
	}
}

// TestLabelStudy: a classification run's study kind samples the texts whose
// answers named a label (the model's label shown, never the model or the
// gold), plants decoys of both answers on fallacious texts, and its report sets the
// people's verdict beside the corpus's.
func TestLabelStudy(t *testing.T) {
	f := newFixture(t)
	res, err := f.run(t, false, "--model", "openai:m", "--limit", "18")
	if err != nil {
		t.Fatal(err)
	}
	r, _, _ := f.st.Run(context.Background(), res.RunID)
	cands, decoys, _, err := classify.LabelStudy.Items(context.Background(), study.Draw{Records: f.st, Run: r, Stratify: []string{"gold"}})
	if err != nil {
		t.Fatal(err)
	}
	// 2 of 18 named no label; 16 fallacious texts: "none" on each (known
	// no); their own label on the 2 the model labelled otherwise (the false
	// dilemmas, called hasty generalisations: known yes) — both answers.
	known := map[string]int{}
	for _, d := range decoys {
		known[d.Known["label_right"]]++
		if d.Known["label_right"] == "1" && d.Context != "Label given: "+d.Hidden["gold"] {
			t.Fatalf("a yes decoy not showing the corpus's label: %+v", d)
		}
	}
	if len(cands) != 16 || known["0"] != 14 || known["1"] != 2 {
		t.Fatalf("%d candidates, decoys by known answer %v", len(cands), known)
	}
	for _, c := range cands {
		if !strings.HasPrefix(c.Context, "Label given: ") || strings.Contains(c.Text, "openai:m") || c.Stratum != c.Hidden["gold"] {
			t.Fatalf("item %+v", c)
		}
	}
	k, err := study.ParseKind("classify-label")
	if err != nil {
		t.Fatal(err)
	}
	qs, err := study.Questions(k, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := study.Plan(k, qs, cands, decoys, study.Options{N: 16, Annotators: []string{"ana", "ben"}, Overlap: -1, Decoys: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Both say a label fits exactly when the corpus agrees, but for one
	// text where the corpus's label is wrong by the people.
	var anns []study.Annotation
	flipped := ""
	for _, a := range s.Annotators {
		for _, key := range a.Order {
			it, _ := s.Item(key)
			v := "0"
			if it.Hidden["pred"] == it.Hidden["gold"] {
				v = "1"
			}
			if !it.Decoy && v == "1" && (flipped == "" || flipped == key) {
				flipped, v = key, "0"
			}
			anns = append(anns, study.Annotation{StudyID: s.ID, Annotator: a.Name, Item: key, Answers: map[string]string{"label_right": v}})
		}
	}
	rep, err := study.Analyze(s, anns, study.AnalyzeOptions{Resamples: 50})
	if err != nil {
		t.Fatal(err)
	}
	var tbl *report.Table
	for _, tb := range rep.Tables() {
		if tb.ID == "label_check" {
			tbl = tb
		}
	}
	if tbl == nil {
		t.Fatal("no label_check table")
	}
	// 16 items: 14 right by the corpus (the two false dilemma texts got the
	// wrong label), 13 by the people, who agree with the corpus on 15.
	got := fmt.Sprintf("%.4f %.4f %.4f", tbl.Rows[0][1].Value, tbl.Rows[1][1].Value, tbl.Rows[2][1].Value)
	if got != fmt.Sprintf("%.4f %.4f %.4f", 13.0/16, 14.0/16, 15.0/16) {
		t.Fatalf("label check %s", got)
	}
}

// TestBaselineMatchesSklearn: `classify run --corpus reddit --model
// builtin:tfidf` chooses scikit-learn's C and predicts every test text as
// scikit-learn's pipeline does (bench/foils/testdata/sklearn_parity.py: the
// same TfidfVectorizer and LogisticRegression(lbfgs, tol 1e-4)), and its
// report says which C it chose and why.
func TestBaselineMatchesSklearn(t *testing.T) {
	if testing.Short() {
		t.Skip("trains three models on the whole Reddit train split")
	}
	var fixture struct {
		Full struct {
			C           float64
			TestMacroF1 float64 `json:"test_macro_f1"`
			Test        []struct{ ID, Pred string }
		}
	}
	b, err := os.ReadFile("../foils/testdata/sklearn_parity.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &fixture); err != nil {
		t.Fatal(err)
	}
	ref := fixture.Full
	f := newFixture(t)
	res, err := f.run(t, false, "--model", classify.Baseline, "--corpus", "reddit")
	if err != nil {
		t.Fatal(err)
	}
	setup, preds, err := classify.Load(context.Background(), f.st, res.RunID)
	if err != nil || len(preds) != len(ref.Test) {
		t.Fatalf("%d predictions, sklearn %d (%v)", len(preds), len(ref.Test), err)
	}
	if setup.Trained == nil || setup.Trained.C != ref.C {
		t.Fatalf("trained %+v, sklearn chose C = %g", setup.Trained, ref.C)
	}
	// Predictions are stored by text; the corpus order is sklearn's order.
	items, err := corpus.EmbeddedReddit()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]string{}
	for _, p := range preds {
		byID[p.ID] = p.Pred
	}
	same, seen := 0, map[string]int{}
	test := corpus.Split(items, "test")
	for i, it := range test {
		// A comment listed twice is stored as ID#2.
		id := it.ID
		if seen[id]++; seen[id] > 1 {
			id = fmt.Sprintf("%s#%d", id, seen[id])
		}
		if byID[id] == ref.Test[i].Pred {
			same++
		}
	}
	if same < 988 {
		t.Fatalf("%d of %d test predictions equal to sklearn's (want ≥ 988)", same, len(test))
	}
	sc, err := classify.Score(setup, preds, classify.ReportOptions{Resamples: 50, Seed: 1, Level: 0.95})
	if err != nil || math.Abs(sc.MacroF1-ref.TestMacroF1) > 0.005 {
		t.Fatalf("macro-F1 %.4f, sklearn %.4f (%v)", sc.MacroF1, ref.TestMacroF1, err)
	}
	rep, err := classify.Report(setup, preds, classify.ReportOptions{Resamples: 50, Seed: 1, Level: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	var meta string
	for _, m := range rep.Meta {
		if m[0] == "detector" {
			meta = m[1]
		}
	}
	if !strings.Contains(meta, "C = 100 chosen by dev accuracy") || !strings.Contains(meta, "C = 10: 0.8384") {
		t.Fatalf("report's detector line %q", meta)
	}
}

// TestAccuracyIntervalIsWilson: the accuracy's interval is Wilson's score
// interval (the values: its formula in Python with
// statistics.NormalDist().inv_cdf(0.975), as statsmodels'
// proportion_confint(k, n, method="wilson") computes it): 0 of 10 right is
// [0, 27.8 %], not the bootstrap's collapsed [0, 0]; 7 of 10 is
// [39.7 %, 89.2 %].
func TestAccuracyIntervalIsWilson(t *testing.T) {
	for _, c := range []struct {
		right  int
		lo, hi float64
	}{{0, 0, 0.27753279986288915}, {7, 0.39677814746114537, 0.8922087325936989}} {
		var preds []classify.Prediction
		for i := range 10 {
			p := classify.Prediction{ID: fmt.Sprint(i), Gold: "a", Pred: "b"}
			if i < c.right {
				p.Pred = "a"
			}
			preds = append(preds, p)
		}
		sc, err := classify.Score(classify.Setup{Labels: classify.LabelSet{"a", "b"}}, preds, classify.ReportOptions{Resamples: 50, Seed: 1, Level: 0.95})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(sc.AccLo-c.lo) > 1e-9 || math.Abs(sc.AccHi-c.hi) > 1e-9 {
			t.Errorf("%d of 10 right: [%v, %v], want Wilson's [%v, %v]", c.right, sc.AccLo, sc.AccHi, c.lo, c.hi)
		}
	}
}
