package llm_test

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/llm"
)

func TestParseSpec(t *testing.T) {
	s, err := llm.ParseSpec("ollama:llama3.1:8b")
	if err != nil || s.Provider != "ollama" || s.Model != "llama3.1:8b" {
		t.Fatalf("%+v %v", s, err)
	}
	for _, bad := range []string{"gpt-4", ":m", "openai:", "", "openai:a,anthropic:b", "openai:a,b"} {
		if _, err := llm.ParseSpec(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	specs, err := llm.ParseSpecs("openai:a, anthropic:b,")
	if err != nil || len(specs) != 2 || specs[1].String() != "anthropic:b" {
		t.Fatalf("%v %v", specs, err)
	}
}

func TestPrices(t *testing.T) {
	p := llm.DefaultPrices()
	pr, ok := p.Lookup(llm.Spec{Provider: "anthropic", Model: "claude-haiku-4-5-20251001"})
	if !ok || pr.Input != 1 {
		t.Fatalf("dated model id not matched: %+v %v", pr, ok)
	}
	if _, ok := p.Cost(llm.Spec{Provider: "mylab", Model: "x"}, llm.Usage{InputTokens: 5}); ok {
		t.Fatal("unknown model priced")
	}
	c, ok := p.Cost(llm.Spec{Provider: "openai", Model: "gpt-4.1"}, llm.Usage{InputTokens: 1_000_000, OutputTokens: 500_000})
	if !ok || c != 2+4 {
		t.Fatalf("cost %v", c)
	}
	// Prompt-cache reads and writes are priced apart: Haiku 4.5 reads at $0.10
	// and writes at $1.25 per 1M, the rest of the input at $1.
	u := llm.Usage{InputTokens: 1_000_000, CachedInputTokens: 600_000, CacheWriteTokens: 100_000, OutputTokens: 200_000}
	c, _ = p.Cost(llm.Spec{Provider: "anthropic", Model: "claude-haiku-4-5"}, u)
	if want := 0.3*1 + 0.6*0.10 + 0.1*1.25 + 0.2*5; math.Abs(c-want) > 1e-12 {
		t.Fatalf("cached cost %v, want %v", c, want)
	}
	// Without a cached price, cached tokens cost full input: never understated.
	c, _ = p.Cost(llm.Spec{Provider: "gemini", Model: "gemini-2.5-flash"}, llm.Usage{InputTokens: 1_000_000, CachedInputTokens: 900_000})
	if c != 0.30 {
		t.Fatalf("unknown cached price: %v", c)
	}
}

func TestClassifyHTTP(t *testing.T) {
	h := http.Header{}
	h.Set("Retry-After", "3")
	cases := []struct {
		status    int
		retryable bool
	}{{429, true}, {408, true}, {409, true}, {500, true}, {503, true}, {529, true}, {400, false}, {401, false}, {403, false}, {404, false}}
	for _, c := range cases {
		e := llm.ClassifyHTTP("p", c.status, h, "m", "P_KEY", nil)
		if e.Retryable != c.retryable {
			t.Errorf("%d: retryable %v", c.status, e.Retryable)
		}
		if e.RetryAfter != 3*time.Second {
			t.Errorf("%d: Retry-After %v", c.status, e.RetryAfter)
		}
	}
	if e := llm.ClassifyHTTP("anthropic", 401, nil, "bad key", "ANTHROPIC_API_KEY", nil); e.Error() != "401 from anthropic: bad key: set ANTHROPIC_API_KEY to a valid key" {
		t.Fatalf("message: %s", e)
	}
	if e := llm.ClassifyHTTP("openai", 400, nil, "content_policy_violation: no", "", nil); e.Hint != "the provider refused the prompt by policy" {
		t.Fatalf("policy hint: %q", e.Hint)
	}
	h2 := http.Header{}
	h2.Set("Retry-After-Ms", "250")
	if e := llm.ClassifyHTTP("p", 429, h2, "", "", nil); e.RetryAfter != 250*time.Millisecond || !e.RateLimit {
		t.Fatalf("retry-after-ms: %v", e.RetryAfter)
	}
}

func TestClassifyTransport(t *testing.T) {
	ctx := context.Background()
	for _, err := range []error{syscall.ECONNRESET, io.ErrUnexpectedEOF, context.DeadlineExceeded} {
		if !llm.IsRetryable(llm.ClassifyTransport(ctx, "p", err)) {
			t.Errorf("%v should be retryable", err)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := llm.ClassifyTransport(cctx, "p", errors.New("x")); !errors.Is(err, context.Canceled) {
		t.Fatalf("own cancellation must pass through: %v", err)
	}
}
