package cli_test

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/fallacylab/fallacylab/llm/llmtest"
	"github.com/fallacylab/fallacylab/stats"
	"github.com/fallacylab/fallacylab/web/webtest"
)

// eeeSchemas compiles the pinned Every Eval Ever schemas (aggregate,
// instance).
func eeeSchemas(t *testing.T) (agg, inst *jsonschema.Schema) {
	t.Helper()
	c := jsonschema.NewCompiler()
	for _, name := range []string{"eval.schema.json", "instance_level_eval.schema.json"} {
		f, err := os.Open(filepath.Join("..", "..", "export", "testdata", "eee", name))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource(name, doc); err != nil {
			t.Fatal(err)
		}
	}
	agg, err := c.Compile("eval.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err = c.Compile("instance_level_eval.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return agg, inst
}

// eeeFile is one exported aggregate with its instance lines.
type eeeFile struct {
	agg   map[string]any
	lines []map[string]any
}

// exportEEE exports run id as Every Eval Ever files, validates every file
// against the pinned schemas, checks each aggregate's checksum and row
// count against its instance file, and returns them by model id.
func exportEEE(t *testing.T, dir, id string) map[string]eeeFile {
	t.Helper()
	aggS, instS := eeeSchemas(t)
	out := filepath.Join(dir, "eee-"+id)
	if _, stderr, err := runCLI(t, dir, "runs", "export", id, "--format", "eee", "--out-dir", out, "--resamples", "200"); err != nil {
		t.Fatalf("export of run %s: %v\n%s", id, err, stderr)
	}
	files := map[string]eeeFile{}
	err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return err
		}
		if err := aggS.Validate(doc); err != nil {
			t.Fatalf("%s does not validate:\n%v", p, err)
		}
		var f eeeFile
		if err := json.Unmarshal(raw, &f.agg); err != nil {
			return err
		}
		detail := f.agg["detailed_evaluation_results"].(map[string]any)
		rel, err := filepath.Rel(out, strings.TrimSuffix(p, ".json")+"_samples.jsonl")
		if err != nil || filepath.ToSlash(rel) != detail["file_path"] {
			t.Fatalf("%s names its instances %v, they are at %s", p, detail["file_path"], rel)
		}
		jl, err := os.ReadFile(strings.TrimSuffix(p, ".json") + "_samples.jsonl")
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(bytes.NewReader(jl))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(sc.Bytes()))
			if err != nil {
				return err
			}
			if err := instS.Validate(doc); err != nil {
				t.Fatalf("%s line %d does not validate:\n%v\n%s", p, len(f.lines)+1, err, sc.Text())
			}
			var line map[string]any
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
				return err
			}
			f.lines = append(f.lines, line)
		}
		if float64(len(f.lines)) != detail["total_rows"] {
			t.Fatalf("%s: %v rows said, %d written", p, detail["total_rows"], len(f.lines))
		}
		files[f.agg["model_info"].(map[string]any)["id"].(string)] = f
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("run %s exported no file", id)
	}
	return files
}

// meanOf is the mean of the instance lines' scores of one result, and how
// many there are.
func meanOf(lines []map[string]any, result string) (float64, int) {
	var s float64
	n := 0
	for _, l := range lines {
		if l["evaluation_result_id"] == result {
			s += l["evaluation"].(map[string]any)["score"].(float64)
			n++
		}
	}
	return s / float64(n), n
}

// resultOf is the aggregate's result of that id.
func resultOf(t *testing.T, agg map[string]any, id string) map[string]any {
	t.Helper()
	for _, r := range agg["evaluation_results"].([]any) {
		if m := r.(map[string]any); m["evaluation_result_id"] == id {
			return m
		}
	}
	t.Fatalf("no result %s in %v", id, agg["evaluation_results"])
	return nil
}

