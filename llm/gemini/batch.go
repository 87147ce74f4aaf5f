package gemini

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fallacylab/fallacylab/llm"
	"google.golang.org/genai"
)

// maxInlineBytes is the Gemini Developer API's limit on the size of a
// batchGenerateContent request with inlined requests (20 MB), less headroom for
// the envelope.
const maxInlineBytes = 19 << 20

// BatchLimits implements llm.BatchLimiter: inlined requests must stay under
// the API's 20 MB request size. The engine counts canonical request JSON,
// which is close to the inlined form; keep a margin for the envelope.
func (p *Provider) BatchLimits() (int, int64) { return 0, 16 << 20 }

// SubmitBatch creates a batch job (models/{model}:batchGenerateContent) with the
// items inlined and token as its display name. Each item carries its CustomID as metadata "key", which the
// API echoes in the matching inlined response. All items must name the same
// model: a Gemini batch belongs to one model.
func (p *Provider) SubmitBatch(ctx context.Context, token string, items []llm.BatchItem) (string, error) {
	if len(items) == 0 {
		return "", fmt.Errorf("gemini batch: no items")
	}
	client, err := p.init(ctx)
	if err != nil {
		return "", err
	}
	model := items[0].Model
	reqs := make([]*genai.InlinedRequest, 0, len(items))
	size := 0
	for _, it := range items {
		if it.Model != model {
			return "", fmt.Errorf("gemini batch: items for models %q and %q; one batch holds one model", model, it.Model)
		}
		contents, cfg, _ := Params(it.Request)
		r := &genai.InlinedRequest{Contents: contents, Config: cfg, Metadata: map[string]string{"key": it.CustomID}}
		b, err := json.Marshal(r)
		if err != nil {
			return "", fmt.Errorf("gemini batch item %s: %w", it.CustomID, err)
		}
		size += len(b)
		reqs = append(reqs, r)
	}
	if size > maxInlineBytes {
		return "", fmt.Errorf("gemini batch: %d items take %d MB inline, over the API's 20 MB limit", len(items), size>>20)
	}
	job, err := client.Batches.Create(ctx, model, &genai.BatchJobSource{InlinedRequests: reqs}, &genai.CreateBatchJobConfig{DisplayName: token})
	if err != nil {
		return "", fmt.Errorf("create gemini batch: %w", p.classify(ctx, err))
	}
	return job.Name, nil
}

// FindBatch implements llm.BatchFinder: batches are created with the token
// as their display name; the most recent ones are searched for it.
func (p *Provider) FindBatch(ctx context.Context, token string) (string, bool, error) {
	client, err := p.init(ctx)
	if err != nil {
		return "", false, err
	}
	n := 0
	for job, err := range client.Batches.All(ctx) {
		if err != nil {
			return "", false, fmt.Errorf("list gemini batches: %w", p.classify(ctx, err))
		}
		if job.DisplayName == token {
			return job.Name, true, nil
		}
		if n++; n >= 1000 {
			break
		}
	}
	return "", false, nil
}

// PollBatch implements llm.Batcher.
func (p *Provider) PollBatch(ctx context.Context, id string) (llm.BatchState, error) {
	client, err := p.init(ctx)
	if err != nil {
		return llm.BatchState{}, err
	}
	job, err := client.Batches.Get(ctx, id, nil)
	if err != nil {
		return llm.BatchState{}, fmt.Errorf("poll gemini batch %s: %w", id, p.classify(ctx, err))
	}
	st := llm.BatchState{ID: id, Status: string(job.State)}
	switch job.State {
	case genai.JobStateSucceeded:
		st.Done = true
	case genai.JobStateFailed, genai.JobStateCancelled, genai.JobStateExpired:
		st.Done, st.Failed = true, true
	}
	return st, nil
}

// BatchResults reads the inlined responses of a finished batch. A response is
// matched to its request by the echoed metadata key and, where the key is
// missing, by position (the API keeps the input order).
func (p *Provider) BatchResults(ctx context.Context, id string, fn func(llm.BatchResult) error) error {
	client, err := p.init(ctx)
	if err != nil {
		return err
	}
	job, err := client.Batches.Get(ctx, id, nil)
	if err != nil {
		return fmt.Errorf("gemini batch %s results: %w", id, p.classify(ctx, err))
	}
	if job.Dest == nil {
		return fmt.Errorf("gemini batch %s (%s) has no results", id, job.State)
	}
	if job.Dest.FileName != "" && len(job.Dest.InlinedResponses) == 0 {
		return fmt.Errorf("gemini batch %s wrote its results to file %s; only inlined batches are supported", id, job.Dest.FileName)
	}
	for i, ir := range job.Dest.InlinedResponses {
		r := llm.BatchResult{CustomID: ir.Metadata["key"]}
		if r.CustomID == "" {
			return fmt.Errorf("gemini batch %s: response %d has no metadata key", id, i)
		}
		switch {
		case ir.Error != nil:
			r.Err = llm.ClassifyHTTP(p.cfg.Name, httpStatus(ir.Error.Code), nil, ir.Error.Message, p.cfg.KeyEnv,
				fmt.Errorf("gemini batch item %s: %s", r.CustomID, ir.Error.Message))
		case ir.Response == nil:
			r.Err = fmt.Errorf("gemini batch item %s: neither response nor error", r.CustomID)
		default:
			r.Response = toResponse(ir.Response)
			r.Response.Notes = append(r.Response.Notes, "gemini batch "+id)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

// httpStatus maps a google.rpc.Code carried by a batch item error to the HTTP
// status the synchronous API would have sent.
func httpStatus(code *int32) int {
	if code == nil {
		return 500
	}
	switch *code {
	case 3, 9, 11: // INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE
		return 400
	case 16: // UNAUTHENTICATED
		return 401
	case 7: // PERMISSION_DENIED
		return 403
	case 5: // NOT_FOUND
		return 404
	case 8: // RESOURCE_EXHAUSTED
		return 429
	case 4: // DEADLINE_EXCEEDED
		return 504
	case 14: // UNAVAILABLE
		return 503
	default:
		return 500
	}
}
