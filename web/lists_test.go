package web_test

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/bench/deflect"
	"github.com/fallacylab/fallacylab/bench/foils"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/sqlite"
)

// The generations list sorts by a column, both ways, keeps its filters on
// the page links, jumps to any page, and exports every filtered row (not
// one page) as CSV and JSONL.
func TestGenerationListSortJumpExport(t *testing.T) {
	st, id, _ := seed(t, []string{"model-a", "model-b"}, 2)
	h := viewer(t, st)
	ids := func(body string) []string {
		var out []string
		for _, m := range regexp.MustCompile(`<a href="/runs/\d+/generations/([^"]+)"><code class="gid">`).FindAllStringSubmatch(body, -1) {
			out = append(out, m[1])
		}
		return out
	}
	_, up, _ := get(t, h, fmt.Sprintf("/runs/%d/generations?model=model-b&sort=id", id))
	_, down, _ := get(t, h, fmt.Sprintf("/runs/%d/generations?model=model-b&sort=id&desc=1", id))
	a, b := ids(up), ids(down)
	if len(a) != 50 || len(b) != 50 || a[0] >= a[1] || b[0] <= b[1] || a[0] == b[0] {
		t.Fatalf("sort by id: ascending starts %v, descending %v", a[:2], b[:2])
	}
	if !strings.Contains(up, `class="sort current"`) || !strings.Contains(up, "desc=1&amp;model=model-b&amp;sort=id") {
		t.Fatal("the current sort is not marked, or its link does not reverse it")
	}
	// Page links and the jump form carry the filters.
	if !strings.Contains(up, `<input type="hidden" name="model" value="model-b">`) || !strings.Contains(up, `name="page"`) {
		t.Fatal("the jump form drops the filters")
	}
	_, p3, _ := get(t, h, fmt.Sprintf("/runs/%d/generations?model=model-b&sort=id&page=3", id))
	if !strings.Contains(p3, `<span class="current">3</span>`) || !strings.Contains(p3, "showing 101–150") {
		t.Fatal("page 3 is not where the jump lands")
	}
	// Export: every filtered row, the whole answer, the consensus. JSONL
	// first: its answers are the stored text, which the CSV must equal.
	total := regexp.MustCompile(`(\d+) rows`).FindStringSubmatch(up)[1]
	_, body, hdr := get(t, h, fmt.Sprintf("/runs/%d/generations?model=model-b&export=jsonl", id))
	n := 0
	stored := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var obj struct {
			GenID     string         `json:"gen_id"`
			Model     string         `json:"model"`
			Response  string         `json:"response"`
			Consensus map[string]any `json:"consensus"`
		}
		if err := json.Unmarshal(sc.Bytes(), &obj); err != nil || obj.Model != "model-b" || len(obj.Consensus) != 8 {
			t.Fatalf("jsonl line %d: %v %+v", n+1, err, obj)
		}
		stored[obj.GenID] = obj.Response
		n++
	}
	if fmt.Sprint(n) != total || !strings.HasPrefix(hdr.Get("Content-Type"), "application/x-ndjson") {
		t.Fatalf("jsonl: %d lines for %s rows", n, total)
	}
	csvOf := func(format string) [][]string {
		code, body, hdr := get(t, h, fmt.Sprintf("/runs/%d/generations?model=model-b&export=%s", id, format))
		if code != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "text/csv") || !strings.Contains(hdr.Get("Content-Disposition"), "attachment") {
			t.Fatalf("%s export: %d %v", format, code, hdr)
		}
		recs, err := csv.NewReader(strings.NewReader(body)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(len(recs)-1) != total || recs[0][0] != "gen_id" || recs[0][8] != "response" || recs[0][len(recs[0])-1] != "fallacy_labeled" {
			t.Fatalf("%s: %d rows for a list of %s; header %v", format, len(recs)-1, total, recs[0])
		}
		for _, r := range recs[1:] {
			if r[1] != "model-b" {
				t.Fatalf("%s row of %s in a model-b list", format, r[1])
			}
		}
		return recs
	}
	// The CSV for programs: every answer byte for byte (a Markdown bullet
	// once gained a ' and pandas read altered text).
	bullets, raw := 0, 0
	for _, r := range csvOf("csv")[1:] {
		if r[8] != stored[r[0]] {
			t.Fatalf("%s: the CSV's answer %q is not the stored %q", r[0], r[8], stored[r[0]])
		}
		if strings.HasPrefix(r[8], "- a Markdown bullet") {
			bullets++
		}
		if strings.HasPrefix(r[8], `=HYPERLINK("http://evil.example/`) {
			raw++
		}
	}
	if bullets == 0 || raw == 0 {
		t.Fatalf("the exact CSV has %d bulleted and %d formula answers: the seed has both", bullets, raw)
	}
	// The CSV for spreadsheets: nothing runs as a formula.
	formulas := 0
	for _, r := range csvOf("spreadsheet")[1:] {
		for _, c := range r {
			if c != "" && strings.ContainsRune("=+-@", rune(c[0])) && strings.Trim(c, "-0123456789.") != "" {
				t.Fatalf("a cell a spreadsheet runs as a formula: %q", c)
			}
			if strings.HasPrefix(c, `'=HYPERLINK("http://evil.example/`) {
				formulas++
			}
		}
	}
	if formulas == 0 {
		t.Fatal("the model's formula is not in the spreadsheet export, neutralised")
	}
	if code, _, _ := get(t, h, fmt.Sprintf("/runs/%d/generations?export=xlsx", id)); code != 400 {
		t.Fatalf("unknown export format: %d", code)
	}
}

