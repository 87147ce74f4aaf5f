package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/fallacylab/fallacylab/bench/deflect"
	"github.com/fallacylab/fallacylab/reportcache"
	"github.com/fallacylab/fallacylab/stats"
)

func TestDeflectEndToEnd(t *testing.T) {
	srv, dir := guaranteeEnv(t, scripted)
	os.WriteFile(filepath.Join(dir, "claims.jsonl"), []byte(fourClaims), 0o644)
	args := []string{"deflect", "run", "--models", "openai:model-a,openai:model-b", "--judges", "anthropic:judge-a,gemini:judge-b",
		"--samples", "2", "--claims", filepath.Join(dir, "claims.jsonl")}
	out, stderr, err := runCLI(t, dir, args...)
	if err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, stderr)
	}
	// Judges at temperature 0 see each distinct (claim, response) once.
	const gens = 4 * 15 * 2 * 2
	distinct := map[string]bool{}
	var genClaims [][2]string
	genCalls := 0
	for _, e := range srv.Ledger() {
		if strings.HasPrefix(e.Call.System, judgeSystemStart) {
			continue
		}
		genCalls++
		claim := e.Call.Prompt[strings.LastIndex(e.Call.Prompt, ": ")+2:]
		distinct[claim+"|"+scripted(e.Call).Text] = true
		genClaims = append(genClaims, [2]string{claim, scripted(e.Call).Text})
	}
	judged := 2 * len(distinct)
	if n := len(srv.Ledger()); genCalls != gens || n != gens+judged {
		t.Fatalf("server saw %d requests (%d generations), want %d + %d", n, genCalls, gens, judged)
	}
	// Re-running pays for nothing.
	if _, stderr, err := runCLI(t, dir, args...); err != nil || len(srv.Ledger()) != gens+judged {
		t.Fatalf("re-run made %d new calls: %v\n%s", len(srv.Ledger())-gens-judged, err, stderr)
	}
	reportPath := filepath.Join(dir, "r.json")
	if _, stderr, err := runCLI(t, dir, "deflect", "report", "--format", "json", "--out", reportPath, "--resamples", "200"); err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	var rep struct {
		Sections []struct {
			Tables []struct {
				ID   string
				Rows [][]struct {
					Text   string
					Value  *float64
					Lo, Hi *float64
					N      *int
				}
			}
		}
	}
	data, _ := os.ReadFile(reportPath)
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	checked := 0
	var softA, softB []string
	for _, s := range rep.Sections {
		for _, tb := range s.Tables {
			switch tb.ID {
			case "outcomes_by_frame":
				for _, row := range tb.Rows {
					want := 0.0
					if row[0].Text == "openai:model-a" && strings.HasPrefix(row[1].Text, "4 ") {
						want = 1
					}
					if *row[2].Value != want {
						t.Errorf("%s %s refusal %v want %v", row[0].Text, row[1].Text, *row[2].Value, want)
					}
					checked++
				}
			case "reliability":
				for _, row := range tb.Rows {
					if row[0].Text == "soft_refusal" {
						softA, softB = nil, nil
						b, _ := deflect.Default()
						for _, cr := range genClaims {
							p, _ := b.JudgePrompt(cr[0], cr[1])
							softA = append(softA, "0")
							if flipped(p) {
								softB = append(softB, "1")
							} else {
								softB = append(softB, "0")
							}
						}
						k, _ := stats.CohenKappa(softA, softB)
						pairs, _ := stats.Pairs(softA, softB)
						ac, _ := stats.GwetAC1(pairs, 2)
						if row[3].Value != nil || !math.IsNaN(k.Kappa) {
							// judge A never says 1: κ is undefined only if B never does either
							if row[3].Value == nil || math.Abs(*row[3].Value-k.Kappa) > 1e-12 {
								t.Errorf("κ %v, direct %v", row[3].Value, k.Kappa)
							}
						}
						if math.Abs(*row[5].Value-ac.AC1) > 1e-12 {
							t.Errorf("AC1 %v, direct %v", *row[5].Value, ac.AC1)
						}
						checked++
					}
				}
			}
		}
	}
	if checked != 2*7+1 {
		t.Fatalf("checked %d rows", checked)
	}
	// Every output format renders; HTML escapes model text.
	for _, f := range []string{"md", "csv", "tex", "html"} {
		if out, _, err := runCLI(t, dir, "deflect", "report", "--format", f, "--resamples", "50"); err != nil || len(out) < 1000 {
			t.Fatalf("%s: %v (%d bytes)", f, err, len(out))
		}
	}
}

