package gemini_test

import (
	"context"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/llm/gemini"
	"github.com/fallacylab/fallacylab/llm/llmtest"
)

func TestGenerateOverWire(t *testing.T) {
	srv := llmtest.New(llmtest.Options{APIKey: "gk"})
	defer srv.Close()
	p := gemini.New(gemini.Config{BaseURL: srv.URL, APIKey: "gk"})
	req := llm.UserPrompt("sys", "Say hi")
	req.Temperature, req.MaxTokens = llm.Temp(0), 30
	req.Schema = &llm.Schema{Name: "x", Schema: map[string]any{"type": "object"}}
	resp, err := p.Generate(context.Background(), "gemini-2.5-flash", req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "echo: Say hi" || resp.FinishReason != "STOP" || resp.Usage.InputTokens == 0 {
		t.Fatalf("unexpected %+v", resp)
	}
	c := srv.Ledger()[0].Call
	body := string(c.Body)
	if c.System != "sys" || !strings.Contains(body, `"temperature":0`) || !strings.Contains(body, `"maxOutputTokens":30`) || !strings.Contains(body, "responseJsonSchema") {
		t.Fatalf("wire body: %s", body)
	}
}

func TestErrors(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Fault: func(llmtest.Call) llmtest.Fault { return llmtest.RateLimited }})
	p := gemini.New(gemini.Config{BaseURL: srv.URL, APIKey: "k"})
	_, err := p.Generate(context.Background(), "m", llm.UserPrompt("", "q"))
	srv.Close()
	if !llm.IsRetryable(err) {
		t.Fatalf("429 should be retryable: %v", err)
	}
	srv = llmtest.New(llmtest.Options{APIKey: "right"})
	defer srv.Close()
	p = gemini.New(gemini.Config{BaseURL: srv.URL, APIKey: "bad", KeyEnv: "GEMINI_API_KEY"})
	_, err = p.Generate(context.Background(), "m", llm.UserPrompt("", "q"))
	if err == nil || llm.IsRetryable(err) || !strings.Contains(err.Error(), "set GEMINI_API_KEY") {
		t.Fatalf("auth: %v", err)
	}
}

func TestBatchOverWire(t *testing.T) {
	srv := llmtest.New(llmtest.Options{APIKey: "gk", BatchPolls: 2, Fault: func(c llmtest.Call) llmtest.Fault {
		if c.Prompt == "bad" {
			return llmtest.BadRequest
		}
		return llmtest.NoFault
	}})
	defer srv.Close()
	p := gemini.New(gemini.Config{BaseURL: srv.URL, APIKey: "gk"})
	ctx := context.Background()
	var items []llm.BatchItem
	for _, q := range []string{"one", "two", "bad"} {
		req := llm.UserPrompt("be brief", q)
		req.Temperature = llm.Temp(0.7)
		items = append(items, llm.BatchItem{CustomID: "k-" + q, Model: "gemini-2.5-flash", Request: req})
	}
	id, err := p.SubmitBatch(ctx, "tok-1", items)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(id, "batches/") {
		t.Fatalf("batch name %q", id)
	}
	st, err := p.PollBatch(ctx, id)
	if err != nil || st.Done {
		t.Fatalf("first poll should be running: %+v %v", st, err)
	}
	st, err = p.PollBatch(ctx, id)
	if err != nil || !st.Done || st.Failed || st.Status != "JOB_STATE_SUCCEEDED" {
		t.Fatalf("second poll: %+v %v", st, err)
	}
	got := map[string]llm.BatchResult{}
	if err := p.BatchResults(ctx, id, func(r llm.BatchResult) error { got[r.CustomID] = r; return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got["k-two"].Response.Text != "echo: two" || got["k-one"].Response.FinishReason != "STOP" || got["k-one"].Response.Usage.InputTokens == 0 {
		t.Fatalf("results %+v", got)
	}
	if e := got["k-bad"].Err; e == nil || llm.IsRetryable(e) {
		t.Fatalf("invalid item should fail permanently: %v", e)
	}
	for _, e := range srv.Ledger() {
		c := e.Call
		if !c.Batch || c.System != "be brief" || c.Model != "gemini-2.5-flash" || !strings.Contains(string(c.Body), `"temperature":0.7`) {
			t.Fatalf("batch request on the wire: %+v %s", c, c.Body)
		}
	}
	items[1].Model = "gemini-2.5-pro"
	if _, err := p.SubmitBatch(ctx, "tok-1", items); err == nil || !strings.Contains(err.Error(), "one model") {
		t.Fatalf("mixed models: %v", err)
	}
}

func TestCachedContentTokensReported(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Respond: func(llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Text: "ok", InputTokens: 900, CachedInputTokens: 512}
	}})
	defer srv.Close()
	p := gemini.New(gemini.Config{BaseURL: srv.URL, APIKey: "k"})
	r, err := p.Generate(context.Background(), "gemini-2.5-flash", llm.UserPrompt("", "q"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Usage.InputTokens != 900 || r.Usage.CachedInputTokens != 512 {
		t.Fatalf("usage %+v", r.Usage)
	}
}
