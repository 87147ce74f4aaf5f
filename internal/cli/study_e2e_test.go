package cli_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/llm/llmtest"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store/sqlite"
	"github.com/fallacylab/fallacylab/web"
	"github.com/fallacylab/fallacylab/web/webtest"
)

// e2eQuestions is the study's YAML: a choice, a multi, a likert and a
// text question asked when the first is "no"; the run's control prompts
// are decoys of both answers.
const e2eQuestions = `show: [answer]
questions:
  - id: on_topic
    text: Does the answer address the prompt?
    choices: [{key: "1", label: "yes"}, {key: "0", label: "no"}]
    positive: "1"
  - id: flaws
    text: Which flaws does it show?
    type: multi
    choices: [{key: none, label: none}, {key: hedge, label: hedging}, {key: vague, label: vague}]
  - id: quality
    text: How good is it?
    type: likert
    scale: 5
    low: poor
    high: excellent
  - id: why
    text: What is off-topic in it?
    type: text
    when: {question: on_topic, is: "0"}
decoys:
  - {column: id, like: "control-on-*", known: {on_topic: "1"}}
  - {column: id, like: "control-off-*", known: {on_topic: "0"}}
`

// e2eAnswers is how each annotator answers real item i (of 12): on topic
// or not, the flaws, the quality. cy straight-lines.
func e2eAnswers(who string, i int) (onTopic, flaws, quality string) {
	switch who {
	case "ana":
		onTopic = map[bool]string{true: "0", false: "1"}[i == 2 || i == 5]
		flaws = []string{"hedge", "none", "hedge,vague"}[i%3]
		quality = strconv.Itoa([]int{5, 4, 2, 3, 5, 1, 4, 4, 3, 2, 5, 3}[i])
	case "ben":
		onTopic = map[bool]string{true: "0", false: "1"}[i == 2 || i == 5 || i == 9]
		flaws = []string{"hedge", "none", "vague", "hedge,vague"}[i%4]
		quality = strconv.Itoa([]int{4, 4, 1, 3, 5, 2, 3, 4, 3, 1, 4, 3}[i])
	default:
		onTopic, flaws, quality = "1", "none", "3"
	}
	return onTopic, flaws, quality
}

