package classify

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/corpus"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/runner"
	"github.com/fallacylab/fallacylab/store"
)

// Options are a run's options, as its flags set them.
type Options struct {
	Corpus    string `json:"corpus"`
	Split     string `json:"split"`
	Template  string `json:"template"`
	Model     string `json:"model"`
	Limit     int    `json:"limit"`
	Seed      uint64 `json:"seed"`
	MaxTokens int    `json:"max_tokens"`
}

// DefaultOptions are the flags' defaults: the embedded Reddit corpus's test
// split, zero-shot, 64 output tokens (a label is a few words).
func DefaultOptions() Options {
	return Options{Corpus: "reddit", Split: "test", Template: "zero-shot", Seed: 1, MaxTokens: 64}
}

// Setup is what a run classified, kept with its records.
type Setup struct {
	Options
	Labels LabelSet `json:"labels"`
	// Texts is how many texts the split has (Limit may take fewer).
	Texts int `json:"texts"`
	// Trained is how the built-in detector was fitted (its runs only).
	Trained *Trained `json:"trained,omitempty"`
}

// Trained records the built-in detector's fit: the C chosen and the dev
// accuracy of every C tried.
type Trained struct {
	C         float64            `json:"c"`
	Selection map[string]float64 `json:"dev_accuracy"`
}

// Prediction is one text's record.
type Prediction struct {
	ID   string `json:"id"`
	Gold string `json:"gold"`
	// Pred is the label the answer named ("" : none — unusable, or the
	// call failed).
	Pred string `json:"pred"`
	// Failed is the call's error, when it has no answer.
	Failed string `json:"failed,omitempty"`
	// Text is the text classified (kept with the run, for its pages).
	Text string `json:"text,omitempty"`
}

// BindRun implements bench.Runs.
func (Task) BindRun(f *pflag.FlagSet) func(context.Context, bench.Env) (runner.Spec, error) {
	o := DefaultOptions()
	f.StringVar(&o.Corpus, "corpus", o.Corpus, "corpus: "+strings.Join(corpus.Names, ", ")+" (only reddit and argotario are embedded)")
	f.StringVar(&o.Split, "split", o.Split, "split to classify (train, dev or test)")
	f.StringVar(&o.Template, "template", o.Template, "prompt: "+strings.Join(Templates, ", "))
	f.StringVar(&o.Model, "model", "", "the model that classifies, e.g. openai:gpt-4.1, or "+Baseline+" (TF-IDF + logistic regression trained on the corpus's train split)")
	f.IntVar(&o.Limit, "limit", 0, "classify only N texts, taken in turn from each label (0: all)")
	f.Uint64Var(&o.Seed, "seed", o.Seed, "seed of the few-shot examples")
	f.IntVar(&o.MaxTokens, "max-tokens", o.MaxTokens, "output token limit per answer")
	bench.Choices(f, "corpus", corpus.Names...)
	bench.Choices(f, "split", "train", "dev", "test")
	bench.Choices(f, "template", Templates...)
	return func(ctx context.Context, env bench.Env) (runner.Spec, error) { return o.spec(env) }
}

