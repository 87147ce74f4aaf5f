package openai_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/llm/llmtest"
	"github.com/fallacylab/fallacylab/llm/openai"
)

func TestGenerateOverWire(t *testing.T) {
	srv := llmtest.New(llmtest.Options{APIKey: "sk-test"})
	defer srv.Close()
	p := openai.New(openai.Config{BaseURL: srv.OpenAIURL(), APIKey: "sk-test", Native: true})
	req := llm.UserPrompt("be brief", "Say hi")
	req.Temperature = llm.Temp(0)
	req.MaxTokens = 20
	resp, err := p.Generate(context.Background(), "gpt-4.1-mini", req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "echo: Say hi" || resp.FinishReason != "stop" || resp.Usage.InputTokens == 0 || resp.RequestID == "" {
		t.Fatalf("unexpected response %+v", resp)
	}
	led := srv.Ledger()
	if len(led) != 1 || led[0].Call.System != "be brief" || !strings.Contains(string(led[0].Call.Body), `"temperature":0`) ||
		!strings.Contains(string(led[0].Call.Body), `"max_tokens":20`) {
		t.Fatalf("wire body wrong: %s", led[0].Call.Body)
	}
}

func TestReasoningModelQuirksRecorded(t *testing.T) {
	srv := llmtest.New(llmtest.Options{})
	defer srv.Close()
	p := openai.New(openai.Config{BaseURL: srv.OpenAIURL(), APIKey: "k", Native: true})
	req := llm.UserPrompt("", "q")
	req.Temperature, req.MaxTokens = llm.Temp(0.2), 50
	resp, err := p.Generate(context.Background(), "o4-mini", req)
	if err != nil {
		t.Fatal(err)
	}
	body := string(srv.Ledger()[0].Call.Body)
	if strings.Contains(body, "temperature") || !strings.Contains(body, `"max_completion_tokens":50`) {
		t.Fatalf("reasoning params not adapted: %s", body)
	}
	if len(resp.Notes) != 2 {
		t.Fatalf("adaptations not recorded: %v", resp.Notes)
	}
}

func TestUnsetTemperatureIsNotSent(t *testing.T) {
	srv := llmtest.New(llmtest.Options{})
	defer srv.Close()
	p := openai.New(openai.Config{BaseURL: srv.OpenAIURL(), APIKey: "k"})
	if _, err := p.Generate(context.Background(), "m", llm.UserPrompt("", "q")); err != nil {
		t.Fatal(err)
	}
	if body := string(srv.Ledger()[0].Call.Body); strings.Contains(body, "temperature") {
		t.Fatalf("unset temperature was sent: %s", body)
	}
}

func TestErrorsClassified(t *testing.T) {
	cases := []struct {
		fault     llmtest.Fault
		retryable bool
	}{{llmtest.RateLimited, true}, {llmtest.ServerError, true}, {llmtest.BadRequest, false}, {llmtest.Malformed, true}, {llmtest.Reset, true}}
	for _, c := range cases {
		srv := llmtest.New(llmtest.Options{Fault: func(llmtest.Call) llmtest.Fault { return c.fault }})
		p := openai.New(openai.Config{BaseURL: srv.OpenAIURL(), APIKey: "k"})
		_, err := p.Generate(context.Background(), "m", llm.UserPrompt("", "q"))
		srv.Close()
		if err == nil || llm.IsRetryable(err) != c.retryable {
			t.Errorf("%s: err=%v retryable=%v", c.fault, err, llm.IsRetryable(err))
		}
		var e *llm.Error
		if c.fault == llmtest.RateLimited && (!errors.As(err, &e) || e.RetryAfter <= 0 || !e.RateLimit) {
			t.Errorf("429 without Retry-After: %#v", err)
		}
	}
}

func TestAuthErrorSaysWhatToDo(t *testing.T) {
	srv := llmtest.New(llmtest.Options{APIKey: "right"})
	defer srv.Close()
	p := openai.New(openai.Config{BaseURL: srv.OpenAIURL(), APIKey: "wrong", KeyEnv: "OPENAI_API_KEY"})
	_, err := p.Generate(context.Background(), "m", llm.UserPrompt("", "q"))
	if err == nil || llm.IsRetryable(err) || !strings.Contains(err.Error(), "401 from openai") || !strings.Contains(err.Error(), "set OPENAI_API_KEY") {
		t.Fatalf("got %v", err)
	}
}

func TestBatchRoundTrip(t *testing.T) {
	srv := llmtest.New(llmtest.Options{BatchPolls: 2})
	defer srv.Close()
	p := openai.New(openai.Config{BaseURL: srv.OpenAIURL(), APIKey: "k"})
	ctx := context.Background()
	items := []llm.BatchItem{{CustomID: "a", Model: "m", Request: llm.UserPrompt("", "one")}, {CustomID: "b", Model: "m", Request: llm.UserPrompt("", "two")}}
	id, err := p.SubmitBatch(ctx, "tok-1", items)
	if err != nil {
		t.Fatal(err)
	}
	st, err := p.PollBatch(ctx, id)
	if err != nil || st.Done {
		t.Fatalf("first poll should be pending: %+v %v", st, err)
	}
	if st, err = p.PollBatch(ctx, id); err != nil || !st.Done {
		t.Fatalf("second poll should be done: %+v %v", st, err)
	}
	got := map[string]string{}
	err = p.BatchResults(ctx, id, func(r llm.BatchResult) error { got[r.CustomID] = r.Response.Text; return r.Err })
	if err != nil || got["a"] != "echo: one" || got["b"] != "echo: two" {
		t.Fatalf("results %v %v", got, err)
	}
}

func TestCachedPromptTokensReported(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Respond: func(c llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Text: "ok", InputTokens: 2000, CachedInputTokens: 1536}
	}})
	defer srv.Close()
	p := openai.New(openai.Config{BaseURL: srv.OpenAIURL(), APIKey: "k"})
	r, err := p.Generate(context.Background(), "gpt-4.1-mini", llm.UserPrompt("", "q"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Usage.InputTokens != 2000 || r.Usage.CachedInputTokens != 1536 {
		t.Fatalf("usage %+v", r.Usage)
	}
}
