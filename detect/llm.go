package detect

import (
	"context"
	"fmt"
	"strings"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
)

// Flagged is the label of a binary detector's "yes".
const Flagged = "fallacy"

// Runner executes a plan through the engine (cache, limits, retries).
type Runner func(ctx context.Context, p engine.Plan, onResult func(engine.Result)) error

// LLM is a zero-shot detector: a frozen prompt, temperature 0, a 64-token
// cap, and strict parsing (SPEC C.10). Kind "typed" answers one of Labels;
// kind "binary" answers yes or no.
type LLM struct {
	Spec     llm.Spec
	Kind     string
	Template string   // the typed prompt holds {text}; the binary prompt gets the text appended
	Labels   []string // typed label set
	// Namespace names the calls in the cache (its Kind is appended): the
	// benchmark's own, so the calls of one detector in two benchmarks
	// stay apart.
	Namespace string
	Run       Runner
}

// Name implements Detector.
func (d *LLM) Name() string { return "llm:" + d.Spec.String() + ":" + d.Kind }

// Prompt renders the prompt for a text.
func (d *LLM) Prompt(text string) string {
	if strings.Contains(d.Template, "{text}") {
		return strings.ReplaceAll(d.Template, "{text}", text)
	}
	// The paper does not say where the binary prompt puts the argument
	// [ASSUMPTION]: after the question, on its own paragraph.
	return strings.TrimRight(d.Template, "\n") + "\n\n" + text
}

// Plan is the detector's calls for the inputs: one per input, Meta its index.
func (d *LLM) Plan(in []Input) engine.Plan {
	jobs := make([]engine.Job, len(in))
	for i, x := range in {
		req := llm.UserPrompt("", d.Prompt(x.Text))
		req.Temperature, req.MaxTokens = llm.Temp(0), 64
		jobs[i] = engine.Job{ID: x.ID, Namespace: d.Namespace + "/" + d.Kind, Spec: d.Spec, Request: req, Meta: i}
	}
	return engine.SlicePlan(d.Namespace, jobs)
}

// Parse maps an answer to a label (typed or binary, by Kind).
func (d *LLM) Parse(raw string) (string, bool) {
	if d.Kind == "binary" {
		return ParseBinary(raw)
	}
	return ParseTyped(raw, d.Labels)
}

// Detect implements Detector: one cached call per input.
func (d *LLM) Detect(ctx context.Context, in []Input) ([]Prediction, error) {
	if d.Run == nil {
		return nil, fmt.Errorf("detector %s: no engine", d.Name())
	}
	out := make([]Prediction, len(in))
	for i, x := range in {
		out[i] = Prediction{ID: x.ID}
	}
	err := d.Run(ctx, d.Plan(in), func(r engine.Result) {
		i := r.Job.Meta.(int)
		if r.Err != nil {
			out[i].Raw = "ERROR: " + r.Err.Error()
			return
		}
		out[i].Raw, out[i].CallKey = r.Response.Text, r.Key
		out[i].Label, out[i].Parsed = d.Parse(r.Response.Text)
	})
	return out, err
}

// ParseTyped maps a typed answer to a label (SPEC C.10): lower-case, strip
// whitespace, quotes and trailing punctuation; an exact label wins; else the
// single label that occurs as a substring; else unparsed.
func ParseTyped(raw string, labels []string) (string, bool) {
	s := strings.ToLower(strings.TrimSpace(raw))
	s = strings.Trim(s, " \t\r\n\"'`“”‘’")
	s = strings.TrimRight(s, ".!?,;: \t\r\n")
	s = strings.Trim(s, " \"'`“”‘’")
	for _, l := range labels {
		if s == l {
			return l, true
		}
	}
	found := ""
	for _, l := range labels {
		if strings.Contains(s, l) {
			if found != "" {
				return "", false
			}
			found = l
		}
	}
	return found, found != ""
}

// ParseBinary maps a yes/no answer: first word "yes" → Flagged, "no" → none.
func ParseBinary(raw string) (string, bool) {
	f := strings.Fields(strings.ToLower(raw))
	if len(f) == 0 {
		return "", false
	}
	w := strings.Trim(f[0], ".,!?;:\"'`")
	switch w {
	case "yes":
		return Flagged, true
	case "no":
		return "none", true
	}
	return "", false
}
