package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/fallacylab/fallacylab/llm"
	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
)

// batchLine is one line of a Batch API input file.
type batchLine struct {
	CustomID string                      `json:"custom_id"`
	Method   string                      `json:"method"`
	URL      string                      `json:"url"`
	Body     oai.ChatCompletionNewParams `json:"body"`
}

// BatchLimits implements llm.BatchLimiter: an OpenAI batch holds at most
// 50,000 requests in an input file of at most 200 MB.
func (p *Provider) BatchLimits() (int, int64) { return 50_000, 190 << 20 }

// tokenKey is the batch metadata key that carries the engine's token.
const tokenKey = "fallacylab_token"

// findLimit bounds how many recent batches FindBatch looks through.
const findLimit = 1000

// FindBatch implements llm.BatchFinder: it lists the most recent batches and
// matches the token in their metadata.
func (p *Provider) FindBatch(ctx context.Context, token string) (string, bool, error) {
	it := p.client.Batches.ListAutoPaging(ctx, oai.BatchListParams{Limit: oai.Int(100)})
	for n := 0; n < findLimit && it.Next(); n++ {
		if b := it.Current(); b.Metadata[tokenKey] == token {
			return b.ID, true, nil
		}
	}
	if err := it.Err(); err != nil {
		return "", false, fmt.Errorf("list batches: %w", p.classify(ctx, err))
	}
	return "", false, nil
}

// SubmitBatch uploads a JSONL input file and creates a 24h chat-completions
// batch whose metadata carries token.
func (p *Provider) SubmitBatch(ctx context.Context, token string, items []llm.BatchItem) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, it := range items {
		params, _ := p.Params(it.Model, it.Request)
		if err := enc.Encode(batchLine{CustomID: it.CustomID, Method: "POST", URL: "/v1/chat/completions", Body: params}); err != nil {
			return "", fmt.Errorf("encode batch line %s: %w", it.CustomID, err)
		}
	}
	f, err := p.client.Files.New(ctx, oai.FileNewParams{
		File:    oai.File(bytes.NewReader(buf.Bytes()), "batch.jsonl", "application/jsonl"),
		Purpose: oai.FilePurposeBatch,
	})
	if err != nil {
		return "", fmt.Errorf("upload batch file: %w", p.classify(ctx, err))
	}
	b, err := p.client.Batches.New(ctx, oai.BatchNewParams{
		InputFileID:      f.ID,
		Endpoint:         oai.BatchNewParamsEndpointV1ChatCompletions,
		CompletionWindow: oai.BatchNewParamsCompletionWindow24h,
		Metadata:         shared.Metadata{tokenKey: token},
	})
	if err != nil {
		return "", fmt.Errorf("create batch: %w", p.classify(ctx, err))
	}
	return b.ID, nil
}

// PollBatch implements llm.Batcher.
func (p *Provider) PollBatch(ctx context.Context, id string) (llm.BatchState, error) {
	b, err := p.client.Batches.Get(ctx, id)
	if err != nil {
		return llm.BatchState{}, fmt.Errorf("poll batch %s: %w", id, p.classify(ctx, err))
	}
	st := llm.BatchState{ID: id, Status: string(b.Status)}
	switch b.Status {
	case oai.BatchStatusCompleted:
		st.Done = true
	case oai.BatchStatusFailed, oai.BatchStatusExpired, oai.BatchStatusCancelled:
		// Expired and cancelled batches still deliver the results they finished.
		st.Done, st.Failed = true, true
	}
	return st, nil
}

// batchOutput is one line of a Batch API output or error file.
type batchOutput struct {
	CustomID string `json:"custom_id"`
	Response *struct {
		StatusCode int                `json:"status_code"`
		RequestID  string             `json:"request_id"`
		Body       oai.ChatCompletion `json:"body"`
	} `json:"response"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// BatchResults reads the output and error files of a finished batch.
func (p *Provider) BatchResults(ctx context.Context, id string, fn func(llm.BatchResult) error) error {
	b, err := p.client.Batches.Get(ctx, id)
	if err != nil {
		return fmt.Errorf("get batch %s: %w", id, p.classify(ctx, err))
	}
	for _, fileID := range []string{b.OutputFileID, b.ErrorFileID} {
		if fileID == "" {
			continue
		}
		if err := p.readResults(ctx, fileID, fn); err != nil {
			return fmt.Errorf("batch %s file %s: %w", id, fileID, err)
		}
	}
	return nil
}

func (p *Provider) readResults(ctx context.Context, fileID string, fn func(llm.BatchResult) error) error {
	resp, err := p.client.Files.Content(ctx, fileID)
	if err != nil {
		return p.classify(ctx, err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var out batchOutput
		if err := json.Unmarshal(sc.Bytes(), &out); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		r := llm.BatchResult{CustomID: out.CustomID}
		switch {
		case out.Error != nil:
			r.Err = &llm.Error{Provider: p.cfg.Name, Message: out.Error.Code + ": " + out.Error.Message}
		case out.Response == nil:
			r.Err = &llm.Error{Provider: p.cfg.Name, Message: "batch line without response"}
		case out.Response.StatusCode != 200:
			r.Err = llm.ClassifyHTTP(p.cfg.Name, out.Response.StatusCode, nil, "batch item failed", p.cfg.KeyEnv, nil)
		default:
			r.Response = convert(&out.Response.Body)
			if out.Response.RequestID != "" {
				r.Response.RequestID = out.Response.RequestID
			}
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil && err != io.EOF {
		return fmt.Errorf("read results: %w", err)
	}
	return nil
}
