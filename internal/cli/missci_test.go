package cli_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fallacylab/fallacylab/bench/missci"
	"github.com/fallacylab/fallacylab/lifecycle"
	"github.com/fallacylab/fallacylab/llm/llmtest"
	"github.com/fallacylab/fallacylab/report"
)

// TestMissciRunEndToEnd scripts a model that names the first gold class of
// every reasoning line of even-numbered arguments and answers unparseably
// otherwise, so P@1 and Arg@1 are known.
func TestMissciRunEndToEnd(t *testing.T) {
	args, _ := missci.Load("dev")
	tpl, _ := missci.Template("gen_cls/p4-connect-D")
	answer := map[string]string{}
	wantLines, wantArgs := 0, 0
	lines := 0
	for i, a := range args {
		for _, l := range a.Lines {
			p, err := missci.Fill("gen_cls/p4-connect-D", tpl, a.Claim, l.Context, a.P0, "")
			if err != nil {
				t.Fatal(err)
			}
			lines++
			if i%2 == 0 {
				answer[p] = "1. Fallacious Premise: \"something\"; Applied Fallacy Class: " + promptName(l.Fallacies[0].Class) + "."
				wantLines++
			} else {
				answer[p] = "I am not sure."
			}
		}
		if i%2 == 0 {
			wantArgs++
		}
	}
	srv := llmtest.New(llmtest.Options{APIKey: "test-key", Respond: func(c llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Text: answer[c.Prompt]}
	}})
	defer srv.Close()
	dir := t.TempDir()
	writeConfig(dir, srv)
	t.Setenv("OPENAI_API_KEY", "test-key")
	out := filepath.Join(dir, "m.json")
	if _, stderr, err := runCLI(t, dir, "missci", "run", "--model", "openai:gpt-4.1", "--split", "dev", "--format", "json", "--out", out, "--max-unusable", "0.6"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if n := len(srv.Ledger()); n != lines {
		t.Fatalf("%d calls for %d reasoning lines", n, lines)
	}
	// The stored run reports again without any call.
	rep2, stderr, err := runCLI(t, dir, "missci", "report", "--k", "2")
	if err != nil || !strings.Contains(rep2, "| 2 | 72 |") || len(srv.Ledger()) != lines {
		t.Fatalf("missci report: %v\n%s\n%s", err, stderr, rep2)
	}
	var rep struct {
		Sections []struct {
			Tables []struct {
				ID   string
				Rows [][]struct{ Value *float64 }
			}
		}
	}
	data, _ := os.ReadFile(out)
	json.Unmarshal(data, &rep)
	row := rep.Sections[0].Tables[0].Rows[0]
	if math.Abs(*row[3].Value-float64(wantLines)/float64(lines)) > 1e-12 || math.Abs(*row[4].Value-float64(wantArgs)/float64(len(args))) > 1e-12 {
		t.Fatalf("P@1 %v (want %v), Arg@1 %v (want %v)", *row[3].Value, float64(wantLines)/float64(lines), *row[4].Value, float64(wantArgs)/float64(len(args)))
	}
}

// promptName is the name the prompts use for a dataset class.
func promptName(c string) string {
	switch c {
	case "Fallacy of Division/Composition":
		return "Fallacy of Composition"
	case "False Dilemma / Affirming the Disjunct":
		return "False Dilemma"
	}
	return c
}

