package anthropic_test

import (
	"context"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/llm/anthropic"
	"github.com/fallacylab/fallacylab/llm/llmtest"
)

func TestGenerateOverWire(t *testing.T) {
	srv := llmtest.New(llmtest.Options{APIKey: "ak"})
	defer srv.Close()
	p := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "ak"})
	req := llm.UserPrompt("sys", "Say hi")
	req.Temperature = llm.Temp(0)
	resp, err := p.Generate(context.Background(), "claude-haiku-4-5", req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "echo: Say hi" || resp.FinishReason != "end_turn" || resp.RequestID == "" || resp.Usage.OutputTokens == 0 {
		t.Fatalf("unexpected %+v", resp)
	}
	c := srv.Ledger()[0].Call
	if c.System != "sys" || !strings.Contains(string(c.Body), `"max_tokens":4096`) {
		t.Fatalf("wire body: %s", c.Body)
	}
	if len(resp.Notes) != 2 { // default max_tokens and the unsent temperature
		t.Fatalf("adaptations not recorded: %v", resp.Notes)
	}
}

func TestRefusalAndErrors(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Respond: func(llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Text: "I can't help with that.", FinishReason: "refusal"}
	}})
	p := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "k"})
	resp, err := p.Generate(context.Background(), "m", llm.UserPrompt("", "q"))
	srv.Close()
	if err != nil || resp.FinishReason != "refusal" {
		t.Fatalf("refusal: %+v %v", resp, err)
	}
	for _, f := range []llmtest.Fault{llmtest.Overloaded, llmtest.RateLimited} {
		srv := llmtest.New(llmtest.Options{Fault: func(llmtest.Call) llmtest.Fault { return f }})
		p := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "k"})
		_, err := p.Generate(context.Background(), "m", llm.UserPrompt("", "q"))
		srv.Close()
		if !llm.IsRetryable(err) {
			t.Errorf("%s should be retryable: %v", f, err)
		}
	}
	srv = llmtest.New(llmtest.Options{APIKey: "right"})
	defer srv.Close()
	p = anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "bad", KeyEnv: "ANTHROPIC_API_KEY"})
	_, err = p.Generate(context.Background(), "m", llm.UserPrompt("", "q"))
	if err == nil || llm.IsRetryable(err) || !strings.Contains(err.Error(), "401 from anthropic") || !strings.Contains(err.Error(), "set ANTHROPIC_API_KEY") {
		t.Fatalf("auth: %v", err)
	}
}

func TestMessageBatch(t *testing.T) {
	srv := llmtest.New(llmtest.Options{})
	defer srv.Close()
	p := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "k"})
	ctx := context.Background()
	id, err := p.SubmitBatch(ctx, "tok-1", []llm.BatchItem{{CustomID: "x1", Model: "m", Request: llm.UserPrompt("s", "alpha")}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := p.PollBatch(ctx, id)
	if err != nil || !st.Done {
		t.Fatalf("poll %+v %v", st, err)
	}
	var got []llm.BatchResult
	if err := p.BatchResults(ctx, id, func(r llm.BatchResult) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].CustomID != "x1" || got[0].Response.Text != "echo: alpha" || got[0].Err != nil {
		t.Fatalf("results %+v", got)
	}
}

func TestPromptCacheMarksSystemAndCountsCachedTokens(t *testing.T) {
	srv := llmtest.New(llmtest.Options{})
	defer srv.Close()
	p := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "k", PromptCache: true})
	rubric := "You are a judge. " + strings.Repeat("Score every field carefully. ", 20)
	first, err := p.Generate(context.Background(), "claude-haiku-4-5", llm.UserPrompt(rubric, "response one"))
	if err != nil {
		t.Fatal(err)
	}
	second, err := p.Generate(context.Background(), "claude-haiku-4-5", llm.UserPrompt(rubric, "response two"))
	if err != nil {
		t.Fatal(err)
	}
	body := string(srv.Ledger()[0].Call.Body)
	if !strings.Contains(body, `"cache_control":{"type":"ephemeral"}`) {
		t.Fatalf("system block not marked for caching: %s", body)
	}
	n := int64(len(strings.Fields(rubric)))
	if first.Usage.CacheWriteTokens != n || first.Usage.CachedInputTokens != 0 || second.Usage.CachedInputTokens != n || second.Usage.CacheWriteTokens != 0 {
		t.Fatalf("cache usage: first %+v, second %+v", first.Usage, second.Usage)
	}
	// InputTokens counts every input token, cached or not.
	if second.Usage.InputTokens != 1+n+2 {
		t.Fatalf("input tokens %d, want %d", second.Usage.InputTokens, 1+n+2)
	}
	// Without the option nothing is marked.
	plain := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "k"})
	if _, err := plain.Generate(context.Background(), "claude-haiku-4-5", llm.UserPrompt(rubric, "three")); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(srv.Ledger()[2].Call.Body), "cache_control") {
		t.Fatal("cache_control sent without PromptCache")
	}
}
