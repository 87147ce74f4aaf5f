// Package gemini adapts the official Google Gen AI Go SDK (google.golang.org/genai)
// to llm.Provider and llm.Batcher, on the Gemini Developer API.
package gemini

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/fallacylab/fallacylab/llm"
	"google.golang.org/genai"
)

// Config configures the Gemini endpoint.
type Config struct {
	Name       string // "gemini" unless renamed
	BaseURL    string // "" for generativelanguage.googleapis.com
	APIKey     string
	KeyEnv     string
	HTTPClient *http.Client
}

// Provider talks to generateContent. The genai client needs a context to be
// built, so it is created on first use.
type Provider struct {
	cfg    Config
	once   sync.Once
	client *genai.Client
	err    error
}

// New builds a provider.
func New(cfg Config) *Provider {
	if cfg.Name == "" {
		cfg.Name = "gemini"
	}
	return &Provider{cfg: cfg}
}

// Name implements llm.Provider.
func (p *Provider) Name() string { return p.cfg.Name }

func (p *Provider) init(ctx context.Context) (*genai.Client, error) {
	p.once.Do(func() {
		key := p.cfg.APIKey
		if key == "" {
			key = "none" // keyless gateways; the SDK insists on one
		}
		// user:password@ in the base URL is sent as Basic authentication.
		base, client := llm.URLCredentials(p.cfg.BaseURL, p.cfg.HTTPClient)
		cc := &genai.ClientConfig{APIKey: key, Backend: genai.BackendGeminiAPI, HTTPClient: client}
		if base != "" {
			cc.HTTPOptions.BaseURL = strings.TrimRight(base, "/") + "/"
		}
		// HTTPOptions.RetryOptions stays nil: one attempt per call, the engine retries.
		p.client, p.err = genai.NewClient(ctx, cc)
		if p.err != nil {
			p.err = fmt.Errorf("gemini client: %w", p.err)
		}
	})
	return p.client, p.err
}

// Params converts a request to SDK parameters and lists the adaptations made.
func Params(req llm.Request) ([]*genai.Content, *genai.GenerateContentConfig, []string) {
	var notes []string
	cfg := &genai.GenerateContentConfig{}
	if req.System != "" {
		cfg.SystemInstruction = genai.NewContentFromText(req.System, genai.RoleUser)
	}
	var contents []*genai.Content
	for _, m := range req.Messages {
		role := genai.Role(genai.RoleUser)
		if m.Role == "assistant" {
			role = genai.RoleModel
		}
		contents = append(contents, genai.NewContentFromText(m.Content, role))
	}
	if req.Temperature != nil {
		t := float32(*req.Temperature)
		cfg.Temperature = &t
	}
	if req.MaxTokens > 0 {
		cfg.MaxOutputTokens = int32(req.MaxTokens)
	}
	if req.Seed != nil {
		s := int32(*req.Seed)
		if int64(s) != *req.Seed {
			notes = append(notes, "seed truncated to 32 bits")
		}
		cfg.Seed = &s
	}
	cfg.StopSequences = req.Stop
	if req.Schema != nil {
		cfg.ResponseMIMEType = "application/json"
		cfg.ResponseJsonSchema = req.Schema.Schema
	}
	return contents, cfg, notes
}

// Generate implements llm.Provider.
func (p *Provider) Generate(ctx context.Context, model string, req llm.Request) (llm.Response, error) {
	client, err := p.init(ctx)
	if err != nil {
		return llm.Response{}, err
	}
	contents, cfg, notes := Params(req)
	start := time.Now()
	res, err := client.Models.GenerateContent(ctx, model, contents, cfg)
	lat := time.Since(start)
	if err != nil {
		return llm.Response{}, p.classify(ctx, err)
	}
	r := toResponse(res)
	r.Latency, r.Notes = lat, notes
	return r, nil
}

// toResponse converts a generateContent answer (synchronous or from a batch).
func toResponse(res *genai.GenerateContentResponse) llm.Response {
	r := llm.Response{Text: res.Text(), RequestID: res.ResponseID}
	if len(res.Candidates) > 0 {
		r.FinishReason = string(res.Candidates[0].FinishReason)
	} else if res.PromptFeedback != nil {
		r.FinishReason = "blocked:" + string(res.PromptFeedback.BlockReason)
	}
	if u := res.UsageMetadata; u != nil {
		r.Usage = llm.Usage{
			InputTokens:     int64(u.PromptTokenCount),
			OutputTokens:    int64(u.CandidatesTokenCount) + int64(u.ThoughtsTokenCount),
			ReasoningTokens: int64(u.ThoughtsTokenCount),
			// cachedContentTokenCount is part of promptTokenCount.
			CachedInputTokens: int64(u.CachedContentTokenCount),
		}
	}
	return r
}

func (p *Provider) classify(ctx context.Context, err error) error {
	var apiErr genai.APIError
	if errors.As(err, &apiErr) {
		return llm.ClassifyHTTP(p.cfg.Name, apiErr.Code, nil, apiErr.Message, p.cfg.KeyEnv, err)
	}
	var apiErrPtr *genai.APIError
	if errors.As(err, &apiErrPtr) {
		return llm.ClassifyHTTP(p.cfg.Name, apiErrPtr.Code, nil, apiErrPtr.Message, p.cfg.KeyEnv, err)
	}
	return llm.ClassifyTransport(ctx, p.cfg.Name, err)
}