// A claim × frame across models shows one column per model, and marks the
// outcome the models do not share (model-a refuses every manipulation
// prompt, model-b none).
func TestAcrossModels(t *testing.T) {
	st, id, _ := seed(t, []string{"model-a", "model-b"}, 2)
	h := viewer(t, st)
	_, list, _ := get(t, h, fmt.Sprintf("/runs/%d/generations?frame=4+explicit+manipulation", id))
	m := regexp.MustCompile(`href="(/runs/\d+/compare\?[^"]+)"`).FindStringSubmatch(list)
	if m == nil {
		t.Fatal("no across-models link on the list")
	}
	link := strings.ReplaceAll(m[1], "&amp;", "&")
	code, body, _ := get(t, h, link)
	if code != 200 || strings.Count(body, "<th>model-a</th>") != 2 || strings.Count(body, "<th>model-b</th>") != 2 {
		t.Fatalf("%s: %d\n%.600s", link, code, body)
	}
	if m := regexp.MustCompile(`<tr class="disagree"><th>refusal</th><td class="n">(\d+) of (\d+)</td><td class="n">0 of \d+</td>`).FindStringSubmatch(body); m == nil || m[1] != m[2] {
		t.Fatalf("refusal differs between the models but is not marked:\n%s", body[strings.Index(body, `id="outcomes"`):][:900])
	}
	if code, _, _ := get(t, h, fmt.Sprintf("/runs/%d/compare?claim=nope&frame=x", id)); code != 404 {
		t.Fatalf("unknown claim: %d", code)
	}
}