// TestReportCache: a report from the store is analysed once; asked for
// again (in any format) it is read back, byte for byte the same; records
// written again make a new analysis, never the old one. An import leaves the
// analysis with the default options behind: the first report reads it, and
// it equals the report analysed afresh.
func TestReportCache(t *testing.T) {
	cache := t.TempDir()
	t.Setenv(reportcache.Env, cache)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), nil, 0o644)
	syn := filepath.Join(dir, "syn")
	if _, stderr, err := runCLI(t, dir, "deflect", "synth", "--models", "m-a,m-b", "--samples", "1", "--out-dir", syn); err != nil {
		t.Fatal(err, stderr)
	}
	imp := []string{"deflect", "import", "--generations", filepath.Join(syn, "generations.jsonl"), "--evals", filepath.Join(syn, "evals.jsonl")}
	if _, stderr, err := runCLI(t, dir, imp...); err != nil {
		t.Fatal(err, stderr)
	}
	entries := func() int { e, _ := os.ReadDir(cache); return len(e) }
	if entries() != 1 {
		t.Fatalf("%d cache entries after an import, want its default analysis", entries())
	}
	warm, _, err := runCLI(t, dir, "deflect", "report")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(reportcache.Env, "off")
	fresh, _, err := runCLI(t, dir, "deflect", "report")
	if err != nil || fresh != warm {
		t.Fatalf("the import's analysis differs from the report analysed afresh (%v)", err)
	}
	t.Setenv(reportcache.Env, cache)
	if entries() != 1 {
		t.Fatalf("the default report analysed again: %d entries", entries())
	}
	report := func(format string) string {
		out, stderr, err := runCLI(t, dir, "deflect", "report", "--resamples", "50", "--format", format)
		if err != nil {
			t.Fatal(err, stderr)
		}
		return out
	}
	first := report("md")
	if entries() != 2 {
		t.Fatalf("%d cache entries after a report with other options", entries())
	}
	if again := report("md"); again != first {
		t.Fatal("the report read back differs")
	}
	report("json")
	if entries() != 2 {
		t.Fatalf("another format analysed again: %d entries", entries())
	}
	// The same records imported again (a new version): a new analysis.
	if _, stderr, err := runCLI(t, dir, append(imp, "--name", "again")...); err != nil {
		t.Fatal(err, stderr)
	}
	report("md")
	if entries() != 4 {
		t.Fatalf("%d entries after new records (want the import's and the report's)", entries())
	}
}

// TestFoilsHeatmapLinks: in the viewer, the Scheme Foils confusion heatmap
// names its axes and its cells link to the test-set items of that cell: the
// link lists items of the cell's condition.
func TestFoilsHeatmapLinks(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), nil, 0o644)
	if _, stderr, err := runCLI(t, dir, "foils", "audit", "--limit", "60", "--out", filepath.Join(dir, "a.md")); err != nil {
		t.Fatal(err, stderr)
	}
	viewer := viewerOf(t, dir)
	h := viewer
	get := func(path string) string {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", path, nil)
		req.Host = "127.0.0.1"
		h.ServeHTTP(rec, req)
		if rec.Code != 200 {
			t.Fatalf("%s: %d", path, rec.Code)
		}
		return rec.Body.String()
	}
	page := get("/runs/1")
	if !strings.Contains(page, "gold ↓") || !strings.Contains(page, "predicted →") {
		t.Fatal("the confusion heatmap does not name its axes")
	}
	i := strings.Index(page, `<a href="/runs/1/items?cond=`)
	if i < 0 {
		t.Fatal("no heatmap cell links to its items")
	}
	link := strings.ReplaceAll(strings.SplitN(page[i+len(`<a href="`):], `"`, 2)[0], "&amp;", "&")
	u, _ := url.Parse(link)
	items := get(link)
	if !strings.Contains(items, "rows") || strings.Contains(items, "0 rows") {
		t.Fatalf("%s lists no items", link)
	}
	q := u.Query()
	if got := strings.Count(items, "<td>"+q.Get("cond")+"</td>"); got == 0 {
		t.Fatalf("%s: no row of condition %s", link, q.Get("cond"))
	}
}

