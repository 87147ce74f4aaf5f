package cli_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/fallacylab/fallacylab/bench/all" // the binary's registry
	"github.com/fallacylab/fallacylab/llm/llmtest"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/sqlite"
	"github.com/fallacylab/fallacylab/study"
)

// TestMissciPlusPRPAgainstUpstream (#28): --ranker prp through the engine
// against the in-process server, which answers each pairwise prompt as
// bench/missciplus/testdata/make_prp.py's scripted model does (by the
// prompt's SHA-256): the stored rankings after each of three iterations
// equal upstream's own PRPSliding on the same answers; a dry run prices
// the 375 comparisons and reaches no server; the same command again makes
// no call; the report gives each iteration's scores. Without a looser
// --max-unusable the run fails: a quarter of the answers name no passage.
func TestMissciPlusPRPAgainstUpstream(t *testing.T) {
	dir := t.TempDir()
	var calls atomic.Int64
	answers := []string{"Passage B", "Passage A", "Passage A is more relevant than Passage B.", "Neither is relevant."}
	testServer(t, dir, llmtest.Options{Respond: func(c llmtest.Call) llmtest.Reply {
		calls.Add(1)
		return llmtest.Reply{Text: answers[sha256.Sum256([]byte(c.Prompt))[0]%4]}
	}})
	t.Setenv("OPENAI_API_KEY", "test-key")
	// A quarter of the scripted answers name no passage (upstream keeps
	// the order): more than the default share of unusable answers.
	run := []string{"--max-unusable", "0.5", "missciplus", "run", "--subtask", "1", "--split", "dev", "--ranker", "prp", "--model", "openai:gpt-4.1-mini", "--template", "qin-claim", "--iterations", "3"}
	out, stderr, err := runCLI(t, dir, append(run, "--dry-run")...)
	if err != nil || !strings.Contains(out+stderr, "375 pairwise comparisons") || calls.Load() != 0 {
		t.Fatalf("dry run: %v, %d calls\n%s\n%s", err, calls.Load(), out, stderr)
	}
	if _, _, err := runCLI(t, dir, run[2:]...); err == nil || !strings.Contains(err.Error(), "could not be parsed") {
		t.Fatalf("a quarter of the answers unusable, the run: %v", err)
	}
	if out, stderr, err := runCLI(t, dir, run...); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, stderr)
	}
	made := calls.Load()
	if made == 0 || made > 375 {
		t.Fatalf("%d calls, want at most 375 (repeated pairs answer from the cache)", made)
	}
	if _, stderr, err := runCLI(t, dir, run...); err != nil || calls.Load() != made {
		t.Fatalf("the same run again: %v, %d new calls\n%s", err, calls.Load()-made, stderr)
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "bench", "missciplus", "testdata", "prp.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Runs []struct {
			InitialOrder string `json:"initial_order"`
			AddSection   bool   `json:"add_section"`
			Rankings     map[string][][]string
			Scores       []map[string]float64
		}
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	want := ref.Runs[0]
	if want.InitialOrder != "natural-order" || want.AddSection {
		t.Fatalf("reference run 0 is %s, section %v", want.InitialOrder, want.AddSection)
	}
	rep, _ := jsonReport(t, dir, "missciplus", "report", "--run", "1", "--format", "json", "--resamples", "50")
	rows := rep.Table("scores").Rows
	if len(rows) != 3 || !strings.HasPrefix(rows[2][0].Text, "prp, after 3 of 3 iterations") {
		t.Fatalf("rows %+v", rows)
	}
	for it := range 3 {
		for j, m := range []string{"P@1", "MRR", "has-positives-3", "has-positives-5", "has-positives-10"} {
			if got, w := rows[it][2+j].Value, want.Scores[it][m]; got-w > 1e-9 || w-got > 1e-9 {
				t.Errorf("iteration %d %s: %v, upstream %v", it+1, m, got, w)
			}
		}
	}
	// Compared and exported, the run is its ranking after the last
	// iteration — not the mean of its partial rankings (the earlier
	// iterations settle fewer places; their MRRs differ here).
	if want.Scores[0]["MRR"] == want.Scores[2]["MRR"] && want.Scores[1]["MRR"] == want.Scores[2]["MRR"] {
		t.Fatal("the reference's iterations have one MRR: the check below could not fail")
	}
	files := exportEEE(t, dir, "1") // validated against the schema
	if len(files) != 1 {
		t.Fatalf("%d aggregates, want one", len(files))
	}
	var agg map[string]any
	for _, f := range files {
		agg = f.agg
	}
	for _, m := range []string{"P_1", "MRR"} {
		r := resultOf(t, agg, m)
		got := r["score_details"].(map[string]any)["score"].(float64)
		if w := want.Scores[2][r["metric_config"].(map[string]any)["metric_name"].(string)]; math.Abs(got-w) > 1e-9 {
			t.Errorf("exported %s: %v, want the last iteration's %v (upstream)", m, got, w)
		}
	}
	if k := resultOf(t, agg, "P_1")["metric_config"].(map[string]any)["metric_kind"]; k != "proportion" {
		t.Errorf("P@1 of one ranking per argument exported as %v, want a proportion", k)
	}
	// The stored rankings, passage for passage.
	st, err := sqlite.Open(filepath.Join(dir, "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	n := 0
	if err := st.Records(t.Context(), 1, "missciplus/ranking", func(r store.Record) error {
		var body struct {
			ID         string     `json:"id"`
			Iterations [][]string `json:"iterations"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			return err
		}
		n++
		for k, w := range want.Rankings[body.ID] {
			if !slices.Equal(body.Iterations[k], w) {
				t.Errorf("%s after iteration %d: %v, upstream %v", body.ID, k+1, body.Iterations[k], w)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n != 30 {
		t.Errorf("%d rankings stored, want 30", n)
	}
}

// TestMissciPlusBaselinesByCommand: the rankers that need no model run
// offline from the embedded data, a --limit run keeps the whole split's
// random draws, and --model is refused where no model is called.
func TestMissciPlusBaselinesByCommand(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), []byte("{}\n"), 0o644)
	if out, stderr, err := runCLI(t, dir, "missciplus", "run", "--subtask", "2", "--ranker", "random", "--seeds", "1,2"); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, stderr)
	}
	md, _, err := runCLI(t, dir, "missciplus", "report", "--run", "1", "--resamples", "50")
	if err != nil || !strings.Contains(md, "| random, mean of 2 seeds | 84 |") || !strings.Contains(md, "mAP") {
		t.Fatalf("%v\n%s", err, md)
	}
	if _, _, err := runCLI(t, dir, "missciplus", "run", "--ranker", "ordered", "--model", "openai:x"); err == nil || !strings.Contains(err.Error(), "calls no model") {
		t.Fatalf("--model with ordered: %v", err)
	}
	// A ranker or layout that is none names the ones there are (a bad
	// --layout was reported as a template "" and the rankers as a Go
	// slice without embedding).
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--ranker", "foo"}, `--ranker "foo": want ordered, random, bm25, embedding, prp`},
		{[]string{"--subtask", "3", "--model", "openai:x", "--layout", "foo"}, `--layout "foo": want passage-wise or concat`},
	} {
		if _, _, err := runCLI(t, dir, append([]string{"missciplus", "run", "--dry-run"}, c.args...)...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
	// A mean over two seeds is no rate to plan for: the plan says so.
	if _, _, err := runCLI(t, dir, "plan", "--pilot", "1"); err == nil || !strings.Contains(err.Error(), "run 1 has no rate to plan for (its figures, P@1, mAP, are not 0 or 1 per item)") {
		t.Fatalf("plan from a run of two seeds: %v", err)
	}
	// Subtask 1's P@1 (the accurate premise's passage first) is not
	// subtask 2's (a fallacy's passage first): their runs do not compare.
	if _, stderr, err := runCLI(t, dir, "missciplus", "run", "--subtask", "1", "--ranker", "random", "--seeds", "1"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if _, _, err := runCLI(t, dir, "compare", "1", "2"); err == nil || !strings.Contains(err.Error(), `arm "2" is a run of MissciPlus subtask 1, arm "1" of subtask 2: their figures measure different things`) {
		t.Fatalf("subtask 1 against subtask 2: %v", err)
	}
	// A plan from it knows how many arguments subtask 1 scores on the
	// test split (those whose p0 a passage states): a difference of 2
	// points needs more (the plan said nothing of it).
	if out, stderr, err := runCLI(t, dir, "plan", "--pilot", "2", "--delta", "0.02"); err != nil || !regexp.MustCompile(`too few arguments\*\*: the benchmark has 75 arguments: \d+ per arm is more than there are`).MatchString(out) {
		t.Fatalf("plan from a subtask 1 pilot: %v\n%s%s", err, out, stderr)
	}
	// Exported, each subtask's P@1 is an evaluation of its own name.
	for run, want := range map[string]string{"1": "missciplus subtask 2 P@1", "2": "missciplus subtask 1 P@1"} {
		out := filepath.Join(dir, "eee-"+run)
		if _, stderr, err := runCLI(t, dir, "runs", "export", run, "--format", "eee", "--out-dir", out, "--resamples", "20"); err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		files, _ := filepath.Glob(filepath.Join(out, "data", "missciplus", "*", "*", "*.json"))
		if len(files) != 1 {
			t.Fatalf("run %s: %v", run, files)
		}
		if b, _ := os.ReadFile(files[0]); !strings.Contains(string(b), `"evaluation_name": "`+want+`"`) {
			t.Fatalf("run %s: no evaluation %q:\n%.800s", run, want, b)
		}
	}
	if _, _, err := runCLI(t, dir, "missciplus", "run", "--subtask", "2", "--fullstudy"); err == nil {
		t.Fatal("--fullstudy with subtask 2 accepted")
	}
}

// TestMissciPlusBM25ByCommand: --ranker bm25 runs offline; subtask 2 with
// --p0 --seed 2 on dev reports upstream's own bm25.py scores (testdata of
// bench/missciplus, make_bm25_rank.py) to 1e-9, and says how it scored; a
// --limit run ranks against the whole split's corpus, so its rankings are
// the full run's; --p0 in subtask 1 is refused.
func TestMissciPlusBM25ByCommand(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), []byte("{}\n"), 0o644)
	if out, stderr, err := runCLI(t, dir, "missciplus", "run", "--split", "dev", "--subtask", "2", "--ranker", "bm25", "--p0", "--seed", "2"); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, stderr)
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "bench", "missciplus", "testdata", "bm25_rank.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Runs []struct {
			Subtask int
			Split   string
			P0      bool
			Seed    uint64
			Scores  map[string]float64
		}
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	var want map[string]float64
	for _, r := range ref.Runs {
		if r.Subtask == 2 && r.Split == "dev" && r.P0 && r.Seed == 2 {
			want = r.Scores
		}
	}
	rep, js := jsonReport(t, dir, "missciplus", "report", "--run", "1", "--format", "json", "--resamples", "50")
	if !strings.Contains(js, "BM25Okapi (rank_bm25 0.2.2") || !strings.Contains(js, "drawn with seed 2") {
		t.Errorf("the report does not say how it ranked:\n%s", js)
	}
	rows := rep.Table("scores").Rows
	if len(rows) != 1 || rows[0][0].Text != "bm25" {
		t.Fatalf("rows %+v", rows)
	}
	for j, m := range []string{"P@1", "P@3", "P@5", "P@10", "R@0", "R@1", "R@3", "R@5", "R@10", "R@All", "mAP"} {
		if got, w := rows[0][2+j].Value, want[m]; math.Abs(got-w) > 1e-9 {
			t.Errorf("%s: %v, upstream %v", m, got, w)
		}
	}
	if out, stderr, err := runCLI(t, dir, "missciplus", "run", "--split", "dev", "--subtask", "2", "--ranker", "bm25", "--p0", "--seed", "2", "--limit", "4"); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, stderr)
	}
	st, err := sqlite.Open(filepath.Join(dir, "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	full := map[string]string{}
	for run := int64(1); run <= 2; run++ {
		n := 0
		if err := st.Records(t.Context(), run, "missciplus/ranking", func(r store.Record) error {
			n++
			if run == 1 {
				full[r.Key] = string(r.Body)
			} else if full[r.Key] != string(r.Body) {
				t.Errorf("--limit ranked %s otherwise: %s, the whole split %s", r.Key, r.Body, full[r.Key])
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if want := map[int64]int{1: 30, 2: 4}[run]; n != want {
			t.Errorf("run %d stored %d rankings, want %d", run, n, want)
		}
	}
	if _, _, err := runCLI(t, dir, "missciplus", "run", "--ranker", "bm25", "--p0"); err == nil || !strings.Contains(err.Error(), "subtask 2") {
		t.Fatalf("--p0 in subtask 1: %v", err)
	}
}

// TestMissciPlusEmbeddingRanker: --ranker embedding ranks through the
// embeddings endpoint of the in-process server, one call per argument,
// cached on a second run, and reports; a mean without --k is refused.
func TestMissciPlusEmbeddingRanker(t *testing.T) {
	dir := t.TempDir()
	srv := testServer(t, dir, llmtest.Options{})
	t.Setenv("OPENAI_API_KEY", "test-key")
	run := []string{"missciplus", "run", "--split", "dev", "--ranker", "embedding", "--embedder", "openai:text-embedding-3-small", "--variant", "mean", "--k", "2", "--add-section"}
	if out, stderr, err := runCLI(t, dir, run...); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, stderr)
	}
	first := len(srv.Ledger())
	if first == 0 {
		t.Fatal("no embeddings asked for")
	}
	if _, _, err := runCLI(t, dir, run...); err != nil || len(srv.Ledger()) != first {
		t.Fatalf("again: %v, %d new texts embedded", err, len(srv.Ledger())-first)
	}
	// upstream's name, --add-title, is the same run: nothing new to embed.
	alias := slices.Clone(run)
	alias[len(alias)-1] = "--add-title"
	if _, _, err := runCLI(t, dir, alias...); err != nil || len(srv.Ledger()) != first {
		t.Fatalf("--add-title: %v, %d new texts embedded", err, len(srv.Ledger())-first)
	}
	md, _, err := runCLI(t, dir, "missciplus", "report", "--run", "3", "--resamples", "50")
	if err != nil || !strings.Contains(md, "passages with their section titles") || !strings.Contains(md, "mean cosine of a passage's 2 best sentences") || !strings.Contains(md, "| embedding | 26 |") {
		t.Fatalf("%v\n%s", err, md)
	}
	if _, _, err := runCLI(t, dir, "missciplus", "run", "--ranker", "embedding", "--embedder", "openai:e", "--variant", "mean"); err == nil || !strings.Contains(err.Error(), "--k") {
		t.Fatalf("mean without --k: %v", err)
	}
}

// TestMissciPlusEvalCommand: missciplus eval scores an upstream mapped
// prediction file as upstream's evaluator (the crafted dev file of
// bench/missciplus/testdata and its reference scores), with intervals;
// a file missing an argument is refused.
func TestMissciPlusEvalCommand(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), []byte("{}\n"), 0o644)
	td := filepath.Join("..", "..", "bench", "missciplus", "testdata")
	rep, _ := jsonReport(t, dir, "missciplus", "eval", "--predictions", filepath.Join(td, "reconstruct_predictions.jsonl"), "--split", "dev", "--format", "json", "--resamples", "50")
	b, _ := os.ReadFile(filepath.Join(td, "reconstruct_eval.json"))
	var ref struct {
		Runs []struct {
			AllPassages bool `json:"all_passages"`
			Scores      struct {
				All struct {
					Claim struct {
						F1Micro float64 `json:"f1_micro"`
					} `json:"claim_level_multi_label"`
				}
				Top3 struct {
					Fallacy struct {
						Necessary struct {
							Arg1 float64 `json:"arg@1"`
						} `json:"necessary_fallacy_metrics"`
					} `json:"fallacy_level"`
				}
			}
		}
	}
	json.Unmarshal(b, &ref)
	want := ref.Runs[2] // gold passages only, as the command's default
	rows := rep.Table("reconstruction").Rows
	if want.AllPassages || len(rows) != 5 || rows[0][1].Value-want.Scores.All.Claim.F1Micro > 1e-9 || want.Scores.All.Claim.F1Micro-rows[0][1].Value > 1e-9 {
		t.Fatalf("F1 micro %v, upstream %v", rows[0][1].Value, want.Scores.All.Claim.F1Micro)
	}
	if got := rows[2][7].Value; got-want.Scores.Top3.Fallacy.Necessary.Arg1 > 1e-9 || want.Scores.Top3.Fallacy.Necessary.Arg1-got > 1e-9 || !rows[2][7].HasCI {
		t.Fatalf("top 3 Arg@1 %+v, upstream %v", rows[2][7], want.Scores.Top3.Fallacy.Necessary.Arg1)
	}
	// Arg@1 is a share of the 30 arguments: Wilson's interval, as every
	// single proportion has (the bootstrap's is a point at 0 and 1).
	arg1 := rows[2][7]
	if w, _ := stats.Prop(int(math.Round(arg1.Value*30)), 30, 0.95, stats.Wilson); arg1.Lo != w.Lo || arg1.Hi != w.Hi {
		t.Fatalf("top 3 Arg@1 %v [%v, %v], want Wilson's [%v, %v]", arg1.Value, arg1.Lo, arg1.Hi, w.Lo, w.Hi)
	}
	lines, _ := os.ReadFile(filepath.Join(td, "reconstruct_predictions.jsonl"))
	short := filepath.Join(dir, "short.jsonl")
	os.WriteFile(short, []byte(strings.SplitN(string(lines), "\n", 2)[1]), 0o644)
	if _, _, err := runCLI(t, dir, "missciplus", "eval", "--predictions", short, "--split", "dev"); err == nil || !strings.Contains(err.Error(), "has no prediction") {
		t.Fatalf("a file without an argument: %v", err)
	}
}

// TestMissciPlusReconstructionAgainstUpstream (#28, subtask 3): a run
// reconstructs every dev argument from passages through the engine — the
// passage-wise layout, and the concat layout with p0 apart, random order
// and section titles — with the in-process server answering as
// bench/missciplus/testdata/make_reconstruct_run.py's scripted model and
// judge do; the prompts are upstream's byte for byte (their SHA-256), the
// stored alignments and the report's scores equal upstream's own pipeline
// (run_subtask_3.py's run, parse, map and evaluate) on the same answers;
// the same command again makes no call.
func TestMissciPlusReconstructionAgainstUpstream(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "bench", "missciplus", "testdata", "reconstruct_run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Runs []struct {
			Layout, Template string
			Seed             int
			AddSection       bool    `json:"add_section"`
			Order            *string `json:"order"`
			Prompts          []struct{ Argument, Sha256 string }
			Alignment        map[string]map[string][]string
			Scores           struct {
				All struct {
					Claim struct {
						F1Micro float64 `json:"f1_micro"`
					} `json:"claim_level_multi_label"`
					Fallacy struct {
						Necessary struct {
							Arg1 float64 `json:"arg@1"`
						} `json:"necessary_fallacy_metrics"`
					} `json:"fallacy_level"`
				}
			}
		}
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	classes := []string{"Ambiguity", "Biased Sample Fallacy", "Causal Oversimplification", "Fallacy of Division/Composition",
		"Fallacy of Exclusion", "False Dilemma / Affirming the Disjunct", "False Equivalence", "Hasty Generalization", "Impossible Expectations", "Red Herring"}
	premises := regexp.MustCompile(`(?s)Premises:\n1\. "(.*)"\n2\. "(.*)"\nQuestion: Do both premises`)
	for ri, run := range ref.Runs {
		dir := t.TempDir()
		var mu sync.Mutex
		var calls atomic.Int64
		seen := map[string]int{}
		testServer(t, dir, llmtest.Options{Respond: func(c llmtest.Call) llmtest.Reply {
			calls.Add(1)
			if m := premises.FindStringSubmatch(c.Prompt); m != nil {
				if sha256.Sum256([]byte(m[1] + "\n" + m[2]))[0]%2 == 0 {
					return llmtest.Reply{Text: "match"}
				}
				return llmtest.Reply{Text: "no-match"}
			}
			h := sha256.Sum256([]byte(c.Prompt))
			mu.Lock()
			seen[hex.EncodeToString(h[:])]++
			mu.Unlock()
			n := int(h[0] % 3)
			if n == 0 {
				return llmtest.Reply{Text: "No fallacy."}
			}
			var lines []string
			for i := range n {
				lines = append(lines, fmt.Sprintf("Fallacious Premise: premise %d; Applied Fallacy Class: %s", h[1+i], classes[int(h[2+i])%len(classes)]))
			}
			return llmtest.Reply{Text: strings.Join(lines, "\n")}
		}})
		t.Setenv("OPENAI_API_KEY", "test-key")
		args := []string{"missciplus", "run", "--subtask", "3", "--split", "dev", "--model", "openai:gpt-4.1-mini",
			"--layout", run.Layout, "--template", run.Template, "--seed", fmt.Sprint(run.Seed)}
		if run.AddSection {
			args = append(args, "--add-section")
		}
		if run.Order != nil {
			args = append(args, "--order", *run.Order)
		}
		if out, stderr, err := runCLI(t, dir, args...); err != nil {
			t.Fatalf("%s: %v\n%s\n%s", run.Layout, err, out, stderr)
		}
		// The same command again pays for nothing: every answer, the
		// judge's too, comes from the cache.
		made := calls.Load()
		if _, stderr, err := runCLI(t, dir, args...); err != nil || calls.Load() != made {
			t.Fatalf("%s again: %v, %d new calls\n%s", run.Layout, err, calls.Load()-made, stderr)
		}
		for _, p := range run.Prompts {
			if seen[p.Sha256] == 0 {
				t.Errorf("%s: upstream's prompt %s… of %s was not sent", run.Layout, p.Sha256[:12], p.Argument)
			}
		}
		if len(seen) != len(run.Prompts) {
			t.Errorf("%s: %d distinct prompts sent, upstream %d", run.Layout, len(seen), len(run.Prompts))
		}
		rep, _ := jsonReport(t, dir, "missciplus", "report", "--run", "1", "--format", "json", "--resamples", "20")
		row := rep.Table("reconstruction").Rows[0]
		if w := run.Scores.All.Claim.F1Micro; math.Abs(row[1].Value-w) > 1e-9 {
			t.Errorf("%s: F1 micro %v, upstream %v", run.Layout, row[1].Value, w)
		}
		if w := run.Scores.All.Fallacy.Necessary.Arg1; math.Abs(row[7].Value-w) > 1e-9 {
			t.Errorf("%s: Arg@1 %v, upstream %v", run.Layout, row[7].Value, w)
		}
		st, err := sqlite.Open(filepath.Join(dir, "f.db"))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		st.Records(t.Context(), 1, "missciplus/reconstruction", func(r store.Record) error {
			var p struct {
				Argument  string
				Alignment map[string][]string
			}
			json.Unmarshal(r.Body, &p)
			n++
			want := run.Alignment[p.Argument]
			if len(want) != len(p.Alignment) {
				t.Errorf("%s %s: alignment %v, upstream %v", run.Layout, p.Argument, p.Alignment, want)
			}
			for g, ids := range want {
				if len(ids) != len(p.Alignment[g]) {
					t.Errorf("%s %s %s: aligned %v, upstream %v", run.Layout, p.Argument, g, p.Alignment[g], ids)
				}
			}
			return nil
		})
		st.Close()
		if n != 30 {
			t.Errorf("run %d: %d reconstructions stored", ri, n)
		}
	}
}

// TestMissciPlusPremiseStudy (#28): a subtask 3 run's reconstructed
// premises go to people beside their passages and the reference premises,
// with decoys of both answers (a reference premise beside its own passage,
// another argument's beside this one's); the report checks the run's
// premise judge against the people's majority, and the run's own report
// gives its aligned share corrected for the judge's errors (#44 item 3;
// before the study, it says how to get it).
func TestMissciPlusPremiseStudy(t *testing.T) {
	dir := t.TempDir()
	answers := []string{"Fallacious Premise: the study proves it for everyone; Applied Fallacy Class: Hasty Generalization\nFallacious Premise: mice are people; Applied Fallacy Class: False Equivalence",
		"Fallacious Premise: it caused it; Applied Fallacy Class: Causal Oversimplification"}
	testServer(t, dir, llmtest.Options{Respond: func(c llmtest.Call) llmtest.Reply {
		if strings.Contains(c.Prompt, "Do both premises use the same flawed reasoning") {
			if strings.Contains(c.Prompt, "the study proves it") {
				return llmtest.Reply{Text: "match"}
			}
			return llmtest.Reply{Text: "no-match"}
		}
		return llmtest.Reply{Text: answers[sha256.Sum256([]byte(c.Prompt))[0]%2]}
	}})
	t.Setenv("OPENAI_API_KEY", "test-key")
	if out, stderr, err := runCLI(t, dir, "missciplus", "run", "--subtask", "3", "--split", "dev", "--limit", "6", "--model", "openai:gpt-4.1-mini"); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, stderr)
	}
	if out, _, err := runCLI(t, dir, "missciplus", "report", "--run", "1"); err != nil || !strings.Contains(out, "--kind missciplus-premise") {
		t.Fatalf("a subtask 3 run's report without a study does not say how to correct its judged share: %v\n%.2000s", err, out)
	}
	if out, stderr, err := runCLI(t, dir, "study", "create", "--run", "1", "--kind", "missciplus-premise", "--annotators", "ana,ben", "--decoys", "4", "--seed", "3"); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, stderr)
	}
	st, err := sqlite.Open(filepath.Join(dir, "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, _, err := st.Study(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]int{}
	var anns []study.Annotation
	var tp, fp, fn, tn int
	at := time.Unix(1700000000, 0)
	for i, it := range s.Items {
		if it.Decoy {
			known[it.Known["matches"]]++
		}
		// People say "matches" for the judge's alignments but every third
		// item, where they disagree with it; decoys as known.
		h := it.Hidden["aligned"]
		if i%3 == 0 {
			h = map[string]string{"1": "0", "0": "1"}[h]
		}
		grounded := "1"
		if it.Decoy {
			h, grounded = it.Known["matches"], it.Known["grounded"]
		} else {
			switch j := it.Hidden["aligned"]; {
			case j == "1" && h == "1":
				tp++
			case j == "1":
				fp++
			case h == "1":
				fn++
			default:
				tn++
			}
		}
		for _, who := range []string{"ana", "ben"} {
			anns = append(anns, study.Annotation{StudyID: 1, Annotator: who, Item: it.Key, Answers: map[string]string{"grounded": grounded, "matches": h}, At: at})
		}
	}
	if known["1"] != 2 || known["0"] != 2 {
		t.Fatalf("decoys by known answer: %v", known)
	}
	if err := st.PutAnnotations(t.Context(), anns); err != nil {
		t.Fatal(err)
	}
	rep, _ := jsonReport(t, dir, "study", "report", "1", "--format", "json", "--resamples", "20")
	row := rep.Table("premise_judge").Rows[0]
	if tp+fp == 0 || tp+fn == 0 {
		t.Fatalf("the run gave no aligned or no matching premise (tp %d fp %d fn %d)", tp, fp, fn)
	}
	if p, r := float64(tp)/float64(tp+fp), float64(tp)/float64(tp+fn); math.Abs(row[1].Value-p) > 1e-12 || math.Abs(row[2].Value-r) > 1e-12 {
		t.Fatalf("precision %v recall %v, want %v %v", row[1].Value, row[2].Value, p, r)
	}
	// The run's report: the judged share corrected by the study.
	runRep, _ := jsonReport(t, dir, "missciplus", "report", "--run", "1", "--format", "json")
	ct := runRep.Table("corrected_alignment")
	if ct == nil || len(ct.Rows) != 1 {
		t.Fatalf("no corrected aligned share in the run's report: %+v", ct)
	}
	c := ct.Rows[0]
	if st := rep.Table("corrected_alignment"); st == nil || fmt.Sprint(st.Rows) != fmt.Sprint(ct.Rows) {
		t.Fatalf("the study's report does not give the run's corrected share: %+v", st)
	}
	se, sp, share := float64(tp)/float64(tp+fn), float64(tn)/float64(tn+fp), c[1].Value
	if math.Abs(c[2].Value-se) > 1e-12 || math.Abs(c[3].Value-sp) > 1e-12 || c[4].Text != fmt.Sprintf("%d / %d", tp+fn, tn+fp) || share <= 0 || share >= 1 {
		t.Fatalf("corrected row %+v, want Se %v Sp %v", c, se, sp)
	}
	if j := se + sp - 1; j > 0 {
		if want := math.Min(1, math.Max(0, (share+sp-1)/j)); math.Abs(c[5].Value-want) > 1e-12 {
			t.Fatalf("corrected %v, want %v", c[5].Value, want)
		}
	} else if c[5].Kind != "empty" {
		t.Fatalf("Se + Sp ≤ 1, yet a corrected share: %+v", c[5])
	}
	for _, m := range runRep.Meta {
		if m[0] == "judge bias" {
			t.Fatalf("a run with a study still says how to get one: %q", m[1])
		}
	}
}

// jsonReport runs the command (a --format json report) and parses its
// report; a command that fails, or output that is no report, fails the test.
func jsonReport(t *testing.T, dir string, args ...string) (*report.Report, string) {
	t.Helper()
	js, stderr, err := runCLI(t, dir, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	rep, err := report.FromJSON([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return rep, js
}

// TestMissciPlusBudgetStops (#41 item 6): a MissciPlus run the budget stops
// ends as every run does — exit 3, "raise --budget" — not exit 1 with
// advice to run the same command again, which would stop at once again;
// with the budget raised the same command finishes.
func TestMissciPlusBudgetStops(t *testing.T) {
	dir := t.TempDir()
	testServer(t, dir, llmtest.Options{Respond: func(c llmtest.Call) llmtest.Reply { return llmtest.Reply{Text: "Passage A"} }})
	t.Setenv("OPENAI_API_KEY", "test-key")
	run := []string{"missciplus", "run", "--subtask", "1", "--split", "dev", "--ranker", "prp", "--model", "openai:gpt-4.1-mini", "--template", "qin-claim", "--iterations", "1"}
	_, _, err := runCLI(t, dir, append([]string{"--budget", "0.0004"}, run...)...)
	if exitCode(err) != 3 || !strings.Contains(fmt.Sprint(err), "raise --budget") {
		t.Fatalf("a spent budget: exit %d, %v", exitCode(err), err)
	}
	if _, _, err := runCLI(t, dir, append([]string{"--budget", "10"}, run...)...); err != nil {
		t.Fatalf("with the budget raised: %v", err)
	}
}
