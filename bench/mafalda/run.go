package mafalda

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/runner"
	"github.com/fallacylab/fallacylab/store"
)

// Options are a run's options, as its flags set them.
type Options struct {
	Model string `json:"model"`
	// Level is the prompt's level: 2 (23 fallacies; also scored at levels
	// 1 and 0, as upstream does) or 1 (emotion, logic, credibility).
	Level     int `json:"level"`
	Limit     int `json:"limit"`
	MaxTokens int `json:"max_tokens"`
}

// DefaultOptions are the flags' defaults: level 2 and upstream's 1,024
// output tokens (its OpenAI runs; temperature 0).
func DefaultOptions() Options { return Options{Level: 2, MaxTokens: 1024} }

// Setup is what a run asked, kept with its records.
type Setup struct {
	Options
	// Texts is how many texts the gold standard has (Limit may take fewer).
	Texts int `json:"texts"`
}

// Record is one text's record: its gold annotations and the answer about
// each of its sentences.
type Record struct {
	Index int `json:"index"`
	// Level is the prompt's level, which the answers' labels are of.
	Level  int         `json:"level"`
	Text   string      `json:"text"`
	Labels []SpanLabel `json:"labels"`
	// Answers are the sentences asked about, in order, with the raw answer
	// and its labels (Labels); Failed says why a call has no answer.
	Answers []RecordAnswer `json:"answers"`
}

// RecordAnswer is one sentence's answer.
type RecordAnswer struct {
	Sentence string `json:"sentence"`
	Output   string `json:"output"`
	Labels   []int  `json:"labels"`
	Failed   string `json:"failed,omitempty"`
	// CallKey is the call the answer came from (runs before it was kept:
	// only the text's first sentence's, as the record's own call).
	CallKey string `json:"call_key,omitempty"`
}

// meta ties a job to its text and sentence.
type meta struct{ Text, Sentence, Level int }

// BindRun implements bench.Runs.
func (Task) BindRun(f *pflag.FlagSet) func(context.Context, bench.Env) (runner.Spec, error) {
	o := DefaultOptions()
	f.StringVar(&o.Model, "model", "", "the model that labels the sentences, e.g. openai:gpt-4.1")
	f.IntVar(&o.Level, "level", o.Level, "the prompt's level: 2 (23 fallacies, also scored at levels 1 and 0) or 1 (emotion, logic, credibility)")
	f.IntVar(&o.Limit, "limit", 0, "ask about the first N texts only (0: all 200)")
	f.IntVar(&o.MaxTokens, "max-tokens", o.MaxTokens, "output token limit per answer")
	bench.Choices(f, "level", "2", "1")
	return func(ctx context.Context, env bench.Env) (runner.Spec, error) { return o.spec(env) }
}

// spec is the run of the options: one call per sentence of each text.
func (o Options) spec(env bench.Env) (runner.Spec, error) {
	spec, err := llm.ParseSpec(o.Model)
	if err != nil {
		return runner.Spec{}, fmt.Errorf("--model: %w (e.g. --model openai:gpt-4.1)", err)
	}
	switch o.Level {
	case 1, 2:
	case 0:
		return runner.Spec{}, fmt.Errorf("--level 0: upstream scores level 0 from the level-2 answers (fallacy or not); run --level 2, whose report has level 0")
	default:
		return runner.Spec{}, fmt.Errorf("--level %d: use 2 or 1", o.Level)
	}
	if o.Limit < 0 {
		return runner.Spec{}, fmt.Errorf("--limit %d: want 0 (all) or more", o.Limit)
	}
	texts, err := Load(env.Data)
	if err != nil {
		return runner.Spec{}, err
	}
	setup := Setup{Options: o, Texts: len(texts)}
	if o.Limit > 0 && o.Limit < len(texts) {
		texts = texts[:o.Limit]
	}
	recs := make([]Record, len(texts))
	var jobs []engine.Job
	for i, t := range texts {
		recs[i] = Record{Index: i, Level: o.Level, Text: t.Text, Labels: t.Labels}
		for k, s := range Sentences(t) {
			recs[i].Answers = append(recs[i].Answers, RecordAnswer{Sentence: s})
			p, err := Prompt(o.Level, t.Text, s)
			if err != nil {
				return runner.Spec{}, err
			}
			req := llm.UserPrompt("", p)
			req.Temperature, req.MaxTokens = llm.Temp(0), o.MaxTokens
			jobs = append(jobs, engine.Job{ID: fmt.Sprintf("t%03d/s%02d", i, k), Namespace: fmt.Sprintf("%s/level%d", Name, o.Level),
				Spec: spec, Request: req, Meta: meta{Text: i, Sentence: k, Level: o.Level}})
		}
	}
	answered := make([][]bool, len(recs))
	callKeys := make([]string, len(recs))
	for i := range recs {
		answered[i] = make([]bool, len(recs[i].Answers))
	}
	p := Definition.Phases[0]
	ph := runner.Phase{Name: p.Name, Hint: p.Hint, Usable: p.Usable, Plan: engine.SlicePlan(Name, jobs)}
	ph.OnResult = func(r engine.Result) {
		m, ok := r.Job.Meta.(meta)
		if !ok {
			return
		}
		a := &recs[m.Text].Answers[m.Sentence]
		a.CallKey = r.Key
		if r.Err != nil {
			a.Failed = r.Err.Error()
		} else {
			a.Output, a.Labels = r.Response.Text, Labels(r.Response.Text, o.Level)
		}
		answered[m.Text][m.Sentence] = true
		if m.Sentence == 0 {
			callKeys[m.Text] = r.Key
		}
	}
	ph.Records = func(ctx context.Context, runID int64) error {
		// A text is a record once every sentence of it has its outcome.
		var out []store.Record
		for i, r := range recs {
			if !all(answered[i]) {
				continue
			}
			body, err := json.Marshal(r)
			if err != nil {
				return err
			}
			out = append(out, store.Record{Kind: KindText, Key: fmt.Sprintf("t%03d", i), CallKey: callKeys[i], Body: body})
		}
		body, err := json.Marshal(setup)
		if err != nil {
			return err
		}
		// One transaction: a run never holds a setup without its texts.
		return env.Records.PutRecordKinds(ctx, runID, []string{KindSetup, KindText},
			append([]store.Record{{Kind: KindSetup, Key: "setup", Body: body}}, out...))
	}
	return runner.Spec{Name: fmt.Sprintf("%s level %d %s", Name, o.Level, spec), Options: o,
		Specs: []llm.Spec{spec}, Phases: []runner.Phase{ph}}, nil
}

func all(bs []bool) bool {
	for _, b := range bs {
		if !b {
			return false
		}
	}
	return true
}