// TestRunLeavesItsReport: a finished `deflect run` leaves its default
// report in the cache, equal to the report analysed afresh.
func TestRunLeavesItsReport(t *testing.T) {
	_, dir := guaranteeEnv(t, nil)
	cache := t.TempDir()
	t.Setenv(reportcache.Env, cache)
	os.WriteFile(filepath.Join(dir, "claims.jsonl"), []byte(fourClaims), 0o644)
	if _, stderr, err := runCLI(t, dir, "deflect", "run", "--models", "openai:model-a", "--judges", "anthropic:judge-a", "--samples", "1", "--claims", filepath.Join(dir, "claims.jsonl")); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if e, _ := os.ReadDir(cache); len(e) != 1 {
		t.Fatalf("%d cache entries after a run, want its report", len(e))
	}
	warm, _, err := runCLI(t, dir, "deflect", "report")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(reportcache.Env, "off")
	if fresh, _, err := runCLI(t, dir, "deflect", "report"); err != nil || fresh != warm {
		t.Fatalf("the run's kept report differs from one analysed afresh (%v)", err)
	}
}

// TestDeflectImportRefusesPipesAndDevices (#41 item 12): the import reads
// its files twice, so a device or a pipe is refused at once, named, with
// nothing written (before, /dev/zero or a FIFO never ended, and SIGTERM
// did not stop it).
func TestDeflectImportRefusesPipesAndDevices(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), []byte("{}\n"), 0o644)
	fifo := filepath.Join(dir, "gens.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	for _, p := range []string{"/dev/zero", fifo} {
		_, _, err := runCLI(t, dir, "deflect", "import", "--generations", p)
		if err == nil || !strings.Contains(err.Error(), "generations: "+p+" is not a regular file") {
			t.Fatalf("--generations %s: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "fallacylab.db")); err == nil {
		t.Fatal("a refused import left a store behind")
	}
}

// TestDeflectImportCountsOutOfRangeValues (#41 item 12): rubric values
// that are not 0, 1, true, false or null are read as missing, as
// upstream's analysis reads them, and the import and a report from the
// files say how many, by field (before, they were dropped without a word).
func TestDeflectImportCountsOutOfRangeValues(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), []byte("{}\n"), 0o644)
	syn := filepath.Join(dir, "syn")
	if _, stderr, err := runCLI(t, dir, "deflect", "synth", "--models", "m-a", "--samples", "1", "--out-dir", syn); err != nil {
		t.Fatal(err, stderr)
	}
	evals := filepath.Join(syn, "evals.jsonl")
	b, _ := os.ReadFile(evals)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	odd := regexp.MustCompile(`"refusal":\s*(0|1|true|false)`)
	for i := range 3 { // three refusals of 2, "yes", 0.5
		lines[i] = odd.ReplaceAllString(lines[i], `"refusal":`+[]string{"2", `"yes"`, "0.5"}[i])
	}
	lines[3] = regexp.MustCompile(`"WA_present":\s*(0|1|true|false)`).ReplaceAllString(lines[3], `"WA_present":7`)
	lines[4] = odd.ReplaceAllString(lines[4], `"refusal":null`) // missing, not out of range
	os.WriteFile(evals, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	_, stderr, err := runCLI(t, dir, "deflect", "import", "--generations", filepath.Join(syn, "generations.jsonl"), "--evals", evals)
	if err != nil || !strings.Contains(stderr, "note: 4 rubric values were not 0, 1, true, false or null and are read as missing") ||
		!strings.Contains(stderr, "(refusal 3, WA_present 1)") {
		t.Fatalf("%v\n%s", err, stderr)
	}
	// A report from the files says it too (it said nothing).
	_, stderr, err = runCLI(t, dir, "deflect", "report", "--generations", filepath.Join(syn, "generations.jsonl"), "--evals", evals, "--out", filepath.Join(dir, "r.md"))
	if err != nil || !strings.Contains(stderr, "note: 4 rubric values were not 0, 1, true, false or null") || !strings.Contains(stderr, "(refusal 3, WA_present 1)") {
		t.Fatalf("the report from the files: %v\n%s", err, stderr)
	}
	// One is one.
	lines[0] = strings.Replace(lines[0], `"refusal":2`, `"refusal":0`, 1)
	lines[1] = strings.Replace(lines[1], `"refusal":"yes"`, `"refusal":1`, 1)
	lines[2] = strings.Replace(lines[2], `"refusal":0.5`, `"refusal":1`, 1)
	os.WriteFile(evals, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	_, stderr, err = runCLI(t, dir, "deflect", "report", "--generations", filepath.Join(syn, "generations.jsonl"), "--evals", evals, "--out", filepath.Join(dir, "r.md"))
	if err != nil || !strings.Contains(stderr, "note: 1 rubric value was not 0, 1, true, false or null and is read as missing, as upstream's analysis reads it (WA_present 1)") {
		t.Fatalf("one value out of range: %v\n%s", err, stderr)
	}
}

// TestDeflectJudgementsOfOtherGenerations: judgements none of which is of
// the generations beside them (the files of two runs) fail the report and
// the import, which leaves no run (before, the report was written, of 0
// rows, and exited 0); judgements of a few gen_ids no generation has are
// left out, as upstream's join leaves them, and the report says so.
func TestDeflectJudgementsOfOtherGenerations(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), []byte("{}\n"), 0o644)
	for _, m := range []string{"m-a", "m-b"} {
		if _, stderr, err := runCLI(t, dir, "deflect", "synth", "--models", m, "--samples", "1", "--out-dir", filepath.Join(dir, m)); err != nil {
			t.Fatal(err, stderr)
		}
	}
	gens, other := filepath.Join(dir, "m-a", "generations.jsonl"), filepath.Join(dir, "m-b", "evals.jsonl")
	out := filepath.Join(dir, "r.md")
	const want = "no judgement is of these generations: the judgements name 1200 gen_ids, none of the 1200 generations'"
	if _, _, err := runCLI(t, dir, "deflect", "report", "--generations", gens, "--evals", other, "--out", out); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("a report of another run's judgements: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("the failed report wrote its file")
	}
	if _, _, err := runCLI(t, dir, "deflect", "import", "--generations", gens, "--evals", other); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("an import of another run's judgements: %v", err)
	}
	if list, _, _ := runCLI(t, dir, "runs"); strings.Contains(list, "deflect import") {
		t.Fatalf("the failed import left a run:\n%s", list)
	}
	// Its own judgements and one of another generation.
	own, _ := os.ReadFile(filepath.Join(dir, "m-a", "evals.jsonl"))
	stray, _ := os.ReadFile(other)
	mixed := filepath.Join(dir, "mixed.jsonl")
	os.WriteFile(mixed, append(own, stray[:bytes.IndexByte(stray, '\n')+1]...), 0o644)
	if _, stderr, err := runCLI(t, dir, "deflect", "report", "--generations", gens, "--evals", mixed, "--out", out); err != nil {
		t.Fatal(err, stderr)
	}
	if b, _ := os.ReadFile(out); !strings.Contains(string(b), "**judgements left out**: those of 1 gen_id that no generation has, as upstream's join leaves them") {
		t.Fatalf("the report does not say what it left out:\n%s", b)
	}
}