// Two audits of one corpus compare item by item: the summary counts the
// shared items per condition, and the list shows only the items whose
// labels differ, each linked to its item page in both runs.
func TestCompareTwoAudits(t *testing.T) {
	st, id1, a := seed(t, []string{"model-a"}, 1)
	b := secondAudit(t, st, a)
	h := viewer(t, st)
	code, body, _ := get(t, h, fmt.Sprintf("/compare?a=%d&b=%d", a, b))
	if code != 200 || !strings.Contains(body, "3 items in both runs; they differ on 1.") {
		t.Fatalf("compare: %d\n%.800s", code, body)
	}
	if !strings.Contains(body, `<tr class="differ"><td><code>native/n1</code>`) || !strings.Contains(body, `href="/runs/`+fmt.Sprint(b)+`/items/native/n1"`) {
		t.Fatal("the differing item is not listed with its links")
	}
	// Against a gold label, each run's cell says whether that run was
	// right: one hit and one miss on the item where they differ.
	row := body[strings.Index(body, `<tr class="differ">`):]
	row = row[:strings.Index(row, "</tr>")]
	if strings.Count(row, `class="hit"`)+strings.Count(row, `class="miss"`) != 2 || !strings.Contains(row, `class="miss"`) {
		t.Fatalf("the differing row does not say which run was right: %s", row)
	}
	// The comparison exports as CSV and JSONL, every shared item.
	code, csv, hdr := get(t, h, fmt.Sprintf("/compare?a=%d&b=%d&export=csv", a, b))
	if lines := strings.Split(strings.TrimSpace(csv), "\n"); code != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "text/csv") || len(lines) != 4 ||
		!strings.HasPrefix(lines[0], fmt.Sprintf("item,text,gold,run_%d,run_%d,right_%d,right_%d,different", a, b, a, b)) {
		t.Fatalf("compare export: %d %s\n%s", code, hdr.Get("Content-Type"), csv)
	}
	if code, jl, _ := get(t, h, fmt.Sprintf("/compare?a=%d&b=%d&export=jsonl", a, b)); code != 200 || strings.Count(jl, "\n") != 3 || !strings.Contains(jl, `"different":true`) {
		t.Fatalf("compare JSONL export: %d\n%s", code, jl)
	}
	if code, _, _ := get(t, h, fmt.Sprintf("/compare?a=%d&b=%d", a, id1)); code != 400 {
		t.Fatalf("runs of two benchmarks: %d", code)
	}
	// #41 item 19: a run compared with itself is refused, and says why.
	if code, body, _ := get(t, h, fmt.Sprintf("/compare?a=%d&b=%d", a, a)); code != 400 || !strings.Contains(body, fmt.Sprintf("a and b are both run %d", a)) {
		t.Fatalf("a run compared with itself: %d\n%.400s", code, body)
	}
	// The item page: the text, the scheme, the label and what it means.
	_, page, _ := get(t, h, fmt.Sprintf("/runs/%d/items/matched/%s", a, url.PathEscape("appeal to authority#1")))
	if !strings.Contains(page, "false positive: called by its source scheme τ") || strings.Contains(page, hostile[1]) {
		t.Fatalf("item page:\n%.800s", page)
	}
	_, items, _ := get(t, h, fmt.Sprintf("/runs/%d/items?cond=matched", a))
	if !strings.Contains(items, `/items/matched/appeal%20to%20authority%231"`) {
		t.Fatal("the items list does not link the item's page with its id escaped")
	}
	// The typed filters match a part of a label, in any case, as the README
	// says of every list (#41 item 19: they matched the whole label only).
	_, part, _ := get(t, h, fmt.Sprintf("/runs/%d/items?cond=matched&label=AUTHORITY", a))
	if !strings.Contains(part, `/items/matched/appeal%20to%20authority%231"`) {
		t.Fatal("label=AUTHORITY finds no appeal to authority item")
	}
}

// Two Missci runs compare line by line; the argument page shows every
// line; "wrong top-1 only" lists only the wrong lines.
func TestMissciCompareAndArgument(t *testing.T) {
	st, _, _ := seed(t, []string{"model-a"}, 1)
	a := missciRun(t, st)
	b := missciRun(t, st)
	h := viewer(t, st)
	code, body, _ := get(t, h, fmt.Sprintf("/compare?a=%d&b=%d", a, b))
	if code != 200 || !strings.Contains(body, "they differ on 0.") || !strings.Contains(body, "100.0 %") {
		t.Fatalf("identical runs: %d\n%.600s", code, body)
	}
	_, wrong, _ := get(t, h, fmt.Sprintf("/runs/%d/arguments?wrong=1", a))
	if strings.Contains(wrong, `<tr class="hit">`) || !strings.Contains(wrong, `<tr class="miss">`) {
		t.Fatal("wrong top-1 only still shows right lines")
	}
	m := regexp.MustCompile(`href="(/runs/\d+/arguments/[^"]+)"`).FindStringSubmatch(wrong)
	if m == nil {
		t.Fatal("no argument page link")
	}
	code, page, _ := get(t, h, m[1])
	if code != 200 || !strings.Contains(page, "Reasoning lines") || !strings.Contains(page, "p0 (the accurate premise)") || strings.Contains(page, hostile[0]) {
		t.Fatalf("argument page %d", code)
	}
}

// secondAudit stores a second, finished audit of the audit run's items
// whose detector makes one false positive the first did not (on the
// native item), and returns its run id.
func secondAudit(t *testing.T, st *sqlite.Store, runID int64) int64 {
	t.Helper()
	ctx := context.Background()
	b, _ := st.StartRun(ctx, store.Run{Name: "foils 2", Benchmark: "foils", Version: "test"})
	audits, err := foils.LoadAudits(ctx, st, runID)
	if err != nil {
		t.Fatal(err)
	}
	other := audits[0]
	other.Detections = append([]foils.Detection(nil), other.Detections...)
	other.Detections[0].Pred = "appeal to nature"
	if err := foils.SaveAudits(ctx, st, b, []foils.AuditRecord{other}); err != nil {
		t.Fatal(err)
	}
	st.FinishRun(ctx, b, store.RunDone)
	return b
}