// TestStudyEndToEndEqualsPython (#27, "Must show"): a prompt set with
// control prompts is run; a records study with a codebook, questions from
// YAML (choice, multi, likert, conditional text) and the controls as
// decoys of both answers is answered by three annotators in the studio —
// one straight-lining — an item the two others split on is adjudicated,
// and the report leaves the straight-liner out by default. Its figures
// equal an independent computation in Python (scikit-learn, statsmodels
// and loops from the definitions: testdata/study_e2e/make_expected.py)
// on the study's long export, which is kept in testdata beside it.
func TestStudyEndToEndEqualsPython(t *testing.T) {
	dir := t.TempDir()
	testServer(t, dir, llmtest.Options{Respond: func(c llmtest.Call) llmtest.Reply {
		if strings.Contains(c.Prompt, "control-off") {
			return llmtest.Reply{Text: "Bananas are yellow and grow in bunches."}
		}
		return llmtest.Reply{Text: "answer to " + c.Prompt}
	}})
	t.Setenv("OPENAI_API_KEY", "test-key")
	var plan strings.Builder
	for i := range 12 {
		fmt.Fprintf(&plan, "{\"id\": \"q%02d\", \"prompt\": \"real question %d\"}\n", i, i)
	}
	for i := range 3 {
		fmt.Fprintf(&plan, "{\"id\": \"control-on-%d\", \"prompt\": \"control-on question %d\"}\n", i, i)
		fmt.Fprintf(&plan, "{\"id\": \"control-off-%d\", \"prompt\": \"control-off question %d\"}\n", i, i)
	}
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if _, stderr, err := runCLI(t, dir, "prompts", "run", write("plan.jsonl", plan.String()), "--models", "openai:gpt-4.1-mini", "--out", filepath.Join(dir, "out.jsonl")); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	q := write("q.yaml", e2eQuestions)
	cb := write("codebook.txt", "Read the prompt's answer.\n\nSay whether it addresses the prompt, which flaws it shows and how good it is.")
	if out, stderr, err := runCLI(t, dir, "study", "create", "--run", "1", "--kind", "records", "--questions", q, "--codebook", cb,
		"--annotators", "ana,ben,cy", "--decoys", "4", "--practice", "2", "--seed", "7", "--name", "e2e"); err != nil {
		t.Fatalf("%v %s\n%s", err, out, stderr)
	}

	st, err := sqlite.Open(filepath.Join(dir, "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	s, _, err := st.Study(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	decoys := map[string]int{}
	for _, it := range s.Items {
		if it.Decoy {
			decoys[it.Known["on_topic"]]++
		}
	}
	if len(s.Items) != 16 || decoys["1"] != 2 || decoys["0"] != 2 {
		t.Fatalf("%d items, decoys by known answer %v: want 12 sampled and 2 decoys of each answer", len(s.Items), decoys)
	}
	v, err := web.New(st)
	if err != nil {
		t.Fatal(err)
	}
	h := v.Handler()
	textRe := regexp.MustCompile(`(?s)<pre class="text" id="text">(.*?)</pre>`)
	csrfRe := regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)
	for _, a := range s.Annotators {
		do := webtest.Visitor(h)
		do("GET", "/annotate/login/"+a.Token, nil)
		if loc := do("GET", "/annotate", nil).Header().Get("Location"); loc != "/annotate/codebook" {
			t.Fatalf("%s's first stop is %q, not the codebook", a.Name, loc)
		}
		if page := do("GET", "/annotate/codebook", nil).Body.String(); !strings.Contains(page, "which flaws it shows") || !strings.Contains(page, "practise on 2 items") {
			t.Fatalf("the codebook page:\n%s", page)
		}
		for n := 1; n <= len(a.Order); n++ {
			page := do("GET", fmt.Sprintf("/annotate/%d", n), nil).Body.String()
			m := textRe.FindStringSubmatch(page)
			if m == nil {
				t.Fatalf("%s item %d: no text:\n%s", a.Name, n, page)
			}
			text := html.UnescapeString(m[1])
			form := url.Values{"csrf": {csrfRe.FindStringSubmatch(page)[1]}}
			var on, flaws, quality string
			var real int
			switch {
			case strings.Contains(text, "Bananas"):
				on, flaws, quality = "0", "none", "1"
			case strings.Contains(text, "control-on"):
				on, flaws, quality = "1", "none", "5"
			default:
				if _, err := fmt.Sscanf(text, "answer to real question %d", &real); err != nil {
					t.Fatalf("%s item %d shows %q", a.Name, n, text)
				}
				on, flaws, quality = e2eAnswers(a.Name, real)
			}
			if a.Name == "cy" {
				on, flaws, quality = e2eAnswers("cy", 0)
			}
			form.Set("q_on_topic", on)
			form["q_flaws"] = strings.Split(flaws, ",")
			form.Set("q_quality", quality)
			if on == "0" {
				form.Set("q_why", "it drifts")
			}
			if rec := do("POST", fmt.Sprintf("/annotate/%d", n), form); rec.Code != http.StatusSeeOther {
				t.Fatalf("%s item %d: %d\n%s", a.Name, n, rec.Code, rec.Body.String())
			}
		}
	}
	// ana and ben split on real question 9's on_topic: adjudicated "no".
	key := ""
	for _, it := range s.Items {
		if strings.HasSuffix(it.Text, "real question 9") {
			key = it.Key
		}
	}
	form := url.Values{"item": {key}, "n": {"1"}, "q:on_topic": {"0"}}
	req := httptest.NewRequest("POST", "/studies/1/adjudicate", strings.NewReader(form.Encode()))
	req.Host = "127.0.0.1:7411"
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("adjudication: %d %s", rec.Code, rec.Body.String())
	}

	long := filepath.Join(dir, "long.csv")
	if _, stderr, err := runCLI(t, dir, "study", "export", "1", "--format", "long", "--out", long); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	got := e2eLong(t, long)
	kept := filepath.Join("testdata", "study_e2e", "long.csv")
	if os.Getenv("FALLACYLAB_UPDATE_E2E") != "" {
		b, _ := os.ReadFile(long)
		if err := os.WriteFile(kept, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if want := e2eLong(t, kept); got != want {
		t.Fatalf("the study's answers are not the ones the Python figures were computed on (%s):\n%s\nwant\n%s\nIf the study changed on purpose: FALLACYLAB_UPDATE_E2E=1 go test ./internal/cli -run EndToEndEqualsPython, then /usr/bin/python3 internal/cli/testdata/study_e2e/make_expected.py", kept, got, want)
	}

	out, _, err := runCLI(t, dir, "study", "report", "1", "--format", "json", "--resamples", "200")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := report.FromJSON([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join("testdata", "study_e2e", "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		LeftOut     []string `json:"left_out"`
		Adjudicated int      `json:"adjudicated"`
		// Tables: table id → row key (its first key cells joined by |) →
		// its other cells: a number (the cell's value), null (not
		// defined) or [value, lo, hi] (a Wilson interval too).
		Tables  map[string]map[string][]any `json:"tables"`
		Flagged map[string]bool             `json:"straight_lining"`
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	meta := map[string]string{}
	for _, kv := range rep.Meta {
		meta[kv[0]] = kv[1]
	}
	if !strings.HasPrefix(meta["left out"], strings.Join(want.LeftOut, ", ")+": below the decoy bar") {
		t.Errorf("left out: %q, want %v", meta["left out"], want.LeftOut)
	}
	if !strings.HasPrefix(meta["adjudicated"], fmt.Sprintf("%d items", want.Adjudicated)) {
		t.Errorf("adjudicated: %q, want %d", meta["adjudicated"], want.Adjudicated)
	}
	checked := 0
	near := func(g, w float64) bool { return math.Abs(g-w) <= 1e-9 }
	for id, rows := range want.Tables {
		tb := rep.Table(id)
		if tb == nil {
			t.Errorf("the report has no table %s", id)
			continue
		}
		nk := map[string]int{"decoys": 1, "agreement": 1, "ordinal_agreement": 1, "pairs": 2, "weighted_kappa": 2, "human_answers": 2}[strings.TrimSuffix(id, "_with_flagged")]
		have := map[string][]report.Cell{}
		for _, r := range tb.Rows {
			var parts []string
			for _, c := range r[:nk] {
				parts = append(parts, c.Text)
			}
			have[strings.Join(parts, "|")] = r
		}
		if len(have) != len(rows) {
			t.Errorf("%s: %d rows, Python %d", id, len(have), len(rows))
		}
		for k, cells := range rows {
			r, ok := have[k]
			if !ok {
				t.Errorf("%s: no row %q (rows: %v)", id, k, keysOf(have))
				continue
			}
			for j, w := range cells {
				c := r[nk+j]
				switch w := w.(type) {
				case nil:
					if c.Kind != report.Empty {
						t.Errorf("%s %s cell %d: %+v, Python: undefined", id, k, nk+j, c)
					}
				case float64:
					if c.Kind == report.Empty || !near(c.Value, w) {
						t.Errorf("%s %s cell %d: %+v, Python %.12f", id, k, nk+j, c, w)
					}
				case []any:
					if !c.HasCI || !near(c.Value, w[0].(float64)) || !near(c.Lo, w[1].(float64)) || !near(c.Hi, w[2].(float64)) {
						t.Errorf("%s %s cell %d: %+v, Python %v", id, k, nk+j, c, w)
					}
				}
				checked++
			}
		}
	}
	if checked < 80 {
		t.Errorf("only %d figures checked", checked)
	}
	for who, flagged := range want.Flagged {
		found := false
		for _, r := range rep.Table("straight_lining").Rows {
			if r[0].Text == who && r[len(r)-1].Text != "" {
				found = true
			}
		}
		if found != flagged {
			t.Errorf("straight-lining flag of %s: %v, want %v", who, found, flagged)
		}
	}
}

func keysOf[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// e2eLong is a long export's answers, without the times they were saved:
// what the Python computation reads.
func e2eLong(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(strings.Join(append(r[:10:10], r[11:]...), "\t") + "\n")
	}
	return b.String()
}
