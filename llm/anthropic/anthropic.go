// Package anthropic adapts the official Anthropic Go SDK
// (github.com/anthropics/anthropic-sdk-go/v2) to llm.Provider and llm.Batcher.
package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/fallacylab/fallacylab/llm"
)

// DefaultMaxTokens is sent when a request leaves MaxTokens unset, because the
// Messages API requires max_tokens.
const DefaultMaxTokens = 4096

// Config configures the Anthropic endpoint.
type Config struct {
	Name       string // "anthropic" unless renamed in config
	BaseURL    string
	APIKey     string
	KeyEnv     string
	HTTPClient *http.Client
	// PromptCache marks the system prompt as a prompt-cache breakpoint
	// (cache_control: ephemeral), so a long rubric or instruction shared by
	// many calls is billed at the cache-read price after the first. It does
	// not change answers, so it is not part of the cache key.
	PromptCache bool
}

// Provider talks to the Messages API.
type Provider struct {
	cfg    Config
	client anthropic.Client
}

// New builds a provider. The SDK's own retries are disabled: the engine retries.
func New(cfg Config) *Provider {
	key := cfg.APIKey
	if key == "" {
		key = "none" // keyless gateways; the SDK insists on a credential
	}
	opts := []option.RequestOption{option.WithMaxRetries(0), option.WithAPIKey(key)}
	// user:password@ in the base URL is sent as Basic authentication.
	cfg.BaseURL, cfg.HTTPClient = llm.URLCredentials(cfg.BaseURL, cfg.HTTPClient)
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(strings.TrimRight(cfg.BaseURL, "/")+"/"))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	if cfg.Name == "" {
		cfg.Name = "anthropic"
	}
	return &Provider{cfg: cfg, client: anthropic.NewClient(opts...)}
}

// Name implements llm.Provider.
func (p *Provider) Name() string { return p.cfg.Name }

// Params converts a request to SDK parameters and lists the adaptations made.
func (p *Provider) Params(model string, req llm.Request) (anthropic.MessageNewParams, []string) {
	var notes []string
	params := anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: int64(req.MaxTokens)}
	if req.MaxTokens <= 0 {
		params.MaxTokens = DefaultMaxTokens
		notes = append(notes, fmt.Sprintf("max_tokens unset: sent %d (required by the Messages API)", DefaultMaxTokens))
	}
	if req.System != "" {
		params.System = []anthropic.TextBlockParam{{Text: req.System}}
		if p.cfg.PromptCache {
			params.System[0].CacheControl = anthropic.NewCacheControlEphemeralParam()
		}
	}
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			params.Messages = append(params.Messages, anthropic.NewAssistantMessage(anthropic.NewTextBlock(m.Content)))
		} else {
			params.Messages = append(params.Messages, anthropic.NewUserMessage(anthropic.NewTextBlock(m.Content)))
		}
	}
	// API version 2026-10-21 (the one this SDK speaks) has no sampling
	// temperature or seed: the model's default is used and the fact recorded.
	if req.Temperature != nil {
		notes = append(notes, fmt.Sprintf("temperature %g not sent: the Messages API (2026-10-21) uses the model default", *req.Temperature))
	}
	if req.Seed != nil {
		notes = append(notes, "seed not sent: the Messages API has no seed")
	}
	if len(req.Stop) > 0 {
		params.StopSequences = req.Stop
	}
	if req.Schema != nil {
		params.OutputConfig = anthropic.OutputConfigParam{Format: anthropic.JSONOutputFormatParam{Schema: req.Schema.Schema}}
	}
	return params, notes
}

// Generate implements llm.Provider.
func (p *Provider) Generate(ctx context.Context, model string, req llm.Request) (llm.Response, error) {
	params, notes := p.Params(model, req)
	var httpResp *http.Response
	start := time.Now()
	msg, err := p.client.Messages.New(ctx, params, option.WithResponseInto(&httpResp))
	lat := time.Since(start)
	if err != nil {
		return llm.Response{}, p.classify(ctx, err)
	}
	r := convert(msg)
	r.Latency, r.Notes = lat, notes
	if httpResp != nil {
		if id := httpResp.Header.Get("request-id"); id != "" {
			r.RequestID = id
		}
	}
	return r, nil
}