// TestExportEEE (#45 item 2): runs of every benchmark that compares item
// by item export as Every Eval Ever files that validate against the
// pinned schema; each aggregate score is the mean of its instance lines,
// inside its interval; an instance's messages are what the provider was
// sent and what it answered; a DeflectBench run's judged metrics name its
// judge panel; a detector that calls no model exports outcomes alone.
func TestExportEEE(t *testing.T) {
	srv, dir := guaranteeEnv(t, func(c llmtest.Call) llmtest.Reply {
		switch {
		case strings.HasPrefix(c.Model, "judge"), strings.HasPrefix(c.Model, "model-"):
			return scripted(c)
		case strings.Contains(c.Prompt, "Fallacious Premise"):
			return llmtest.Reply{Text: "Fallacious Premise: the study proves it for everyone; Applied Fallacy Class: Hasty Generalization"}
		}
		return llmtest.Reply{Text: "appeal to authority"}
	})
	os.WriteFile(filepath.Join(dir, "claims.jsonl"), []byte(fourClaims), 0o644)
	runs := [][]string{
		{"--max-unusable", "1", "classify", "run", "--model", "openai:gpt-4.1-mini", "--limit", "40"},
		{"deflect", "run", "--models", "openai:model-a,openai:model-b", "--judges", "anthropic:judge-a,gemini:judge-b", "--samples", "2", "--claims", filepath.Join(dir, "claims.jsonl")},
		{"foils", "audit", "--limit", "20", "--resamples", "50", "--permutations", "50"},
		{"foils", "audit", "--limit", "20", "--detector", "llm:openai:detector-model:typed", "--resamples", "50", "--permutations", "50"},
		{"missci", "run", "--model", "openai:gpt-4.1", "--split", "dev", "--max-unusable", "0.6"},
		{"missciplus", "run", "--subtask", "2", "--ranker", "random", "--seeds", "1"},
		{"mafalda", "run", "--model", "openai:gpt-4.1-mini", "--limit", "3", "--data-dir", sharedDataDir(t)},
	}
	for _, r := range runs {
		if _, stderr, err := runCLI(t, dir, r...); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(r, " "), err, stderr)
		}
	}
	asked := map[string]bool{}
	for _, e := range srv.Ledger() {
		asked[e.Call.Prompt] = true
	}

	// classify: one text per line, its prompt and answer as sent.
	f := exportEEE(t, dir, "1")["openai/gpt-4.1-mini"]
	mean, n := meanOf(f.lines, "accuracy")
	res := resultOf(t, f.agg, "accuracy")
	sd := res["score_details"].(map[string]any)
	ci := sd["uncertainty"].(map[string]any)["confidence_interval"].(map[string]any)
	if n != 40 || math.Abs(sd["score"].(float64)-mean) > 1e-12 || ci["lower"].(float64) > mean || ci["upper"].(float64) < mean {
		t.Fatalf("classify: %d lines of mean %v; aggregate %v", n, mean, sd)
	}
	// The accuracy is a rate of independent texts: Wilson's interval, as
	// the run's report gives it (the bootstrap's is a point at 0 and 1).
	if w, _ := stats.Prop(int(math.Round(mean*40)), 40, 0.95, stats.Wilson); ci["lower"] != w.Lo || ci["upper"] != w.Hi ||
		!strings.HasPrefix(ci["method"].(string), "Wilson") {
		t.Fatalf("classify: accuracy interval %v, want Wilson's [%v, %v]", ci, w.Lo, w.Hi)
	}
	for _, l := range f.lines {
		in, out := l["input"].(map[string]any)["raw"].(string), l["output"].(map[string]any)["raw"].([]any)
		extracted := l["answer_attribution"].([]any)[0].(map[string]any)["extracted_value"]
		if !asked[in] || len(out) != 1 || out[0] != "appeal to authority" || extracted != "appeal to authority" {
			t.Fatalf("classify line: input %q (sent: %v), output %v", in, asked[in], out)
		}
	}

	// DeflectBench: one file per generator model, the judges named.
	d := exportEEE(t, dir, "2")
	if len(d) != 2 {
		t.Fatalf("deflect: %d files, want one per model", len(d))
	}
	for id, f := range d {
		res := resultOf(t, f.agg, "refusal")
		judges := res["metric_config"].(map[string]any)["llm_scoring"].(map[string]any)["judges"].([]any)
		var names []string
		for _, j := range judges {
			names = append(names, j.(map[string]any)["model_info"].(map[string]any)["id"].(string))
		}
		if strings.Join(names, ",") != "anthropic/judge-a,gemini/judge-b" {
			t.Fatalf("deflect %s: judges %v", id, names)
		}
		mean, n := meanOf(f.lines, "refusal")
		if n != 4*15*2 || math.Abs(res["score_details"].(map[string]any)["score"].(float64)-mean) > 1e-12 {
			t.Fatalf("deflect %s: %d refusal lines of mean %v; aggregate %v", id, n, mean, res["score_details"])
		}
		// A claim's generations are correlated: the claim bootstrap.
		if m := res["score_details"].(map[string]any)["uncertainty"].(map[string]any)["confidence_interval"].(map[string]any)["method"]; m != "percentile cluster bootstrap over claims" {
			t.Fatalf("deflect %s: refusal interval by %v", id, m)
		}
	}

	// Foils: the TF-IDF detector calls no model; the LLM detector's lines
	// carry its calls.
	for id, wantCalls := range map[string]bool{"3": false, "4": true} {
		for _, f := range exportEEE(t, dir, id) {
			for _, l := range f.lines {
				has := l["input"].(map[string]any)["raw"] != ""
				if has != wantCalls {
					t.Fatalf("foils run %s: a line with calls %v, want %v: %v", id, has, wantCalls, l)
				}
			}
			if lib := resultOf(t, f.agg, "native_FPR")["metric_config"].(map[string]any); lib["lower_is_better"] != true {
				t.Fatalf("foils: a false-positive rate is lower-is-better: %v", lib)
			}
		}
	}

	// Missci, MissciPlus, MAFALDA and an imported inspect log export
	// too; a MAFALDA text is asked sentence by sentence: its lines carry
	// every sentence's call as turns.
	if _, stderr, err := runCLI(t, dir, "runs", "export", "1", "--format", "inspect", "--out", filepath.Join(dir, "one.eval")); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if _, stderr, err := runCLI(t, dir, "runs", "import", "--format", "inspect", filepath.Join(dir, "one.eval")); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, id := range []string{"5", "6", "7", "8"} {
		for _, f := range exportEEE(t, dir, id) {
			if len(f.lines) == 0 {
				t.Fatalf("run %s: no instance", id)
			}
			if id != "7" {
				continue
			}
			for _, l := range f.lines {
				msgs, _ := l["messages"].([]any)
				if l["interaction_type"] != "multi_turn" || len(msgs) < 4 || len(msgs)%2 != 0 || !asked[msgs[0].(map[string]any)["content"].(string)] {
					t.Fatalf("MAFALDA line: %v", l)
				}
			}
		}
	}
	// The same run exports to the same bytes.
	a, _ := os.ReadFile(firstJSON(t, filepath.Join(dir, "eee-1")))
	os.RemoveAll(filepath.Join(dir, "eee-1"))
	exportEEE(t, dir, "1")
	if b, _ := os.ReadFile(firstJSON(t, filepath.Join(dir, "eee-1"))); !bytes.Equal(a, b) {
		t.Fatal("a second export of the same run differs")
	}
	// The schema has teeth: a line without its evaluation fails.
	_, instS := eeeSchemas(t)
	line := f.lines[0]
	delete(line, "evaluation")
	raw, _ := json.Marshal(line)
	doc, _ := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if instS.Validate(doc) == nil {
		t.Fatal("an instance line without its evaluation validates")
	}
	// eee without a folder is refused.
	if _, _, err := runCLI(t, dir, "runs", "export", "1", "--format", "eee"); err == nil || !strings.Contains(err.Error(), "--out-dir") {
		t.Fatalf("eee without --out-dir: %v", err)
	}
}

