package cli_test

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/corpus"

	"github.com/fallacylab/fallacylab/bench/foils"
	"github.com/fallacylab/fallacylab/llm/llmtest"
)

// TestFoilsLLMAuditEndToEnd scripts a zero-shot detector whose metrics are
// known: it names the source type of every matched item, the new type of
// every wrong-scheme item, the gold label of every test item except one
// native item it flags and three it answers unparseably.
func TestFoilsLLMAuditEndToEnd(t *testing.T) {
	items, err := corpus.EmbeddedReddit()
	if err != nil {
		t.Fatal(err)
	}
	test := foils.Split(foils.RedditAnnotated(items), "test")
	m, ws, _ := foils.EmbeddedFoils("reddit")
	label := map[string]string{}
	native := 0
	for _, it := range test {
		label[it.Text] = it.Gold
		if it.Gold == foils.None {
			switch native {
			case 0:
				label[it.Text] = "Appeal to nature."
			case 1, 2, 3:
				label[it.Text] = "I cannot classify this."
			}
			native++
		}
	}
	for _, f := range m {
		label[f.Text] = f.Source
	}
	for _, f := range ws {
		label[f.Text] = f.Target
	}
	srv := llmtest.New(llmtest.Options{APIKey: "test-key", Respond: func(c llmtest.Call) llmtest.Reply {
		_, text, _ := strings.Cut(c.Prompt, "Argument: ")
		l, ok := label[text]
		if !ok {
			l = "unknown text"
		}
		return llmtest.Reply{Text: l}
	}})
	defer srv.Close()
	dir := t.TempDir()
	writeConfig(dir, srv)
	t.Setenv("OPENAI_API_KEY", "test-key")
	out := filepath.Join(dir, "audit.json")
	_, stderr, err := runCLI(t, dir, "foils", "audit", "--detector", "llm:openai:detector-model:typed", "--format", "json", "--out", out, "--resamples", "200", "--permutations", "200")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	calls := len(srv.Ledger())
	if calls > len(test)+len(m)+len(ws) {
		t.Fatalf("%d calls for %d items", calls, len(test)+len(m)+len(ws))
	}
	var rep struct {
		Meta     map[string]string
		Sections []struct {
			Tables []struct {
				ID   string
				Rows [][]struct {
					Text  string
					Value *float64
					N     *int
				}
			}
		}
	}
	data, _ := os.ReadFile(out)
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Meta["unparsed predictions"] != "3" {
		t.Fatalf("unparsed: %q", rep.Meta["unparsed predictions"])
	}
	got := map[string]float64{}
	for _, s := range rep.Sections {
		for _, tb := range s.Tables {
			for _, row := range tb.Rows {
				if len(row) > 1 && row[len(row)-1].Value != nil {
					got[tb.ID+"/"+row[0].Text] = *row[len(row)-1].Value
				}
			}
		}
	}
	want := map[string]float64{
		"flag_rates/native none (N): FPR":                            1 / float64(native-3),
		"flag_rates/matched (M): FPR":                                1,
		"gaps/type-specific separation (macro over types, SPEC C.4)": 100,
		"gaps/τ′ margin on WS: P(ŷ = τ′) − P(ŷ = τ) (SPEC C.5)":      100,
	}
	for k, w := range want {
		if math.Abs(got[k]-w) > 1e-9 {
			t.Errorf("%s = %v, want %v", k, got[k], w)
		}
	}
	// A second audit is answered from the cache.
	if _, _, err := runCLI(t, dir, "foils", "audit", "--detector", "llm:openai:detector-model:typed", "--resamples", "50", "--permutations", "50"); err != nil || len(srv.Ledger()) != calls {
		t.Fatalf("re-run made %d new calls (%v)", len(srv.Ledger())-calls, err)
	}
}