func convert(msg *anthropic.Message) llm.Response {
	var b strings.Builder
	for _, c := range msg.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return llm.Response{
		Text:         b.String(),
		FinishReason: string(msg.StopReason),
		RequestID:    msg.ID,
		// input_tokens excludes the tokens read from or written to the
		// prompt cache; llm.Usage counts all input and says which were cached.
		Usage: llm.Usage{InputTokens: msg.Usage.InputTokens + msg.Usage.CacheReadInputTokens + msg.Usage.CacheCreationInputTokens,
			OutputTokens: msg.Usage.OutputTokens, CachedInputTokens: msg.Usage.CacheReadInputTokens,
			CacheWriteTokens: msg.Usage.CacheCreationInputTokens},
	}
}

func (p *Provider) classify(ctx context.Context, err error) error {
	var apiErr *anthropic.Error
	if errors.As(err, &apiErr) {
		var h http.Header
		if apiErr.Response != nil {
			h = apiErr.Response.Header
		}
		msg := apiErr.Message
		if msg == "" {
			msg = http.StatusText(apiErr.StatusCode)
		}
		e := llm.ClassifyHTTP(p.cfg.Name, apiErr.StatusCode, h, msg, p.cfg.KeyEnv, err)
		if apiErr.StatusCode == 529 {
			e.Message = "overloaded: " + e.Message
		}
		return e
	}
	return llm.ClassifyTransport(ctx, p.cfg.Name, err)
}

// BatchLimits implements llm.BatchLimiter: a Message Batch holds at most
// 100,000 requests and 256 MB.
func (p *Provider) BatchLimits() (int, int64) { return 100_000, 240 << 20 }

// SubmitBatch creates a Message Batch. Message Batches carry no client
// metadata, so token is not sent and Anthropic has no FindBatch.
func (p *Provider) SubmitBatch(ctx context.Context, token string, items []llm.BatchItem) (string, error) {
	reqs := make([]anthropic.MessageBatchNewParamsRequest, 0, len(items))
	for _, it := range items {
		params, _ := p.Params(it.Model, it.Request)
		// The batch request body is the Messages request body: convert through
		// its JSON form rather than copy field by field.
		raw, err := json.Marshal(params)
		if err != nil {
			return "", fmt.Errorf("encode batch item %s: %w", it.CustomID, err)
		}
		var bp anthropic.MessageBatchNewParamsRequestParams
		if err := json.Unmarshal(raw, &bp); err != nil {
			return "", fmt.Errorf("convert batch item %s: %w", it.CustomID, err)
		}
		reqs = append(reqs, anthropic.MessageBatchNewParamsRequest{CustomID: it.CustomID, Params: bp})
	}
	b, err := p.client.Messages.Batches.New(ctx, anthropic.MessageBatchNewParams{Requests: reqs})
	if err != nil {
		return "", fmt.Errorf("create message batch: %w", p.classify(ctx, err))
	}
	return b.ID, nil
}

// PollBatch implements llm.Batcher.
func (p *Provider) PollBatch(ctx context.Context, id string) (llm.BatchState, error) {
	b, err := p.client.Messages.Batches.Get(ctx, id, anthropic.MessageBatchGetParams{})
	if err != nil {
		return llm.BatchState{}, fmt.Errorf("poll message batch %s: %w", id, p.classify(ctx, err))
	}
	st := llm.BatchState{ID: id, Status: string(b.ProcessingStatus)}
	st.Done = b.ProcessingStatus == anthropic.MessageBatchProcessingStatusEnded
	return st, nil
}

// BatchResults streams the JSONL results of an ended batch.
func (p *Provider) BatchResults(ctx context.Context, id string, fn func(llm.BatchResult) error) error {
	stream := p.client.Messages.Batches.ResultsStreaming(ctx, id, anthropic.MessageBatchResultsParams{})
	defer stream.Close()
	for stream.Next() {
		it := stream.Current()
		r := llm.BatchResult{CustomID: it.CustomID}
		switch it.Result.Type {
		case "succeeded":
			r.Response = convert(&it.Result.Message)
		case "errored":
			r.Err = &llm.Error{Provider: p.cfg.Name, Message: "batch item errored: " + it.Result.Error.Error.Message}
		default:
			r.Err = &llm.Error{Provider: p.cfg.Name, Retryable: true, Message: "batch item " + it.Result.Type}
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := stream.Err(); err != nil {
		return fmt.Errorf("message batch %s results: %w", id, p.classify(ctx, err))
	}
	return nil
}
