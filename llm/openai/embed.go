package openai

import (
	"context"
	"fmt"

	oai "github.com/openai/openai-go/v3"

	"github.com/fallacylab/fallacylab/llm"
)

// Embed returns one embedding per text from an OpenAI-compatible
// /v1/embeddings endpoint (OpenAI, or a local server running e.g.
// all-mpnet-base-v2).
func (p *Provider) Embed(ctx context.Context, model string, texts []string) ([][]float64, llm.Usage, error) {
	res, err := p.client.Embeddings.New(ctx, oai.EmbeddingNewParams{
		Model: oai.EmbeddingModel(model),
		Input: oai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts},
	})
	if err != nil {
		return nil, llm.Usage{}, p.classify(ctx, err)
	}
	out := make([][]float64, len(texts))
	for _, e := range res.Data {
		if e.Index < 0 || int(e.Index) >= len(texts) {
			return nil, llm.Usage{}, fmt.Errorf("%s embeddings: index %d out of range", p.cfg.Name, e.Index)
		}
		out[e.Index] = e.Embedding
	}
	for i, v := range out {
		if v == nil {
			return nil, llm.Usage{}, fmt.Errorf("%s embeddings: no vector for input %d", p.cfg.Name, i)
		}
	}
	return out, llm.Usage{InputTokens: res.Usage.PromptTokens}, nil
}