// sharedDataDir is ../shared/data, where CI keeps the benchmarks' data
// (the test is skipped without it outside CI).
func sharedDataDir(t *testing.T) string {
	d, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "data"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(d, "mafalda")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no MAFALDA data at %s", d)
		}
		t.Skip("no ../shared/data")
	}
	return d
}

// firstJSON is the first aggregate file under dir.
func firstJSON(t *testing.T, dir string) string {
	var out string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && out == "" && strings.HasSuffix(p, ".json") {
			out = p
		}
		return err
	})
	if out == "" {
		t.Fatalf("no aggregate under %s", dir)
	}
	return out
}

// inspectSchema compiles inspect_ai's EvalLog schema from its pinned
// OpenAPI document.
func inspectSchema(t *testing.T) *jsonschema.Schema { return inspectSchemaNamed(t, "EvalLog") }

// inspectSchemaNamed compiles one of the pinned OpenAPI document's
// schemas (EvalLog, EvalSample, EvalSampleSummary).
func inspectSchemaNamed(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "export", "testdata", "inspect", "inspect-openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("inspect-openapi.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("inspect-openapi.json#/components/schemas/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// exportInspect exports run id as inspect logs, validates each against
// inspect's schema and returns them by model.
func exportInspect(t *testing.T, dir, id string) map[string]map[string]any {
	t.Helper()
	s := inspectSchema(t)
	out := filepath.Join(dir, "inspect-"+id)
	if _, stderr, err := runCLI(t, dir, "runs", "export", id, "--format", "inspect", "--log-format", "json", "--out-dir", out, "--resamples", "200"); err != nil {
		t.Fatalf("export of run %s: %v\n%s", id, err, stderr)
	}
	logs := map[string]map[string]any{}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(out, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(doc); err != nil {
			t.Fatalf("%s does not validate against inspect's EvalLog:\n%v", e.Name(), err)
		}
		var log map[string]any
		if err := json.Unmarshal(raw, &log); err != nil {
			t.Fatal(err)
		}
		logs[log["eval"].(map[string]any)["model"].(string)] = log
	}
	return logs
}

// TestExportInspect (#45 item 1): a classify, a DeflectBench and a
// MissciPlus run export as inspect_ai eval logs that validate against
// inspect's own schema (pinned); a sample's input and messages are what
// the provider was sent and answered, its scores are the item's
// outcomes, and the results' mean is their mean.
func TestExportInspect(t *testing.T) {
	dir, asked := exportRuns(t)
	log := exportInspect(t, dir, "1")["openai/gpt-4.1-mini"]
	samples := log["samples"].([]any)
	var sum float64
	for _, x := range samples {
		s := x.(map[string]any)
		msgs := s["messages"].([]any)
		user, answer := msgs[0].(map[string]any), msgs[len(msgs)-1].(map[string]any)
		if !asked[user["content"].(string)] || answer["content"] != "appeal to authority" || len(s["events"].([]any)) != 1 {
			t.Fatalf("sample %v: messages %v", s["id"], msgs)
		}
		acc := s["scores"].(map[string]any)["accuracy"].(map[string]any)
		if acc["answer"] != "appeal to authority" {
			t.Fatalf("sample %v: the accuracy score's answer is %v, not the parsed label", s["id"], acc["answer"])
		}
		sum += acc["value"].(float64)
	}
	score := log["results"].(map[string]any)["scores"].([]any)[0].(map[string]any)
	mean := score["metrics"].(map[string]any)["mean"].(map[string]any)["value"].(float64)
	if len(samples) != 30 || math.Abs(mean-sum/30) > 1e-12 || log["status"] != "success" {
		t.Fatalf("%d samples, mean %v of %v; status %v", len(samples), mean, sum/30, log["status"])
	}
	d := exportInspect(t, dir, "2")
	if len(d) != 2 || d["openai/model-a"] == nil {
		t.Fatalf("deflect logs: %v", len(d))
	}
	for _, l := range d {
		if n := len(l["samples"].([]any)); n != 4*15*2 {
			t.Fatalf("deflect: %d samples", n)
		}
		// Each judge's rubric fields are scores beside the consensus.
		scores := l["samples"].([]any)[0].(map[string]any)["scores"].(map[string]any)
		for _, k := range []string{"refusal", "anthropic:judge-a refusal", "gemini:judge-b compliance_clean"} {
			if scores[k] == nil {
				t.Fatalf("deflect sample: no score %q in %v", k, scores)
			}
		}
	}
	exportInspect(t, dir, "3")
	checkEvalForm(t, dir, "2", d)
	// The schema has teeth: a log whose sample lacks its messages fails.
	bad := d["openai/model-a"]
	delete(bad["samples"].([]any)[0].(map[string]any), "messages")
	raw, _ := json.Marshal(bad)
	doc, _ := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if inspectSchema(t).Validate(doc) == nil {
		t.Fatal("a sample without messages validates")
	}
}

// exportRuns makes runs 1 (classify, 30 texts), 2 (DeflectBench, two
// models, two judges) and 3 (MissciPlus subtask 2, random ranker) and
// returns their folder and the prompts the provider was sent.
func exportRuns(t *testing.T) (string, map[string]bool) {
	srv, dir := guaranteeEnv(t, func(c llmtest.Call) llmtest.Reply {
		if strings.HasPrefix(c.Model, "judge") || strings.HasPrefix(c.Model, "model-") {
			return scripted(c)
		}
		return llmtest.Reply{Text: "appeal to authority"}
	})
	os.WriteFile(filepath.Join(dir, "claims.jsonl"), []byte(fourClaims), 0o644)
	for _, r := range [][]string{
		{"--max-unusable", "1", "classify", "run", "--model", "openai:gpt-4.1-mini", "--limit", "30"},
		{"deflect", "run", "--models", "openai:model-a,openai:model-b", "--judges", "anthropic:judge-a,gemini:judge-b", "--samples", "2", "--claims", filepath.Join(dir, "claims.jsonl")},
		{"missciplus", "run", "--subtask", "2", "--ranker", "random", "--seeds", "1"},
	} {
		if _, stderr, err := runCLI(t, dir, r...); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(r, " "), err, stderr)
		}
	}
	asked := map[string]bool{}
	for _, e := range srv.Ledger() {
		asked[e.Call.Prompt] = true
	}
	return dir, asked
}

