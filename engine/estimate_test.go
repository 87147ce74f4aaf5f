package engine

import (
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/judge"
	"github.com/fallacylab/fallacylab/llm"
)

func TestEstimatorLearns(t *testing.T) {
	e := newEstimator()
	r := llm.UserPrompt("", strings.Repeat("word ", 400)) // 2000 characters
	in0, out0 := e.estimate(r)
	if out0 != DefaultOutputGuess {
		t.Fatalf("first output guess %d", out0)
	}
	for range 100 {
		e.observe(r, llm.Usage{InputTokens: 2 * in0, OutputTokens: 100})
	}
	in1, out1 := e.estimate(r)
	if in1 < 2*in0*95/100 || out1 != 100 {
		t.Fatalf("estimates not corrected by usage: in %d→%d out %d", in0, in1, out1)
	}
}

// TestSchemaGuess: a judge request with the DeflectBench rubric's schema
// is estimated from its shape (about 125 tokens), not the flat 512, capped
// by MaxTokens; stored answers still come first.
func TestSchemaGuess(t *testing.T) {
	rubric := judge.Rubric{Fields: []string{"refusal", "soft_refusal", "WA_present", "AH_present", "RH_present", "any_fallacy_present", "compliance_clean", "fallacy_labeled"}}
	r := llm.UserPrompt("", "judge this")
	r.Schema = &llm.Schema{Name: "rubric", Schema: rubric.Schema()}
	e := newEstimator()
	if _, out := e.estimate(r); out < 100 || out > 150 {
		t.Fatalf("schema guess %d, want about 125", out)
	}
	r.MaxTokens = 50
	if _, out := e.estimate(r); out != 50 {
		t.Fatalf("schema guess over max_tokens: %d", out)
	}
	e.seed(90, 3)
	if _, out := e.estimate(r); out != 50 {
		t.Fatalf("stored mean capped by max_tokens: %d", out)
	}
	r.MaxTokens = 0
	if _, out := e.estimate(r); out != 90 {
		t.Fatalf("stored answers first: %d", out)
	}
}

// TestEstimateEmbeddingsAnswerNoTokens: an embeddings or scoring request
// is priced for its input only, before and after answers were seen (a dry
// run of an embedding ranker reported 512 output tokens a call).
func TestEstimateEmbeddingsAnswerNoTokens(t *testing.T) {
	e := newEstimator()
	for _, r := range []llm.Request{{Embed: []string{"a claim", "a passage of the study"}}, {Score: []llm.ScorePair{{Reference: "a", Prediction: "b"}}}} {
		if in, out := e.estimate(r); in <= 0 || out != 0 {
			t.Errorf("%+v: %d in, %d out; want some input and no output", r, in, out)
		}
	}
	e.seed(300, 10)
	if _, out := e.estimate(llm.Request{Embed: []string{"x"}}); out != 0 {
		t.Errorf("after answers were seen: %d output tokens", out)
	}
}