// spec is the run of the options: one call per text, parsed into its label.
func (o Options) spec(env bench.Env) (runner.Spec, error) {
	var spec llm.Spec
	if o.Model != Baseline {
		var err error
		if spec, err = llm.ParseSpec(o.Model); err != nil {
			return runner.Spec{}, fmt.Errorf("--model: %w (e.g. --model openai:gpt-4.1, or %s)", err, Baseline)
		}
	}
	if !slices.Contains(Templates, o.Template) {
		return runner.Spec{}, fmt.Errorf("--template %q: use %s", o.Template, strings.Join(Templates, ", "))
	}
	items, err := corpus.Load(env.Data, o.Corpus, corpus.LoadOptions{})
	if err != nil {
		return runner.Spec{}, err
	}
	labels := labelsOf(o.Corpus, items)
	texts := corpus.Split(items, o.Split)
	if len(texts) == 0 {
		return runner.Spec{}, fmt.Errorf("corpus %s has no %s split (it has %s)", o.Corpus, o.Split, joined(splits(items)))
	}
	setup := Setup{Options: o, Labels: labels, Texts: len(texts)}
	texts = limitTexts(texts, o.Limit)
	ids := uniqueIDs(texts)
	if o.Model == Baseline {
		setup.Template = ""
		return o.baselineSpec(env, items, texts, ids, setup)
	}
	var defs map[string]string
	var shots []corpus.Item
	switch o.Template {
	case "definitions":
		if defs, err = Definitions(env.Data, o.Corpus, labels); err != nil {
			return runner.Spec{}, err
		}
	case "few-shot":
		var pool []corpus.Item
		for _, from := range []string{"train", "dev"} {
			if from != o.Split && len(pool) == 0 {
				pool = corpus.Split(items, from)
			}
		}
		if len(pool) == 0 {
			return runner.Spec{}, fmt.Errorf("--template few-shot draws its examples from the train or dev split of %s, which has %s", o.Corpus, joined(splits(items)))
		}
		shots = Shots(pool, labels, o.Seed)
	}
	jobs := make([]engine.Job, len(texts))
	for i, it := range texts {
		req := llm.UserPrompt("", Prompt(it, labels, defs, shots))
		req.Temperature, req.MaxTokens = llm.Temp(0), o.MaxTokens
		jobs[i] = engine.Job{ID: ids[i], Namespace: Name + "/" + o.Template, Spec: spec, Request: req, Meta: meta{Index: i, Labels: labels}}
	}
	preds := make([]*store.Record, len(texts))
	p := Definition.Phases[0]
	ph := runner.Phase{Name: p.Name, Hint: p.Hint, Usable: p.Usable, Plan: engine.SlicePlan(Name, jobs)}
	ph.OnResult = func(r engine.Result) {
		m, ok := r.Job.Meta.(meta)
		if !ok {
			return
		}
		pr := Prediction{ID: r.Job.ID, Gold: texts[m.Index].NativeLabel(), Text: texts[m.Index].Text}
		if r.Err != nil {
			pr.Failed = r.Err.Error()
		} else {
			pr.Pred, _ = labels.Parse(r.Response.Text)
		}
		body, _ := json.Marshal(pr)
		preds[m.Index] = &store.Record{Key: pr.ID, CallKey: r.Key, Body: body}
	}
	ph.Records = func(ctx context.Context, runID int64) error {
		var done []store.Record
		for _, r := range preds {
			if r != nil {
				done = append(done, *r)
			}
		}
		return putRecords(ctx, env.Records, runID, setup, done)
	}
	return runner.Spec{Name: fmt.Sprintf("%s %s %s %s", Name, o.Corpus, o.Template, spec), Options: o,
		Specs: []llm.Spec{spec}, Phases: []runner.Phase{ph}}, nil
}

// uniqueIDs are the texts' ids, a repeated one numbered (the Reddit test
// split holds one comment twice): one prediction per text.
func uniqueIDs(texts []corpus.Item) []string {
	out := make([]string, len(texts))
	seen := map[string]int{}
	for i, it := range texts {
		seen[it.ID]++
		out[i] = it.ID
		if n := seen[it.ID]; n > 1 {
			out[i] = fmt.Sprintf("%s#%d", it.ID, n)
		}
	}
	return out
}

// limitTexts takes n texts in turn from each label, in the corpus's order
// (0: all).
func limitTexts(texts []corpus.Item, n int) []corpus.Item {
	if n <= 0 {
		return texts
	}
	return corpus.TakeInTurn(texts, n, corpus.Item.NativeLabel, "")
}

// joined names splits for people: "test", "train, dev and test".
func joined(splits []string) string {
	if len(splits) < 2 {
		return "only " + strings.Join(splits, "")
	}
	return strings.Join(splits[:len(splits)-1], ", ") + " and " + splits[len(splits)-1]
}

func splits(items []corpus.Item) []string {
	seen := map[string]bool{}
	var out []string
	for _, it := range items {
		if !seen[it.Split] {
			seen[it.Split] = true
			out = append(out, it.Split)
		}
	}
	slices.Sort(out)
	return out
}
