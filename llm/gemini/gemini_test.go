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
