package missciplus

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
)

// The embedding ranker is upstream's EmbeddingRanker with its
// BasePassageScorer (missci/ranking/embedding_ranker.py,
// passage_scorer/passage_scorer.py): each passage is scored by the cosine
// of its embedding to the claim's — concat: the passage's sentences
// joined; mean: the mean of its K best sentences' cosines — optionally
// with "(Section: …) " before each text, and the passages ranked by score
// (a stable sort of the study's file order). The embeddings come from any
// embeddings endpoint (an OpenAI-compatible /v1/embeddings: the sentence-
// transformers models upstream uses are served by vLLM, TEI or Infinity),
// as engine jobs: cached, budgeted, resumable.

// EmbedOptions say how the embedding ranker scores a passage.
type EmbedOptions struct {
	Spec llm.Spec
	// Variant is concat or mean; K, mean's number of best sentences.
	Variant  string
	K        int
	AddTitle bool
	Full     bool
}

func (o EmbedOptions) check() error {
	switch {
	case o.Variant != "concat" && o.Variant != "mean":
		return fmt.Errorf("--variant %q: want concat or mean", o.Variant)
	case o.Variant == "mean" && o.K < 1:
		return fmt.Errorf("--k %d: the mean variant needs k of 1 or more", o.K)
	}
	return nil
}

// title is the section prefix of a passage's texts.
func (o EmbedOptions) title(p Passage) string {
	if o.AddTitle && p.Section != "" {
		return "(Section: " + p.Section + ") "
	}
	return ""
}

// embedMeta ties an argument's embeddings job to its texts: index 0 is the
// claim; Units[i] are passage i's texts (its one joined text, or its
// sentences).
type embedMeta struct {
	Arg   int
	IDs   []string
	Units [][2]int // [first, end) of each passage's texts, after the claim
}

// EmbedPlan is one embeddings job per argument: the claim and every text
// its passages are scored by (keep: the arguments chosen; nil: all).
func EmbedPlan(args []Argument, keep map[string]bool, o EmbedOptions) (engine.Plan, error) {
	if err := o.check(); err != nil {
		return engine.Plan{}, err
	}
	var jobs []engine.Job
	for i, a := range args {
		if keep != nil && !keep[a.ID] {
			continue
		}
		src := a.Study.Selected
		if o.Full {
			src = a.Study.All
		}
		texts := []string{a.Claim()}
		m := embedMeta{Arg: i}
		for _, id := range src.IDs() {
			p, _ := src.Get(id)
			start := len(texts)
			if o.Variant == "mean" {
				for _, s := range p.Sentences {
					texts = append(texts, o.title(p)+s)
				}
			} else {
				texts = append(texts, o.title(p)+strings.Join(p.Sentences, " "))
			}
			m.IDs = append(m.IDs, id)
			m.Units = append(m.Units, [2]int{start, len(texts)})
		}
		jobs = append(jobs, engine.Job{ID: a.ID, Namespace: Namespace + "/embed", Spec: o.Spec, Request: llm.Request{Embed: texts}, Meta: m})
	}
	return engine.SlicePlan(Name+" embeddings", jobs), nil
}

// EmbedRanking ranks one argument's passages from its job's vectors.
func EmbedRanking(args []Argument, r engine.Result, o EmbedOptions) (Ranking, []float64, error) {
	m, ok := r.Job.Meta.(embedMeta)
	if !ok {
		return Ranking{}, nil, fmt.Errorf("job %s is not an embeddings job of this ranker", r.Job.ID)
	}
	vecs := r.Response.Vectors
	if want := len(r.Job.Request.Embed); len(vecs) != want {
		return Ranking{}, nil, fmt.Errorf("%s: %d vectors for %d texts", r.Job.ID, len(vecs), want)
	}
	type scored struct {
		id    string
		score float64
	}
	var ps []scored
	for k, id := range m.IDs {
		u := m.Units[k]
		var cos []float64
		for t := u[0]; t < u[1]; t++ {
			cos = append(cos, cosine(vecs[0], vecs[t]))
		}
		if len(cos) == 0 {
			return Ranking{}, nil, fmt.Errorf("%s: passage %s has no sentence to score", r.Job.ID, id)
		}
		score := cos[0]
		if o.Variant == "mean" {
			sort.Sort(sort.Reverse(sort.Float64Slice(cos)))
			top := cos[:min(o.K, len(cos))]
			score = 0
			for _, c := range top {
				score += c
			}
			score /= float64(len(top))
		}
		ps = append(ps, scored{id, score})
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].score > ps[j].score })
	out := Ranking{ID: args[m.Arg].ID}
	var scores []float64
	for _, p := range ps {
		out.Ranked = append(out.Ranked, p.id)
		scores = append(scores, p.score)
	}
	return out, scores, nil
}

// cosine is the cosine similarity of two vectors (0 when either is zero,
// as sentence-transformers' cos_sim, which clamps the norms).
func cosine(a, b []float64) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb))
}