// checkEvalForm exports run id in inspect's .eval form and checks each
// container against the JSON form of the same log (json, by model): its
// header is the log without samples and validates as an EvalLog, each
// sample is the JSON form's and validates as an EvalSample, and the
// summaries name every sample (byModel: the JSON form's logs).
func checkEvalForm(t *testing.T, dir, id string, byModel map[string]map[string]any) {
	t.Helper()
	out := filepath.Join(dir, "eval-"+id)
	if _, stderr, err := runCLI(t, dir, "runs", "export", id, "--format", "inspect", "--out-dir", out, "--resamples", "200"); err != nil {
		t.Fatalf("export of run %s: %v\n%s", id, err, stderr)
	}
	schema := func(name string) *jsonschema.Schema { return inspectSchemaNamed(t, name) }
	logS, sampleS, summaryS := schema("EvalLog"), schema("EvalSample"), schema("EvalSampleSummary")
	entries, _ := os.ReadDir(out)
	if len(entries) != len(byModel) {
		t.Fatalf("%d .eval files for %d models", len(entries), len(byModel))
	}
	for _, e := range entries {
		zr, err := zip.OpenReader(filepath.Join(out, e.Name()))
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		members := map[string]any{}
		for _, m := range zr.File {
			r, err := m.Open()
			if err != nil {
				t.Fatal(err)
			}
			v, err := jsonschema.UnmarshalJSON(r)
			r.Close()
			if err != nil {
				t.Fatalf("%s %s: %v", e.Name(), m.Name, err)
			}
			members[m.Name] = v
		}
		zr.Close()
		header, ok := members["header.json"].(map[string]any)
		if !ok || members["_journal/start.json"] == nil {
			t.Fatalf("%s: no header.json or _journal/start.json", e.Name())
		}
		if err := logS.Validate(header); err != nil {
			t.Fatalf("%s header.json: %v", e.Name(), err)
		}
		whole := byModel[header["eval"].(map[string]any)["model"].(string)]
		samples := whole["samples"].([]any)
		for _, x := range samples {
			s := x.(map[string]any)
			m := members[fmt.Sprintf("samples/%s_epoch_1.json", s["id"])]
			if m == nil {
				t.Fatalf("%s: no member for sample %v", e.Name(), s["id"])
			}
			if err := sampleS.Validate(m); err != nil {
				t.Fatalf("%s sample %v: %v", e.Name(), s["id"], err)
			}
			if !reflect.DeepEqual(normal(t, m), normal(t, s)) {
				t.Fatalf("%s: sample %v differs from the JSON form's", e.Name(), s["id"])
			}
		}
		sums, _ := members["summaries.json"].([]any)
		if len(sums) != len(samples) {
			t.Fatalf("%s: %d summaries, %d samples", e.Name(), len(sums), len(samples))
		}
		for _, x := range sums {
			if err := summaryS.Validate(x); err != nil {
				t.Fatalf("%s summary: %v", e.Name(), err)
			}
		}
	}
}

