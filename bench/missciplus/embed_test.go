package missciplus

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/llm/llmtest"
)

// TestEmbeddingRankerEqualsUpstream: with the test server's embeddings,
// the embedding ranker ranks every dev argument's passages as upstream's
// own EmbeddingRanker does with the same embeddings
// (testdata/make_embed.py) — concat, mean of the best two sentences with
// section titles, concat over the whole study, and that with subtask 2's
// --p0 query — passage for passage, and its scores equal upstream's
// cosines.
func TestEmbeddingRankerEqualsUpstream(t *testing.T) {
	b, err := os.ReadFile("testdata/embed.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Runs []struct {
			Variant  string
			K        *int
			AddTitle bool `json:"add_title"`
			Full     bool
			P0Seed   *uint64 `json:"p0_seed"`
			Claims   map[string]string
			Rankings map[string][]string
			Scores   map[string][]float64
		}
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	args, err := Load("dev")
	if err != nil {
		t.Fatal(err)
	}
	if len(ref.Runs) != 4 {
		t.Fatalf("%d runs", len(ref.Runs))
	}
	for _, run := range ref.Runs {
		o := EmbedOptions{Variant: run.Variant, AddTitle: run.AddTitle, Full: run.Full}
		if run.K != nil {
			o.K = *run.K
		}
		use := args
		if run.P0Seed != nil {
			use = WithP0(args, *run.P0Seed)
			for _, a := range use {
				if a.Claim() != run.Claims[a.ID] {
					t.Errorf("--p0 %s: the query %q, upstream %q", a.ID, a.Claim(), run.Claims[a.ID])
				}
			}
		}
		plan, err := EmbedPlan(use, nil, o)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for j := range plan.Jobs {
			var vecs [][]float64
			for _, text := range j.Request.Embed {
				vecs = append(vecs, llmtest.Embedding(text))
			}
			rk, scores, err := EmbedRanking(use, engine.Result{Job: j, Response: &llm.Response{Vectors: vecs}}, o)
			if err != nil {
				t.Fatal(err)
			}
			n++
			if want := run.Rankings[rk.ID]; !slices.Equal(rk.Ranked, want) {
				t.Errorf("%s k %v title %v full %v, %s: %v, upstream %v", run.Variant, o.K, run.AddTitle, run.Full, rk.ID, rk.Ranked, want)
			}
			for i, s := range scores {
				if w := run.Scores[rk.ID][i]; math.Abs(s-w) > 1e-9 {
					t.Errorf("%s %s score %d: %v, upstream %v", run.Variant, rk.ID, i, s, w)
				}
			}
		}
		if n != len(args) {
			t.Errorf("%d jobs for %d arguments", n, len(args))
		}
	}
	if _, err := EmbedPlan(args, nil, EmbedOptions{Variant: "mean"}); err == nil {
		t.Error("mean without k accepted")
	}
}
