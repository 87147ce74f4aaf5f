package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/store"
)

// Phase is one plan executed inside a run (e.g. "generation", "judging"). It
// counts every result per model: answered (from cache included), unusable
// (answered, not parsable), failed (no answer) and skipped (budget).
type Phase struct {
	Name string
	// Hint is the likely cause when answers are unusable, shown with one raw
	// answer, e.g. "judge answers are not JSON — is this model able to follow
	// the rubric?".
	Hint string

	run     *Run
	seq     int
	mu      sync.Mutex
	models  map[string]*store.PhaseCount
	planned map[string]int
	summary engine.Summary
	ended   bool
}

// Planned sets how many jobs the phase will make of each model, so that its
// progress, stored while it runs (Flush), says how far each has to go.
func (p *Phase) Planned(perModel map[string]int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.planned = perModel
}

// Flush stores the phase's counts so far, each model's jobs being those
// planned (Planned): what another process — the viewer — shows of a phase
// in progress. End stores the final counts over them.
func (p *Phase) Flush(ctx context.Context) error {
	p.mu.Lock()
	if p.ended {
		p.mu.Unlock()
		return nil
	}
	byModel := map[string]store.PhaseCount{}
	for m, n := range p.planned {
		byModel[m] = store.PhaseCount{Seq: p.seq, Phase: p.Name, Model: m, Jobs: n}
	}
	for m, c := range p.models {
		cc := *c
		cc.Jobs = max(cc.Jobs, p.planned[m])
		byModel[m] = cc
	}
	p.mu.Unlock()
	counts := make([]store.PhaseCount, 0, len(byModel))
	for _, c := range byModel {
		counts = append(counts, c)
	}
	sort.Slice(counts, func(i, k int) bool { return counts[i].Model < counts[k].Model })
	if len(counts) == 0 {
		return nil
	}
	return p.run.st.PutPhases(ctx, p.run.ID, counts)
}

// Phase begins a phase of the run.
func (r *Run) Phase(name, hint string) *Phase {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := &Phase{Name: name, Hint: hint, run: r, seq: len(r.phases) + 1, models: map[string]*store.PhaseCount{}}
	r.phases = append(r.phases, p)
	return p
}

// exampleLen caps the raw answer kept as an example of an unusable one.
const exampleLen = 600

func (p *Phase) count(model string) *store.PhaseCount {
	c := p.models[model]
	if c == nil {
		c = &store.PhaseCount{Seq: p.seq, Phase: p.Name, Model: model}
		p.models[model] = c
	}
	c.Jobs++
	return c
}

// Count counts one answer that did not come through the engine (an external
// detector's prediction, an imported record): usable says whether it could
// be parsed, raw is the answer as given.
func (p *Phase) Count(model string, usable bool, raw string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.count(model)
	c.Answered++
	if !usable {
		c.Unusable++
		if c.Example == "" {
			c.Example = clip(raw, exampleLen)
			if c.Example == "" {
				c.Example = "(an empty answer)"
			}
		}
	}
}

// Observe counts one result; usable says whether an answer could be parsed
// (it is ignored for results without an answer).
func (p *Phase) Observe(res engine.Result, usable bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.count(res.Job.Spec.String())
	switch {
	case errors.Is(res.Err, engine.ErrBudget):
		c.Skipped++
	case res.Err != nil || res.Response == nil:
		c.Failed++
	default:
		c.Answered++
		if res.Cached {
			c.Cached++
		}
		if !usable {
			c.Unusable++
			if c.Example == "" {
				c.Example = clip(res.Response.Text, exampleLen)
				if c.Example == "" {
					c.Example = "(an empty answer)"
				}
			}
		}
	}
}

// Counts returns the phase's counts, by model.
func (p *Phase) Counts() []store.PhaseCount {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]store.PhaseCount, 0, len(p.models))
	for _, c := range p.models {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, k int) bool { return out[i].Model < out[k].Model })
	return out
}

// Summary is the engine's summary of the phase (after End).
func (p *Phase) Summary() engine.Summary {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.summary
}

// End closes the phase with the engine's summary: its counts are stored with
// the run, and a model whose share of unusable answers passes the limit makes
// the phase fail with an *ExitError (ExitUnusable) that shows one raw answer
// and the likely cause.
func (p *Phase) End(ctx context.Context, sum engine.Summary) error {
	p.mu.Lock()
	p.summary, p.ended = sum, true
	p.mu.Unlock()
	counts := p.Counts()
	if len(counts) > 0 {
		if err := p.run.st.PutPhases(context.WithoutCancel(ctx), p.run.ID, counts); err != nil {
			// The store could not be written (a full disk): what is not
			// stored is asked for again by a re-run, as failed jobs are.
			return &ExitError{Code: ExitFailedJobs, Err: fmt.Errorf("%s: its counts could not be stored: %w; free the store's disk, or bring its database back, and run the same command again", p.Name, err)}
		}
	}
	return p.check(counts)
}

// check applies the unusable-answer limit.
func (p *Phase) check(counts []store.PhaseCount) error {
	return CheckUnusable(p.Name, p.Hint, counts, *p.run.opt.MaxUnusable)
}

// CheckUnusable applies the unusable-answer limit (a share; negative: no
// limit) to a phase's counts per model, as every run does: an ExitError
// with ExitUnusable naming the models over it and quoting one raw answer.
// Scoring paths without a run (answers read from a file) apply it too.
func CheckUnusable(name, hint string, counts []store.PhaseCount, limit float64) error {
	if limit < 0 {
		return nil
	}
	var bad []string
	example := ""
	for _, c := range counts {
		if c.Answered == 0 || c.Unusable == 0 || float64(c.Unusable) <= limit*float64(c.Answered) {
			continue
		}
		bad = append(bad, fmt.Sprintf("%d of %d answers from %s", c.Unusable, c.Answered, c.Model))
		if example == "" {
			example = c.Example
		}
	}
	if len(bad) == 0 {
		return nil
	}
	msg := fmt.Sprintf("%s: %s could not be parsed (more than %.0f %%; --max-unusable sets the limit)", name, strings.Join(bad, ", "), 100*limit)
	if hint != "" {
		msg += ": " + hint
	}
	msg += "\none raw answer: " + quote(example)
	return &ExitError{Code: ExitUnusable, Err: errors.New(msg), Reason: fmt.Sprintf("%s: %s unusable", name, strings.Join(bad, ", "))}
}

// Unusable sums the unusable answers over models.
func Unusable(counts []store.PhaseCount) (unusable, answered int) {
	for _, c := range counts {
		unusable += c.Unusable
		answered += c.Answered
	}
	return unusable, answered
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}

func quote(s string) string {
	return "«" + strings.ReplaceAll(s, "\n", "⏎ ") + "»"
}
