// Package openai adapts the official OpenAI Go SDK (github.com/openai/openai-go/v3)
// to llm.Provider and llm.Batcher. Every OpenAI-compatible server (vLLM, Ollama,
// llama.cpp, DeepSeek, xAI, OpenRouter) goes through this adapter with its own
// base URL.
package openai

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/fallacylab/fallacylab/llm"
	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// Config configures one OpenAI or OpenAI-compatible endpoint.
type Config struct {
	Name       string       // provider name in specs: "openai", "ollama", …
	BaseURL    string       // "" for api.openai.com
	APIKey     string       // may be empty for local servers
	KeyEnv     string       // variable the key came from, named in auth errors
	HTTPClient *http.Client // nil for http.DefaultClient
	// Native is true for api.openai.com itself, where reasoning-model rules
	// (max_completion_tokens, no temperature) apply.
	Native bool
}

// Provider talks to one endpoint.
type Provider struct {
	cfg    Config
	client oai.Client
}

// New builds a provider. The SDK's own retries are disabled: the engine retries.
func New(cfg Config) *Provider {
	opts := []option.RequestOption{option.WithMaxRetries(0)}
	key := cfg.APIKey
	if key == "" {
		key = "none" // local servers ignore it; the SDK insists on one
	}
	opts = append(opts, option.WithAPIKey(key))
	// user:password@ in the base URL is sent as Basic authentication.
	cfg.BaseURL, cfg.HTTPClient = llm.URLCredentials(cfg.BaseURL, cfg.HTTPClient)
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(strings.TrimRight(cfg.BaseURL, "/")+"/"))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	if cfg.Name == "" {
		cfg.Name = "openai"
	}
	return &Provider{cfg: cfg, client: oai.NewClient(opts...)}
}

// Name implements llm.Provider.
func (p *Provider) Name() string { return p.cfg.Name }

// isReasoningModel reports OpenAI models that reject temperature and max_tokens.
func isReasoningModel(model string) bool {
	m := strings.ToLower(model)
	for _, pre := range []string{"o1", "o3", "o4", "gpt-5"} {
		if strings.HasPrefix(m, pre) && !strings.HasPrefix(m, "gpt-5-chat") {
			return true
		}
	}
	return false
}

// Params converts a request to SDK parameters and lists the adaptations made.
func (p *Provider) Params(model string, req llm.Request) (oai.ChatCompletionNewParams, []string) {
	var notes []string
	params := oai.ChatCompletionNewParams{Model: shared.ChatModel(model)}
	if req.System != "" {
		params.Messages = append(params.Messages, oai.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			params.Messages = append(params.Messages, oai.AssistantMessage(m.Content))
		} else {
			params.Messages = append(params.Messages, oai.UserMessage(m.Content))
		}
	}
	reasoning := p.cfg.Native && isReasoningModel(model)
	if req.Temperature != nil {
		if reasoning && *req.Temperature != 1 {
			notes = append(notes, "temperature dropped: "+model+" accepts only the default")
		} else {
			params.Temperature = oai.Float(*req.Temperature)
		}
	}
	if req.MaxTokens > 0 {
		if reasoning {
			params.MaxCompletionTokens = oai.Int(int64(req.MaxTokens))
			notes = append(notes, "max_tokens sent as max_completion_tokens (reasoning model)")
		} else {
			params.MaxTokens = oai.Int(int64(req.MaxTokens))
		}
	}
	if req.Seed != nil {
		params.Seed = oai.Int(*req.Seed)
	}
	if len(req.Stop) > 0 {
		params.Stop = oai.ChatCompletionNewParamsStopUnion{OfStringArray: req.Stop}
	}
	if req.Schema != nil {
		params.ResponseFormat = oai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
				JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
					Name:   req.Schema.Name,
					Schema: req.Schema.Schema,
					Strict: oai.Bool(true),
				},
			},
		}
	}
	return params, notes
}

// Generate implements llm.Provider.
func (p *Provider) Generate(ctx context.Context, model string, req llm.Request) (llm.Response, error) {
	params, notes := p.Params(model, req)
	var httpResp *http.Response
	start := time.Now()
	c, err := p.client.Chat.Completions.New(ctx, params, option.WithResponseInto(&httpResp))
	lat := time.Since(start)
	if err != nil {
		return llm.Response{}, p.classify(ctx, err)
	}
	resp := convert(c)
	resp.Latency = lat
	resp.Notes = notes
	if httpResp != nil {
		if id := httpResp.Header.Get("x-request-id"); id != "" {
			resp.RequestID = id
		}
	}
	return resp, nil
}

func convert(c *oai.ChatCompletion) llm.Response {
	r := llm.Response{RequestID: c.ID}
	if len(c.Choices) > 0 {
		ch := c.Choices[0]
		r.Text = ch.Message.Content
		r.FinishReason = ch.FinishReason
		if r.Text == "" && ch.Message.Refusal != "" {
			r.Text = ch.Message.Refusal
			r.FinishReason = "refusal"
		}
	}
	r.Usage = llm.Usage{
		InputTokens:     c.Usage.PromptTokens,
		OutputTokens:    c.Usage.CompletionTokens,
		ReasoningTokens: c.Usage.CompletionTokensDetails.ReasoningTokens,
		// OpenAI caches long prompt prefixes by itself; cached tokens are
		// part of prompt_tokens.
		CachedInputTokens: c.Usage.PromptTokensDetails.CachedTokens,
	}
	return r
}

func (p *Provider) classify(ctx context.Context, err error) error {
	var apiErr *oai.Error
	if errors.As(err, &apiErr) {
		var h http.Header
		if apiErr.Response != nil {
			h = apiErr.Response.Header
		}
		msg := apiErr.Message
		if msg == "" {
			msg = http.StatusText(apiErr.StatusCode)
		}
		if apiErr.Code != "" {
			msg = apiErr.Code + ": " + msg
		}
		return llm.ClassifyHTTP(p.cfg.Name, apiErr.StatusCode, h, msg, p.cfg.KeyEnv, err)
	}
	return llm.ClassifyTransport(ctx, p.cfg.Name, err)
}