func TestFoilsAuditSeedsFromFile(t *testing.T) {
	items, _ := corpus.EmbeddedReddit()
	m, ws, _ := foils.EmbeddedFoils("reddit")
	sets := foils.Sets{Corpus: "reddit", Test: foils.Split(foils.RedditAnnotated(items), "test"), Matched: m, Wrong: ws}
	var b strings.Builder
	b.WriteString("seed,id,label\n")
	for _, seed := range []string{"1", "2"} {
		for _, in := range sets.Inputs() {
			label := "none"
			if seed == "2" && strings.HasPrefix(in.ID, "M:") {
				label = strings.SplitN(strings.TrimPrefix(in.ID, "M:"), "#", 2)[0]
			}
			b.WriteString(seed + ",\"" + in.ID + "\"," + label + "\n")
		}
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "preds.csv")
	os.WriteFile(p, []byte(b.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), nil, 0o644)
	// --seeds without a file's predictions is refused before any run is
	// made (it left a failed run behind).
	if _, _, err := runCLI(t, dir, "foils", "audit", "--seeds", "1,2", "--limit", "2"); err == nil || !strings.Contains(err.Error(), "--seeds works with --detector file:") {
		t.Fatalf("--seeds with the tfidf detector: %v", err)
	}
	if list, _, _ := runCLI(t, dir, "runs"); strings.Contains(list, "foils audit") {
		t.Fatalf("a refused --seeds left a run:\n%s", list)
	}
	out, stderr, err := runCLI(t, dir, "foils", "audit", "--detector", "file:"+p, "--seeds", "1,2", "--resamples", "50", "--permutations", "50")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(out, "| matched FPR | 50.0 | 70.7 | 0.0, 100.0 |") {
		t.Fatalf("across-seeds table missing or wrong:\n%s", out[strings.Index(out, "## Across seeds"):])
	}
}

// foils audit --limit samples each condition so that its classes are
// present, and an LLM detector pays for exactly the limited set.
func TestFoilsAuditLimit(t *testing.T) {
	srv := llmtest.New(llmtest.Options{APIKey: "test-key", Respond: func(c llmtest.Call) llmtest.Reply { return llmtest.Reply{Text: "none"} }})
	defer srv.Close()
	dir := t.TempDir()
	writeConfig(dir, srv)
	t.Setenv("OPENAI_API_KEY", "test-key")
	out, stderr, err := runCLI(t, dir, "foils", "audit", "--limit", "5", "--detector", "llm:openai:detector-model:typed", "--resamples", "50", "--permutations", "50", "--format", "md")
	if err != nil {
		t.Fatalf("foils audit --limit 5: %v\n%s", err, stderr)
	}
	if n := len(srv.Ledger()); n != 15 || !strings.Contains(out, "--limit 5: 5 test, 5 matched and 5 wrong-scheme items") {
		t.Fatalf("%d calls for 15 items:\n%s", n, out)
	}
	// The offline detector too.
	if _, stderr, err := runCLI(t, dir, "foils", "audit", "--limit", "5", "--resamples", "50", "--permutations", "50"); err != nil {
		t.Fatalf("tfidf --limit 5: %v\n%s", err, stderr)
	}
}

// TestFoilsItemsForAFileDetector: foils items writes every text the audit
// of the same flags labels, with its id (CSV, or JSONL on stdout); labels
// for exactly those ids audit as a file detector (every text flagged: every
// false-positive rate is 1); a predictions file that lacks ids says how
// many.
func TestFoilsItemsForAFileDetector(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), nil, 0o644)
	items := filepath.Join(dir, "items.csv")
	if _, stderr, err := runCLI(t, dir, "foils", "items", "--limit", "5", "--out", items); err != nil || !strings.Contains(stderr, "wrote 15 texts") {
		t.Fatalf("%v\n%s", err, stderr)
	}
	jsonl, _, err := runCLI(t, dir, "foils", "items", "--limit", "5")
	if err != nil || strings.Count(jsonl, "\n") != 15 || !strings.HasPrefix(jsonl, `{"context":`) {
		t.Fatalf("JSONL to stdout: %v\n%.300s", err, jsonl)
	}
	f, _ := os.Open(items)
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) != 16 || strings.Join(rows[0], ",") != "id,text,context" {
		t.Fatalf("%v: %d rows, header %q", err, len(rows), rows[0])
	}
	write := func(name string, rows [][]string) string {
		var b strings.Builder
		b.WriteString("id,label\n")
		for _, r := range rows {
			b.WriteString(`"` + r[0] + `",slippery slope` + "\n")
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(b.String()), 0o644)
		return p
	}
	all := write("all.csv", rows[1:])
	rep, _ := jsonReport(t, dir, "foils", "audit", "--limit", "5", "--detector", "file:"+all, "--resamples", "50", "--permutations", "50", "--format", "json")
	rates := rep.Table("flag_rates")
	if rates == nil || len(rates.Rows) < 2 {
		t.Fatalf("no flag rates: %+v", rates)
	}
	for _, r := range rates.Rows {
		if last := r[len(r)-1]; last.Kind != "prop" || last.Value != 1 {
			t.Fatalf("%s: %+v with every text flagged", r[0].Text, last)
		}
	}
	short := write("short.csv", rows[1:6])
	if _, _, err := runCLI(t, dir, "foils", "audit", "--limit", "5", "--detector", "file:"+short); err == nil || !strings.Contains(err.Error(), "has no prediction for 10 of the 15 items") {
		t.Fatalf("a file lacking ids: %v", err)
	}
}
