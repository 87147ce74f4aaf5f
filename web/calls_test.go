package web_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/sqlite"
)

// TestCallTranscript (#27 item 9): a run's calls list — filtered by status,
// retried and model, sorted slowest first — links each call to its
// transcript at a permanent URL: the messages as sent, the parameters, the
// raw answer (escaped), tokens, cost, latency and attempts; a failed call
// has its page too, with its error.
func TestCallTranscript(t *testing.T) {
	st, id := callStore(t)
	h := viewer(t, st)
	list := func(q string) string {
		t.Helper()
		code, body, _ := get(t, h, fmt.Sprintf("/runs/%d/calls%s", id, q))
		if code != 200 {
			t.Fatalf("calls list %s: %d\n%.2000s", q, code, body)
		}
		return body
	}
	all := list("")
	for _, job := range []string{"job-1", "job-2", "job-3"} {
		if !strings.Contains(all, ">"+job+"</code>") {
			t.Fatalf("the calls list lacks %s:\n%.3000s", job, all)
		}
	}
	if b := list("?status=error"); !strings.Contains(b, "job-3") || strings.Contains(b, "job-1") || !strings.Contains(b, "500 boom") {
		t.Fatalf("?status=error:\n%.3000s", b)
	}
	if b := list("?retried=1"); !strings.Contains(b, "job-1") || strings.Contains(b, "job-2") {
		t.Fatalf("?retried=1:\n%.3000s", b)
	}
	// The run's page links its calls (a run without calls does not).
	if _, page, _ := get(t, h, fmt.Sprintf("/runs/%d", id)); !strings.Contains(page, fmt.Sprintf(`<a href="/runs/%d/calls">Every call of this run</a>, with requests`, id)) {
		t.Fatalf("the run page does not link its calls:\n%.3000s", page)
	}
	if b := list("?model=anthropic:c"); !strings.Contains(b, "job-3") || strings.Contains(b, "job-1") {
		t.Fatalf("?model=anthropic:c:\n%.3000s", b)
	}
	if b := list("?sort=latency&desc=1"); strings.Index(b, "job-1") > strings.Index(b, "job-2") {
		t.Fatal("slowest first does not put the 2 s call before the 50 ms one")
	}
	if code, csv, hdr := get(t, h, fmt.Sprintf("/runs/%d/calls?status=error&export=csv", id)); code != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "text/csv") ||
		!strings.HasPrefix(csv, "job,key,model,status") || !strings.Contains(csv, "job-3,k-failed,anthropic:c,error") || strings.Contains(csv, "job-1") {
		t.Fatalf("the calls list as CSV: %d %v\n%s", code, hdr, csv)
	}
	code, page, hdr := get(t, h, fmt.Sprintf("/calls/k-slow?run=%d", id))
	if code != 200 || !strings.Contains(hdr.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Fatalf("transcript: %d %v", code, hdr)
	}
	for _, want := range []string{"be brief", "the slow one", "0.7", "64", "12 in + 7 out", "$0.004200", "2s", "&lt;script&gt;alert(1)&lt;/script&gt; an answer", ">3 (the errors", "stop"} {
		if !strings.Contains(page, want) {
			t.Errorf("the transcript lacks %q", want)
		}
	}
	if strings.Contains(page, "<script>alert") {
		t.Fatal("the model's answer reaches the page unescaped")
	}
	if code, failed, _ := get(t, h, fmt.Sprintf("/calls/k-failed?run=%d", id)); code != 200 || !strings.Contains(failed, "gave up after 6 attempts: 500 boom") || !strings.Contains(failed, "the failed one") {
		t.Fatalf("a failed call's transcript: %d\n%.2000s", code, failed)
	}
	if code, _, _ := get(t, h, "/calls/no-such-key"); code != 404 {
		t.Fatalf("an unknown call answers %d", code)
	}
	if _, run, _ := get(t, h, fmt.Sprintf("/runs/%d", id)); !strings.Contains(run, fmt.Sprintf(`href="/runs/%d/calls"`, id)) {
		t.Fatal("the run page does not link its calls")
	}
}

// callStore is a store with one run of three calls: a slow answered one
// retried twice, a fast one, and a failed one.
func callStore(t testing.TB) (*sqlite.Store, int64) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, seedCalls(t, st)
}

// seedCalls adds callStore's run of three calls to st and returns its id.
func seedCalls(t testing.TB, st *sqlite.Store) int64 {
	ctx := context.Background()
	id, err := st.StartRun(ctx, store.Run{Name: "prompts t", Benchmark: "prompts", Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	req := func(prompt string) []byte {
		return []byte(fmt.Sprintf(`{"v":1,"namespace":"t","provider":"openai","model":"m","request":{"system":"be brief","messages":[{"role":"user","content":%q}],"temperature":0.7,"max_tokens":64},"sample":0}`, prompt))
	}
	cost := 0.0042
	for _, c := range []store.Call{
		{Key: "k-slow", Provider: "openai", Model: "m", Request: req("the slow one"), Status: store.StatusOK, Attempts: 3, Cost: &cost,
			Response: &llm.Response{Text: "<script>alert(1)</script> an answer", FinishReason: "stop"}, Usage: llm.Usage{InputTokens: 12, OutputTokens: 7},
			Latency: 2 * time.Second, RunID: id, Job: "job-1"},
		{Key: "k-fast", Provider: "openai", Model: "m", Request: req("the fast one"), Status: store.StatusOK, Attempts: 1,
			Response: &llm.Response{Text: "quick"}, Latency: 50 * time.Millisecond, RunID: id, Job: "job-2"},
		{Key: "k-failed", Provider: "anthropic", Model: "c", Request: req("the failed one"), Status: store.StatusError, Error: "gave up after 6 attempts: 500 boom",
			Attempts: 6, RunID: id, Job: "job-3"},
	} {
		if err := st.PutCall(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	st.FinishRun(ctx, id, store.RunDone)
	return id
}