// TestMissciClassifyGoldEndToEnd scripts a classifier that is right on
// every gold premise: accuracy and macro-F1 are 1.
func TestMissciClassifyGoldEndToEnd(t *testing.T) {
	args, _ := missci.Load("dev")
	tpl, _ := missci.Template("cls_with_premise/classify-D")
	answer := map[string]string{}
	for _, u := range missci.GoldPremiseUnits(args) {
		var a missci.Argument
		var l missci.Line
		for _, x := range args {
			for _, y := range x.Lines {
				if y.ID == u.LineID {
					a, l = x, y
				}
			}
		}
		p, _ := missci.Fill("cls_with_premise/classify-D", tpl, a.Claim, l.Context, a.P0, u.Premise)
		answer[p] = "The premise overgeneralises.\nFallacy: " + promptName(u.Gold)
	}
	srv := llmtest.New(llmtest.Options{APIKey: "test-key", Respond: func(c llmtest.Call) llmtest.Reply {
		if c.Model == "gpt-4.1-mini" { // right on every other unit
			if len(c.Prompt)%2 == 0 {
				return llmtest.Reply{Text: "Fallacy: Ambiguity"}
			}
		}
		return llmtest.Reply{Text: answer[c.Prompt]}
	}})
	defer srv.Close()
	dir := t.TempDir()
	writeConfig(dir, srv)
	t.Setenv("OPENAI_API_KEY", "test-key")
	out, stderr, err := runCLI(t, dir, "missci", "run", "--task", "classify-gold", "--model", "openai:gpt-4.1", "--split", "dev")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(out, "| 96 | 1.0000 | 1.0000 |") {
		t.Fatalf("want 96 units, accuracy 1, macro-F1 1:\n%s", out)
	}
	// Two classification runs compare unit by unit, their arguments the
	// clusters; the accuracy compared is the report's.
	mini, stderr, err := runCLI(t, dir, "--max-unusable", "1", "missci", "run", "--task", "classify-gold", "--model", "openai:gpt-4.1-mini", "--split", "dev", "--format", "json")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	miniRep, err := report.FromJSON([]byte(mini))
	if err != nil {
		t.Fatal(err)
	}
	var acc float64
	for _, tb := range miniRep.Tables() {
		for i, c := range tb.Columns {
			if c.Label == "accuracy" && len(tb.Rows) > 0 {
				acc = tb.Rows[0][i].Value
			}
		}
	}
	rep, _ := jsonReport(t, dir, "compare", "1", "2", "--format", "json", "--resamples", "100")
	row := rep.Table("paired").Rows[0]
	if row[0].Text != "accuracy" || row[3].Text != "96 / 96 / 96" || row[4].Value != float64(len(args)) || row[5].Value != 1 ||
		math.Abs(row[6].Value-acc) > 1e-9 || acc <= 0 || acc >= 1 || !strings.HasPrefix(row[9].Text, "sign-flip over arguments") {
		t.Fatalf("compare of two classify-gold runs (the report's accuracy %v): %+v", acc, row)
	}
	// A classification run does not compare with a reconstruction run.
	if _, stderr, err := runCLI(t, dir, "--max-unusable", "1", "missci", "run", "--model", "openai:gpt-4.1", "--split", "dev", "--limit", "3"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if _, _, err := runCLI(t, dir, "compare", "1", "3"); err == nil || !strings.Contains(err.Error(), `arm "3" is a run of Missci reconstruction, arm "1" of classify-gold`) {
		t.Fatalf("classify-gold against a reconstruction: %v", err)
	}
}

// TestMissciEvalEmbedderAndScorer pairs premises through the test server's
// /v1/embeddings and scores them with a scripted scorer endpoint.
func TestMissciEvalEmbedderAndScorer(t *testing.T) {
	srv := llmtest.New(llmtest.Options{APIKey: "test-key"})
	defer srv.Close()
	var scored atomic.Int64
	scorer := scorerServer(t, &scored)
	dir := t.TempDir()
	writeConfig(dir, srv)
	t.Setenv("OPENAI_API_KEY", "test-key")
	args, _ := missci.Load("dev")
	var b strings.Builder
	for _, a := range args {
		for _, l := range a.Lines {
			b.WriteString(`{"id": "` + l.ID + `", "predictions": [{"premise": "` + strings.ReplaceAll(a.Claim, `"`, `'`) + `", "class": "Other"}]}` + "\n")
		}
	}
	p := filepath.Join(dir, "preds.jsonl")
	os.WriteFile(p, []byte(b.String()), 0o644)
	out, stderr, err := runCLI(t, dir, "missci", "eval", "--split", "dev", "--predictions", p, "--embedder", "openai:text-embedding-3-small", "--scorer", scorer.URL)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(out, "72 of 72 lines had no class match and were paired by embedding cosine") ||
		!strings.Contains(out, "| 0.5000 | 0.2500 | – |") {
		t.Fatalf("report:\n%s", out[strings.Index(out, "## Premise quality"):])
	}
	calls, scores := len(srv.Ledger()), scored.Load()
	if calls == 0 || scores == 0 {
		t.Fatalf("the embedder was called %d times, the scorer %d", calls, scores)
	}
	// The embeddings and scores went through the engine: they are in the
	// store's cache, and the same evaluation again calls neither.
	again, stderr, err := runCLI(t, dir, "missci", "eval", "--split", "dev", "--predictions", p, "--embedder", "openai:text-embedding-3-small", "--scorer", scorer.URL)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if n, m := len(srv.Ledger()), scored.Load(); n != calls || m != scores {
		t.Fatalf("the second evaluation made %d more embeddings calls and %d more scorer calls, want none (cached)", n-calls, m-scores)
	}
	if again != out {
		t.Fatal("the evaluation from cached embeddings reads differently")
	}
}

// A --strict run that aborts on an unknown class fails (exit 1, listed as
// failed with the reason), and is never a done run without records: the
// predictions are stored before a run finishes, and a run whose records are
// refused is not done.
func TestMissciStrictAbortFailsTheRun(t *testing.T) {
	_, dir := oneAnswer(t, "1. Fallacious Premise: \"something\"; Applied Fallacy Class: Wishful Numerology.")
	_, _, err := runCLI(t, dir, "missci", "run", "--model", "openai:gpt-4.1", "--split", "dev", "--strict", "--limit", "3")
	if err == nil || !strings.Contains(err.Error(), "Wishful Numerology") {
		t.Fatalf("a strict run with an unknown class: %v", err)
	}
	out, _, err := runCLI(t, dir, "runs", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var runs []struct{ Status, Reason string }
	if err := json.Unmarshal([]byte(out), &runs); err != nil || len(runs) != 1 || runs[0].Status != "failed" || !strings.Contains(runs[0].Reason, "Wishful Numerology") {
		t.Fatalf("the aborted run is stored as %s (%v)", out, err)
	}
	// Without --strict the same answers are a done run with its records.
	if _, stderr, err := runCLI(t, dir, "missci", "run", "--model", "openai:gpt-4.1", "--split", "dev", "--limit", "3", "--max-unusable", "-1"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if rep, _, err := runCLI(t, dir, "runs", "show", "2"); err != nil || !strings.Contains(rep, "done") {
		t.Fatalf("runs show 2: %v\n%s", err, rep)
	}
}

// A limited run, a partial predictions file and the docs' own example are
// subsets: reports, the viewer and studies cover the arguments they hold
// and say "n of N arguments"; raw answers nobody can parse are counted and
// held to --max-unusable, in eval as in a run.
func TestMissciSubsetsAndUnusable(t *testing.T) {
	srv, dir := oneAnswer(t, "1. Fallacious Premise: \"something\"; Applied Fallacy Class: Ambiguity.")
	if out, stderr, err := runCLI(t, dir, "missci", "run", "--model", "openai:gpt-4.1", "--split", "dev", "--limit", "3"); err != nil || !strings.Contains(out, "3 of 30 arguments") {
		t.Fatalf("the report of a --limit 3 run: %v\n%s\n%s", err, out, stderr)
	}
	rep, _, err := runCLI(t, dir, "missci", "report", "--run", "1")
	if err != nil || !strings.Contains(rep, "3 of 30 arguments") {
		t.Fatalf("missci report of a limited run: %v\n%s", err, rep)
	}
	out, stderr, err := runCLI(t, dir, "study", "create", "--run", "1", "--kind", "missci-premise", "--annotators", "a", "--decoys", "1")
	if err != nil {
		t.Fatalf("study of a limited run: %v\n%s", err, stderr)
	}
	items := 0
	fmt.Sscanf(out[strings.Index(out, ":")+1:], "%d items", &items)
	lines := 0
	args, _ := missci.Load("dev")
	calls := map[string]bool{}
	for _, e := range srv.Ledger() {
		calls[e.Call.Prompt] = true
	}
	for _, a := range args {
		for _, l := range a.Lines {
			p, _ := missci.Fill("gen_cls/p4-connect-D", mustTemplate(t, "gen_cls/p4-connect-D"), a.Claim, l.Context, a.P0, "")
			if calls[p] {
				lines++
			}
		}
	}
	if items == 0 || items > lines+1 {
		t.Fatalf("the study holds %d items for the run's %d reconstructed lines (+1 decoy):\n%s", items, lines, out)
	}
	// The docs' example: two lines of one argument of the test split.
	rep, _, err = runCLI(t, dir, "missci", "eval", "--predictions", "../../docs/examples/missci-predictions.jsonl")
	if err != nil || !strings.Contains(rep, "1 of 154 arguments") {
		t.Fatalf("missci eval of the docs' example: %v\n%s", err, rep)
	}
	// Garbage answers: exit 4 over the limit, counted under it.
	var b strings.Builder
	for _, a := range args[:4] {
		for _, l := range a.Lines {
			fmt.Fprintf(&b, "{\"id\": %q, \"answer\": \"no idea\"}\n", l.ID)
		}
	}
	garbage := filepath.Join(dir, "garbage.jsonl")
	os.WriteFile(garbage, []byte(b.String()), 0o644)
	_, _, err = runCLI(t, dir, "missci", "eval", "--split", "dev", "--predictions", garbage, "--max-unusable", "0.1")
	var ee *lifecycle.ExitError
	if !errors.As(err, &ee) || ee.Code != lifecycle.ExitUnusable || !strings.Contains(err.Error(), "could not be parsed") {
		t.Fatalf("unparsable answers in eval: %v", err)
	}
	rep, _, err = runCLI(t, dir, "missci", "eval", "--split", "dev", "--predictions", garbage, "--max-unusable", "-1")
	if err != nil || !strings.Contains(rep, "raw answers could not be parsed") {
		t.Fatalf("no limit: %v\n%s", err, rep)
	}
}

func mustTemplate(t *testing.T, name string) string {
	tpl, err := missci.Template(name)
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

// A run resumes only the run whose plan it is: a sweep of three templates
// whose second failed is resumed (the finished runs of the first and the
// third are not run again, the second's resumed: three runs, not four),
// and an ask with another model or prompt is a run of its own.
func TestResumeMatchesItsOwnRun(t *testing.T) {
	args, _ := missci.Load("dev")
	second := map[string]bool{}
	for _, a := range args[:2] {
		for _, l := range a.Lines {
			p, _ := missci.Fill("gen_cls/p4-connect-L", mustTemplate(t, "gen_cls/p4-connect-L"), a.Claim, l.Context, a.P0, "")
			second[p] = true
		}
	}
	var failing atomic.Bool
	failing.Store(true)
	srv := llmtest.New(llmtest.Options{APIKey: "test-key",
		Respond: func(c llmtest.Call) llmtest.Reply {
			return llmtest.Reply{Text: "1. Fallacious Premise: \"x\"; Applied Fallacy Class: Ambiguity."}
		},
		Fault: func(c llmtest.Call) llmtest.Fault {
			if failing.Load() && second[c.Prompt] {
				return llmtest.BadRequest
			}
			return llmtest.NoFault
		}})
	defer srv.Close()
	dir := t.TempDir()
	writeConfig(dir, srv)
	t.Setenv("OPENAI_API_KEY", "test-key")
	sweep := []string{"missci", "run", "--model", "openai:gpt-4.1", "--split", "dev", "--limit", "2", "--max-unusable", "-1",
		"--template", "gen_cls/p4-connect-D,gen_cls/p4-connect-L,gen_cls/p4-connect-LE"}
	if _, _, err := runCLI(t, dir, sweep...); err == nil {
		t.Fatal("the sweep went through with its second template failing")
	}
	failing.Store(false)
	_, stderr, err := runCLI(t, dir, sweep...)
	if err != nil {
		t.Fatalf("the sweep again: %v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "run 1, made by the same command, is done: not run again") || !strings.Contains(stderr, "resuming run 2") ||
		!strings.Contains(stderr, "run 3, made by the same command, is done: not run again") {
		t.Fatalf("the sweep did not resume:\n%s", stderr)
	}
	out, _, _ := runCLI(t, dir, "runs", "--json")
	var runs []struct{ Name, Status string }
	json.Unmarshal([]byte(out), &runs)
	if len(runs) != 3 {
		t.Fatalf("%d runs for a sweep of three templates: %s", len(runs), out)
	}
	// ask: another prompt is another run, even after an unfinished one.
	failing.Store(true)
	for p := range second {
		runCLI(t, dir, "ask", "openai:gpt-4.1", p) // fails: an unfinished ask run
		break
	}
	failing.Store(false)
	if _, stderr, err := runCLI(t, dir, "ask", "openai:other-model", "another prompt"); err != nil || strings.Contains(stderr, "resuming") {
		t.Fatalf("an ask of another model and prompt resumed the previous one: %v\n%s", err, stderr)
	}
}

// oneAnswer is a test server that gives every call the same answer, and a
// folder configured for it.
func oneAnswer(t *testing.T, text string) (*llmtest.Server, string) {
	t.Helper()
	srv := llmtest.New(llmtest.Options{APIKey: "test-key", Respond: func(llmtest.Call) llmtest.Reply { return llmtest.Reply{Text: text} }})
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	if err := writeConfig(dir, srv); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENAI_API_KEY", "test-key")
	return srv, dir
}

// TestMissciRunEmbeddingAndScoringPhases: --embedder and --scorer are
// phases of the run — priced by the dry run (which calls nothing),
// counted in runs show, their answers stored with the run — and the
// report reads them back without calling anything.
func TestMissciRunEmbeddingAndScoringPhases(t *testing.T) {
	srv := llmtest.New(llmtest.Options{APIKey: "test-key", Respond: func(c llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Text: "1. Fallacious Premise: \"the study proves it for everyone\"; Applied Fallacy Class: Ambiguity."}
	}})
	defer srv.Close()
	var scored atomic.Int64
	scorer := scorerServer(t, &scored)
	dir := t.TempDir()
	writeConfig(dir, srv)
	t.Setenv("OPENAI_API_KEY", "test-key")
	run := []string{"missci", "run", "--model", "openai:gpt-4.1", "--split", "dev", "--limit", "4",
		"--embedder", "openai:text-embedding-3-small", "--scorer", scorer.URL, "--max-unusable", "-1"}
	dry, stderr, err := runCLI(t, dir, append([]string{"--dry-run"}, run...)...)
	if err != nil {
		t.Fatalf("dry run: %v\n%s", err, stderr)
	}
	if !strings.Contains(dry, "embedding") || !strings.Contains(dry, "text-embedding-3-small") || len(srv.Ledger()) != 0 || scored.Load() != 0 {
		t.Fatalf("the dry run does not price the embedding phase, or called something (%d calls, %d scorer calls):\n%s", len(srv.Ledger()), scored.Load(), dry)
	}
	out, stderr, err := runCLI(t, dir, run...)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr)
	}
	embeds := 0
	for _, c := range srv.Ledger() {
		if c.Call.Model == "text-embedding-3-small" {
			embeds++
		}
	}
	if embeds == 0 || scored.Load() == 0 {
		t.Fatalf("the run made %d embeddings calls and %d scorer calls", embeds, scored.Load())
	}
	if !strings.Contains(out, "paired by embedding cosine") || !strings.Contains(out, "| 0.5000 | 0.2500 |") || !strings.Contains(out, "**embedder**: openai:text-embedding-3-small (the run's embedding phase)") {
		t.Fatalf("the run's report does not use its embeddings and scores:\n%s", out)
	}
	show, _, err := runCLI(t, dir, "runs", "show", "1")
	if err != nil || !strings.Contains(show, "embedding") || !strings.Contains(show, "scoring") {
		t.Fatalf("runs show 1 does not show the premise phases: %v\n%s", err, show)
	}
	calls, scores := len(srv.Ledger()), scored.Load()
	rep, stderr, err := runCLI(t, dir, "missci", "report", "--run", "1")
	if err != nil {
		t.Fatalf("report: %v\n%s", err, stderr)
	}
	if len(srv.Ledger()) != calls || scored.Load() != scores {
		t.Fatal("the report called the embedder or the scorer: it reads the run's")
	}
	premises := func(s string) string { return s[strings.Index(s, "## Premise quality"):] }
	if premises(rep) != premises(out) {
		t.Fatalf("the report's premise section differs from the run's:\n%s\n---\n%s", premises(rep), premises(out))
	}
}

// TestMissciConsistencyStoresAndReports (#43): a consistency run is one
// run of two phases — the reconstruction, then the classification of its
// top premises — that stores its classifications, so that `missci report`
// gives later the report the run showed, which says it is of a subset.
func TestMissciConsistencyStoresAndReports(t *testing.T) {
	srv := llmtest.New(llmtest.Options{APIKey: "test-key", Respond: func(c llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Text: "1. Fallacious Premise: \"the study proves it for everyone\"; Applied Fallacy Class: Ambiguity."}
	}})
	defer srv.Close()
	dir := t.TempDir()
	writeConfig(dir, srv)
	t.Setenv("OPENAI_API_KEY", "test-key")
	out, stderr, err := runCLI(t, dir, "missci", "run", "--task", "consistency", "--model", "openai:gpt-4.1", "--split", "dev", "--limit", "3", "--format", "md")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(out, "# Missci consistency") || !strings.Contains(out, "Matches@1") {
		t.Fatalf("the run's report:\n%s", out)
	}
	// A --limit run says its figures are over a subset, as a
	// reconstruction's report does.
	if !strings.Contains(out, "3 of 30 arguments (a subset: every figure is over these)") {
		t.Fatalf("the report of a --limit 3 run does not say it is of a subset:\n%s", out)
	}
	show, _, err := runCLI(t, dir, "runs", "show", "1")
	if err != nil || !strings.Contains(show, "reconstruction") || !strings.Contains(show, "classification") {
		t.Fatalf("runs show 1 does not show both phases: %v\n%s", err, show)
	}
	calls := len(srv.Ledger())
	rep, stderr, err := runCLI(t, dir, "missci", "report", "--run", "1")
	if err != nil {
		t.Fatalf("report: %v\n%s", err, stderr)
	}
	if rep != out || len(srv.Ledger()) != calls {
		t.Fatalf("the stored run's report differs from the run's (or called something):\n%s\n---\n%s", rep, out)
	}
}

// scorerServer is a scorer endpoint (docs/scorer-protocol.md) that gives
// every pair BERTScore 0.5 and NLI-A 0.25, counting its calls.
func scorerServer(t *testing.T, calls *atomic.Int64) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct {
			Pairs []struct{ Reference, Prediction string }
		}
		json.NewDecoder(r.Body).Decode(&req)
		var out struct {
			Scores []map[string]float64 `json:"scores"`
		}
		for range req.Pairs {
			out.Scores = append(out.Scores, map[string]float64{"bertscore": 0.5, "nli_a": 0.25})
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}