// TestRunListTellsTwinsApart (#27 item 4): two runs of one name are each
// marked with the other's id in the run list; a run whose name is its own
// is not.
func TestRunListTellsTwinsApart(t *testing.T) {
	st, _, _ := seed(t, []string{"model-a"}, 1)
	ctx := context.Background()
	a, _ := st.StartRun(ctx, store.Run{Name: "foils audit reddit", Benchmark: "foils", Version: "test"})
	b, _ := st.StartRun(ctx, store.Run{Name: "foils audit reddit", Benchmark: "foils", Version: "test"})
	_, body, _ := get(t, viewer(t, st), "/")
	for _, c := range []struct{ id, twin int64 }{{a, b}, {b, a}} {
		want := fmt.Sprintf(`<a href="/runs/%d">foils audit reddit</a> <span class="note twin">(so is run %d)</span>`, c.id, c.twin)
		if !strings.Contains(body, want) {
			t.Fatalf("run %d is not marked as run %d's twin:\n%s", c.id, c.twin, body)
		}
	}
	if strings.Count(body, `class="note twin"`) != 2 {
		t.Fatalf("%d twins marked, want 2", strings.Count(body, `class="note twin"`))
	}
}

// secondDeflect is a second DeflectBench run of run runID's records (the
// viewer compares two runs, never one with itself).
func secondDeflect(t *testing.T, st *sqlite.Store, runID int64) int64 {
	return secondDeflectJudged(t, st, runID, nil)
}

// secondDeflectJudged is secondDeflect with each eval's judge renamed by
// rename (nil: as it was): the same generations judged by another panel.
func secondDeflectJudged(t *testing.T, st *sqlite.Store, runID int64, rename func(string) string) int64 {
	t.Helper()
	ctx := context.Background()
	ds, err := deflect.LoadRecords(ctx, st, runID)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ds.Evals {
		if rename != nil {
			ds.Evals[i].JudgeModel = rename(ds.Evals[i].JudgeModel)
		}
	}
	b, _ := st.StartRun(ctx, store.Run{Name: "deflect again", Benchmark: "deflect", Version: "test"})
	if err := deflect.SaveRecords(ctx, st, b, ds.Gens, ds.Evals); err != nil {
		t.Fatal(err)
	}
	st.FinishRun(ctx, b, store.RunDone)
	return b
}

// TestMissciPlusArgumentsList (#41 item 19): the MissciPlus arguments list
// filters (a search over id and claim, right or not at the first rank),
// sorts by any column, pages, and exports every filtered row.
func TestMissciPlusArgumentsList(t *testing.T) {
	st, _, _ := seed(t, []string{"model-a"}, 1)
	mp, _ := missciplusRuns(t, st)
	h := viewer(t, st)
	_, all, _ := get(t, h, fmt.Sprintf("/runs/%d/arguments?export=csv", mp))
	rows := strings.Split(strings.TrimSpace(all), "\n")
	if len(rows) < 3 || rows[0] != "argument,claim,rank,hit" {
		t.Fatalf("the export of every argument:\n%.400s", all)
	}
	hits := strings.Count(all, ",true\n")
	_, right, _ := get(t, h, fmt.Sprintf("/runs/%d/arguments?hit=yes&export=jsonl", mp))
	if got := strings.Count(right, "\n"); got != hits || strings.Contains(right, `"hit":false`) {
		t.Fatalf("hit=yes kept %d arguments, want the %d right first:\n%.400s", got, hits, right)
	}
	first := strings.SplitN(rows[1], ",", 2)[0]
	code, page, _ := get(t, h, fmt.Sprintf("/runs/%d/arguments?q=%s", mp, url.QueryEscape(first)))
	if code != 200 || !strings.Contains(page, fmt.Sprintf("1 of %d arguments", len(rows)-1)) {
		t.Fatalf("a search for %s: %d\n%.1500s", first, code, page)
	}
	_, sorted, _ := get(t, h, fmt.Sprintf("/runs/%d/arguments?sort=rank&export=csv", mp))
	prev := 0
	for _, line := range strings.Split(strings.TrimSpace(sorted), "\n")[1:] {
		f := strings.Split(line, ",")
		n, err := strconv.Atoi(f[len(f)-2])
		if err != nil {
			n = 1 << 30 // "—": after every rank
		}
		if n < prev {
			t.Fatalf("sorted by rank, %d after %d:\n%.600s", n, prev, sorted)
		}
		prev = n
	}
}