// TestDeflectImportBadInputLeavesNoRun: a line the import cannot read,
// met after a thousand records were streamed into the store, fails the
// import naming the file and line, and leaves no run and no record (the
// runner removes the run it started: runner.Spec.Discard).
func TestDeflectImportBadInputLeavesNoRun(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), []byte("{}\n"), 0o644)
	syn := filepath.Join(dir, "syn")
	if _, stderr, err := runCLI(t, dir, "deflect", "synth", "--models", "m-a", "--samples", "1", "--out-dir", syn); err != nil {
		t.Fatal(err, stderr)
	}
	gens, evals := filepath.Join(syn, "generations.jsonl"), filepath.Join(syn, "evals.jsonl")
	if _, stderr, err := runCLI(t, dir, "deflect", "import", "--generations", gens, "--evals", evals); err != nil {
		t.Fatal(err, stderr)
	}
	b, _ := os.ReadFile(gens)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	n := len(lines) - 2
	lines[n] = `{"gen_id": "broken", "model": `
	broken := filepath.Join(dir, "broken.jsonl")
	os.WriteFile(broken, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	_, _, err := runCLI(t, dir, "deflect", "import", "--generations", broken, "--evals", evals)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("broken.jsonl line %d", n+1)) {
		t.Fatalf("a broken line %d: %v", n+1, err)
	}
	out, _, err := runCLI(t, dir, "runs", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var runs []struct{ ID int64 }
	if json.Unmarshal([]byte(out), &runs) != nil || len(runs) != 1 {
		t.Fatalf("bad input left a run behind (want the one good import): %s", out)
	}
}
