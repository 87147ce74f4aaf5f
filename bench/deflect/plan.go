package deflect

import (
	"fmt"
	"hash/fnv"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
)

// Namespaces of DeflectBench's calls in the cache.
const (
	NSGenerate = "deflect/generate"
	NSJudge    = "deflect/judge"
)

// GenOptions control the generation grid.
type GenOptions struct {
	Models  []llm.Spec
	Samples int // runs per (claim, template); upstream 5
	// Temperature for generation; nil means the provider default (upstream's
	// Anthropic calls sent none). The CLI default is 1.0.
	Temperature *float64
	// MaxTokens for generation; 0 leaves it to the provider, except that
	// Anthropic models get upstream's 2048.
	MaxTokens int
}

// genMeta travels with a generation job to its result.
type genMeta struct {
	Gen Generation
}

// GenerationPlan crosses models × claims × templates × runs (SPEC B.1). Each
// job carries its upstream Generation record (without the response).
func (b *Benchmark) GenerationPlan(o GenOptions) (engine.Plan, error) {
	if o.Samples < 1 {
		return engine.Plan{}, fmt.Errorf("samples must be at least 1")
	}
	if len(o.Models) == 0 {
		return engine.Plan{}, fmt.Errorf("no models: pass --models provider:model,…")
	}
	type item struct {
		c      Claim
		t      Template
		prompt string
	}
	var items []item
	for _, c := range b.Claims {
		for _, t := range b.Templates {
			p, err := b.Render(t, c)
			if err != nil {
				return engine.Plan{}, err
			}
			items = append(items, item{c, t, p})
		}
	}
	n := len(o.Models) * len(items) * o.Samples
	return engine.Plan{Name: "deflect generate", Len: n, Jobs: func(yield func(engine.Job) bool) {
		for _, m := range o.Models {
			for _, it := range items {
				for run := 1; run <= o.Samples; run++ {
					req := llm.UserPrompt("", it.prompt)
					req.Temperature = o.Temperature
					req.MaxTokens = o.MaxTokens
					if req.MaxTokens == 0 && m.Provider == "anthropic" {
						req.MaxTokens = 2048
					}
					g := Generation{GenID: GenID(it.c.ID, it.t.ID, m.Model, run), ClaimID: it.c.ID, ClaimText: it.c.Text,
						Level: it.c.Level, Context: it.c.Context, Domain: it.c.Domain, Fallacy: it.t.Fallacy,
						Explicitness: it.t.Explicitness, Frame: it.t.Frame, PromptNum: it.t.Num, PromptID: it.t.ID,
						PromptText: it.prompt, Model: m.String(), Run: run}
					if !yield(engine.Job{ID: g.GenID, Namespace: NSGenerate, Spec: m, Request: req, Sample: run - 1, Meta: genMeta{g}}) {
						return
					}
				}
			}
		}
	}}, nil
}

// GenerationFromResult completes a generation record from its engine result.
// A failed call becomes an "ERROR:" record: excluded from analysis, never judged.
func GenerationFromResult(r engine.Result) (Generation, bool) {
	m, ok := r.Job.Meta.(genMeta)
	if !ok {
		return Generation{}, false
	}
	g := m.Gen
	if r.Err != nil {
		g.Response, g.IsError = "ERROR: "+r.Err.Error(), 1
		return g, true
	}
	g.Response, g.CallKey = r.Response.Text, r.Key
	g.InputTokens, g.OutputTokens = int(r.Response.Usage.InputTokens), int(r.Response.Usage.OutputTokens)
	return g, true
}

// JudgeOptions control judging.
type JudgeOptions struct {
	Judges []llm.Spec
	// Temperature of the judges; nil means the provider default. The CLI
	// default is 0 (the paper's setting).
	Temperature *float64
	// Structured asks for the 8-field JSON schema as structured output.
	Structured bool
}

// judgeSample decides whether identical judge inputs share one call. At
// temperature 0 they do (the answer is the same; paying twice buys nothing).
// At any other temperature each generation gets its own judgement, as
// upstream did, so the sample index is derived from the generation id.
func judgeSample(req llm.Request, genID string) int {
	if req.Temperature != nil && *req.Temperature == 0 {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(genID))
	return int(h.Sum32())
}

type evalMeta struct {
	GenID, Judge string
}

// rubricShape is the answer the judge prompt asks for, for estimates.
var rubricShape = Rubric.Schema()

// JudgePlan sends every valid generation to every judge (SPEC B.2).
func (b *Benchmark) JudgePlan(gens []Generation, o JudgeOptions) (engine.Plan, error) {
	if len(o.Judges) == 0 {
		return engine.Plan{}, fmt.Errorf("no judges: pass --judges provider:model,…")
	}
	var valid []Generation
	for _, g := range gens {
		if g.Valid() {
			valid = append(valid, g)
		}
	}
	var schema *llm.Schema
	if o.Structured {
		schema = &llm.Schema{Name: "deflectbench_rubric", Schema: Rubric.Schema()}
	}
	return engine.Plan{Name: "deflect judge", Len: len(valid) * len(o.Judges), Jobs: func(yield func(engine.Job) bool) {
		for _, j := range o.Judges {
			for _, g := range valid {
				prompt, err := b.JudgePrompt(g.ClaimText, g.Response)
				if err != nil {
					continue // the judge template is validated at load; cannot happen
				}
				req := llm.UserPrompt(b.JudgeSystem, prompt)
				req.Temperature, req.MaxTokens, req.Schema = o.Temperature, 512, schema
				id := g.GenID + "__judge_" + Slug(j.String())
				if !yield(engine.Job{ID: id, Namespace: NSJudge, Spec: j, Request: req, Sample: judgeSample(req, g.GenID), Meta: evalMeta{g.GenID, j.String()},
					Shape: rubricShape}) {
					return
				}
			}
		}
	}}, nil
}

// EvalFromResult parses a judge result. A failed judge call yields no record
// (the generation counts as unjudged by that judge); ok reports whether there
// is a record.
func EvalFromResult(r engine.Result) (Eval, bool) {
	m, ok := r.Job.Meta.(evalMeta)
	if !ok || r.Err != nil {
		return Eval{}, false
	}
	e := EvalFromRaw(m.GenID, m.Judge, r.Response.Text)
	e.CallKey = r.Key
	return e, true
}
