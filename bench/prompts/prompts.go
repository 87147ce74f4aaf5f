// Package prompts is the simplest benchmark: a JSONL file of prompts run on
// any set of models. It is also how users send their own prompt sets through
// the engine (cache, limits, batches) without writing code.
package prompts

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/decode"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
)

// Item is one line of a prompts file.
type Item struct {
	ID          string   `json:"id"`
	Prompt      string   `json:"prompt"`
	System      string   `json:"system,omitempty"`
	Temperature *float64 `json:"temperature,omitempty"`
	MaxTokens   int      `json:"max_tokens,omitempty"`
	Seed        *int64   `json:"seed,omitempty"`
	Stop        []string `json:"stop,omitempty"`
}

// Parse reads JSONL prompts. Errors name the file, line and field; ids must be
// unique (a missing id becomes "line-N").
func Parse(r io.Reader, name string) ([]Item, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []Item
	seen := map[string]int{}
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if n == 1 {
			line = decode.StripBOM(line)
		}
		if len(line) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		var it Item
		if err := dec.Decode(&it); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, n, decode.Explain(err, it))
		}
		if strings.TrimSpace(it.Prompt) == "" {
			return nil, fmt.Errorf("%s line %d: field prompt: required and non-empty", name, n)
		}
		if it.Temperature != nil && (*it.Temperature < 0 || *it.Temperature > 2) {
			return nil, fmt.Errorf("%s line %d: field temperature: %g is outside [0, 2]", name, n, *it.Temperature)
		}
		if it.MaxTokens < 0 {
			return nil, fmt.Errorf("%s line %d: field max_tokens: must be positive", name, n)
		}
		if it.ID == "" {
			it.ID = fmt.Sprintf("line-%d", n)
		}
		if prev, dup := seen[it.ID]; dup {
			return nil, fmt.Errorf("%s line %d: field id: %q already used on line %d", name, n, it.ID, prev)
		}
		seen[it.ID] = n
		out = append(out, it)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no prompts", name)
	}
	return out, nil
}

// Request converts an item to a model request.
func (it Item) Request() llm.Request {
	r := llm.UserPrompt(it.System, it.Prompt)
	r.Temperature, r.MaxTokens, r.Seed, r.Stop = it.Temperature, it.MaxTokens, it.Seed, it.Stop
	return r
}

// Plan crosses items × models × samples. Job ids are "model/id/sample".
func Plan(items []Item, specs []llm.Spec, samples int) engine.Plan {
	if samples < 1 {
		samples = 1
	}
	return engine.Plan{Name: "prompts", Len: len(items) * len(specs) * samples, Jobs: func(yield func(engine.Job) bool) {
		for _, sp := range specs {
			for _, it := range items {
				for s := range samples {
					j := engine.Job{ID: fmt.Sprintf("%s/%s/%d", sp, it.ID, s), Namespace: "prompts", Spec: sp, Request: it.Request(), Sample: s, Meta: it.ID}
					if !yield(j) {
						return
					}
				}
			}
		}
	}}
}

// Definition registers the free-form prompt sets: one phase, every answer
// usable (there is nothing to parse).
var Definition = &bench.Benchmark{
	Name:    "prompts",
	Title:   "Prompt set",
	Summary: "your own JSONL prompts on any models",
	Phases:  []bench.Phase{{Name: "calls"}},
}