// normal is v as encoding/json reads it back (numbers as float64).
func normal(t *testing.T, v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestImportInspectLogs (#45 item 1): two classify runs exported as
// inspect logs (one .eval, one .json) and imported back are runs whose
// paired comparison equals the originals' (the same items, outcomes and
// clusters: the same estimates, McNemar p and intervals); the viewer lists
// an imported run's samples; its report gives each scorer's mean; the
// same file imported again is the same run; a file that is no inspect log
// is refused with its name.
func TestImportInspectLogs(t *testing.T) {
	answers := map[string]string{"gpt-4.1-mini": "appeal to authority", "gpt-4.1": "none"}
	_, dir := guaranteeEnv(t, func(c llmtest.Call) llmtest.Reply { return llmtest.Reply{Text: answers[c.Model]} })
	for _, m := range []string{"gpt-4.1-mini", "gpt-4.1"} {
		if _, stderr, err := runCLI(t, dir, "--max-unusable", "1", "classify", "run", "--model", "openai:"+m, "--limit", "60"); err != nil {
			t.Fatalf("%s: %v\n%s", m, err, stderr)
		}
	}
	a, b := filepath.Join(dir, "a.eval"), filepath.Join(dir, "b.json")
	for id, out := range map[string]string{"1": a, "2": b} {
		if _, stderr, err := runCLI(t, dir, "runs", "export", id, "--format", "inspect", "--out", out); err != nil {
			t.Fatalf("export %s: %v\n%s", id, err, stderr)
		}
	}
	for _, f := range []string{a, b} {
		if _, stderr, err := runCLI(t, dir, "runs", "import", "--format", "inspect", f); err != nil {
			t.Fatalf("import %s: %v\n%s", f, err, stderr)
		}
	}
	orig, _ := jsonReport(t, dir, "compare", "1", "2", "--format", "json", "--resamples", "300")
	imp, _ := jsonReport(t, dir, "compare", "3", "4", "--format", "json", "--resamples", "300")
	o, i := orig.Table("paired").Rows[0], imp.Table("paired").Rows[0]
	if len(o) != len(i) || o[0].Text != i[0].Text {
		t.Fatalf("imported %+v, original %+v", i, o)
	}
	for k := 3; k < len(o); k++ { // the arms' labels (columns 1–2) name other runs
		if fmt.Sprint(o[k]) != fmt.Sprint(i[k]) {
			t.Fatalf("column %d: imported %+v, original %+v", k, i[k], o[k])
		}
	}
	// The same file again is the same run; the report and the list.
	if out, stderr, err := runCLI(t, dir, "runs", "import", "--format", "inspect", a); err != nil || !strings.Contains(stderr, "run 3, made by the same command, is done") || !strings.HasPrefix(out, "run 3:") {
		t.Fatalf("a second import of the same file: %v\n%s\n%s", err, out, stderr)
	}
	rep, _ := jsonReport(t, dir, "inspect-log", "report", "--run", "3", "--format", "json", "--resamples", "100")
	if row := rep.Table("scores").Rows[0]; row[0].Text != "accuracy" || row[1].Value != 60 {
		t.Fatalf("the imported run's report: %+v", row)
	}
	viewer := viewerOf(t, dir)
	page := webtest.Visitor(viewer)("GET", "/runs/3/records", nil)
	if page.Code != 200 || !strings.Contains(page.Body.String(), "appeal to authority") || strings.Count(page.Body.String(), "<tr") < 21 {
		t.Fatalf("the viewer's list of the imported samples: %d\n%.2000s", page.Code, page.Body.String())
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"version": 2}`), 0o644)
	if _, _, err := runCLI(t, dir, "runs", "import", "--format", "inspect", bad); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Fatalf("a file that is no inspect log: %v", err)
	}
}
