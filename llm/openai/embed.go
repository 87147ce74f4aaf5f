package openai

import (
	"context"
	"fmt"

	oai "github.com/openai/openai-go/v3"
)

// Embed returns one embedding per text from an OpenAI-compatible
// /v1/embeddings endpoint (OpenAI, or a local server running e.g.
// all-mpnet-base-v2).
func (p *Provider) Embed(ctx context.Context, model string, texts []string) ([][]float64, error) {
	res, err := p.client.Embeddings.New(ctx, oai.EmbeddingNewParams{
		Model: oai.EmbeddingModel(model),
		Input: oai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts},
	})
	if err != nil {
		return nil, p.classify(ctx, err)
	}
	out := make([][]float64, len(texts))
	for _, e := range res.Data {
		if e.Index < 0 || int(e.Index) >= len(texts) {
			return nil, fmt.Errorf("%s embeddings: index %d out of range", p.cfg.Name, e.Index)
		}
		out[e.Index] = e.Embedding
	}
	for i, v := range out {
		if v == nil {
			return nil, fmt.Errorf("%s embeddings: no vector for input %d", p.cfg.Name, i)
		}
	}
	return out, nil
}
