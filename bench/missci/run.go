package missci

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/runner"
)

// BindRun implements bench.Runs: one task with one template — a
// reconstruction (then, with --embedder and --scorer, the embedding and
// scoring of its premises), a classification, or a consistency check (a
// reconstruction, then the classification of its top premises). Several
// templates are a sweep (Sweeps): one run each.
func (Task) BindRun(f *pflag.FlagSet) func(ctx context.Context, env bench.Env) (runner.Spec, error) {
	var o runOptions
	f.StringVar(&o.Task, "task", "reconstruct", "reconstruct, classify-gold, classify-only or consistency")
	f.StringVar(&o.Model, "model", "", "model provider:model")
	f.StringVar(&o.Model, "models", "", "the same as --model (the other run commands' spelling; one model)")
	f.MarkHidden("models")
	f.StringVar(&o.Template, "template", "", "prompt template (default per task); a list, a glob (gen_cls/p4-*) or all runs a sweep, one run per template")
	f.StringVar(&o.FromTemplate, "from-template", "gen_cls/p4-connect-D", "consistency: the reconstruction template whose answers are classified")
	f.StringVar(&o.Split, "split", "test", "dev or test")
	f.IntVar(&o.MaxTokens, "max-tokens", 1000, "output token limit (upstream GPT-4: 1000)")
	f.BoolVar(&o.Strict, "strict", false, "abort on an unknown class name or a self-naming premise, as upstream does")
	f.StringVar(&o.Embedder, "embedder", "", "embeddings model provider:model for pairing premises without a class match (a phase of the run)")
	f.StringVar(&o.Scorer, "scorer", "", "URL of a BERTScore/NLI scorer (docs/scorer-protocol.md; a phase of the run)")
	o.Select.Flags(f, "arguments")
	bench.Choices(f, "task", "reconstruct", "classify-gold", "classify-only", "consistency")
	bench.Choices(f, "template", append(Templates(), "all")...)
	bench.Choices(f, "from-template", Templates()...)
	return func(ctx context.Context, env bench.Env) (runner.Spec, error) { return runSpec(env, o) }
}

// SweepFlag implements bench.Sweeps: --template may name several
// templates (a list, a glob, all), one run each.
func (Task) SweepFlag(f *pflag.FlagSet) (string, []string, error) {
	task, _ := f.GetString("task")
	tpl, _ := f.GetString("template")
	if tpl == "" {
		return "template", nil, nil
	}
	if _, ok := defaultTemplates[task]; !ok {
		return "template", nil, fmt.Errorf("--task %q: use reconstruct, classify-gold, classify-only or consistency", task)
	}
	ts, err := expandTemplates(tpl, task)
	if err == nil && len(ts) > 1 && task == "consistency" {
		err = fmt.Errorf("--task consistency takes one --template")
	}
	return "template", ts, err
}

// runSpec is the run the options ask for.
func runSpec(env bench.Env, o runOptions) (runner.Spec, error) {
	spec, err := llm.ParseSpec(o.Model)
	if err != nil {
		return runner.Spec{}, err
	}
	def, ok := defaultTemplates[o.Task]
	if !ok {
		return runner.Spec{}, fmt.Errorf("--task %q: use reconstruct, classify-gold, classify-only or consistency", o.Task)
	}
	if o.Template == "" {
		o.Template = def
	}
	templates, err := expandTemplates(o.Template, o.Task)
	if err != nil {
		return runner.Spec{}, err
	}
	if len(templates) > 1 {
		return runner.Spec{}, fmt.Errorf("--template %s names %d templates: a run takes one (the run command runs a sweep of them)", o.Template, len(templates))
	}
	o.Template = templates[0]
	if o.Task != "reconstruct" && (o.Embedder != "" || o.Scorer != "") {
		return runner.Spec{}, fmt.Errorf("--embedder and --scorer score reconstructed premises: --task %s makes none", o.Task)
	}
	split, err := Load(o.Split)
	if err != nil {
		return runner.Spec{}, err
	}
	data, err := bench.Select(o.Select, "arguments", split, func(a Argument) string { return a.ID })
	if err != nil {
		return runner.Spec{}, err
	}
	r := &missciRun{env: env, o: o, spec: spec, data: data}
	r.opts = ParseOptions{Strict: o.Strict, Unknown: &r.unknown}
	// The name and identity of the runs this command made before it ran
	// them as a Task: an old run resumes and is found done.
	rs := runner.Spec{Name: "missci " + o.Task + " " + o.Template, Options: o, Specs: []llm.Spec{spec}, Identity: []any{o.Strict}}
	switch o.Task {
	case "reconstruct":
		rec, err := r.reconstruction(o.Template, true)
		if err != nil {
			return rs, err
		}
		rs.Phases = []runner.Phase{rec}
		if o.Embedder != "" || o.Scorer != "" {
			more, specs, err := r.premisePhases()
			if err != nil {
				return rs, err
			}
			// The reconstruction plan's digest, as the fingerprint of a
			// run of one planned phase holds it.
			rs.Identity = append(rs.Identity, "plan", engine.Digest(rec.Plan), "premises", o.Embedder, o.Scorer)
			rs.Phases, rs.Specs = append(rs.Phases, more...), append(rs.Specs, specs...)
		}
	case "classify-gold", "classify-only":
		units := GoldPremiseUnits(data)
		if o.Task == "classify-only" {
			units = LineUnits(data)
		}
		plan, err := ClassifyPlan(data, units, o.Template, spec, o.MaxTokens)
		if err != nil {
			return rs, err
		}
		rs.Phases = []runner.Phase{r.classification(func() ([]ClassifyUnit, engine.Plan, error) { return units, plan, nil }, plan)}
	case "consistency":
		rec, err := r.reconstruction(o.FromTemplate, false)
		if err != nil {
			return rs, err
		}
		rs.Identity = append(rs.Identity, "from", o.FromTemplate, "plan", engine.Digest(rec.Plan))
		rs.Phases = []runner.Phase{rec, r.classification(func() ([]ClassifyUnit, engine.Plan, error) {
			units := ConsistencyUnits(data, SingleFallacy(data, r.preds, 1))
			plan, err := ClassifyPlan(data, units, o.Template, spec, o.MaxTokens)
			return units, plan, err
		}, engine.Plan{})}
	}
	return rs, nil
}

// missciRun is one run being made: its options, data and what its phases
// hand on.
type missciRun struct {
	env     bench.Env
	o       runOptions
	spec    llm.Spec
	data    []Argument
	opts    ParseOptions
	unknown []string
	// preds are the reconstruction's predictions, keys the calls each
	// line's answer came from.
	preds Predictions
	keys  map[string]string
}

// source names the run's model and template in its records and reports.
func (r *missciRun) source() string { return r.o.Model + " " + r.o.Template }

// reconstruction is the phase that runs a gen_cls template and parses
// ranked predictions; store keeps them with the run (a consistency run
// keeps its classifications instead).
func (r *missciRun) reconstruction(template string, store bool) (runner.Phase, error) {
	plan, err := ReconstructionPlan(r.data, template, r.spec, nil, r.o.MaxTokens)
	if err != nil {
		return runner.Phase{}, err
	}
	r.preds, r.keys = Predictions{}, map[string]string{}
	var parseErr error
	ph := Definition.Phase("reconstruction").Run(plan)
	ph.OnResult = func(res engine.Result) {
		id, ok := LineOf(res)
		if !ok {
			return
		}
		if res.Err != nil {
			r.preds[id] = []Prediction{{Class: Other}}
			return
		}
		p, err := ParseGenCls(res.Response.Text, r.opts)
		if err != nil && parseErr == nil {
			parseErr = fmt.Errorf("%s: %w", id, err)
		}
		r.preds[id], r.keys[id] = p, res.Key
	}
	ph.Records = func(ctx context.Context, runID int64) error {
		if parseErr != nil {
			return parseErr // --strict: the run fails, as upstream aborts
		}
		if !store {
			return nil
		}
		m := Record{Split: r.o.Split, Source: r.source(), Unknown: r.unknown, Preds: r.preds, CallKeys: r.keys}
		return SaveRecord(ctx, r.env.Records, runID, m)
	}
	return ph, nil
}

// classification is the phase that classifies units (known up front, or,
// in a consistency run, from the reconstruction before it) and stores
// each unit's class with the run.
func (r *missciRun) classification(unitsOf func() ([]ClassifyUnit, engine.Plan, error), plan engine.Plan) runner.Phase {
	var units []ClassifyUnit
	out, keys := map[string]string{}, map[string]string{}
	var parseErr error
	ph := Definition.Phase("classification").Run(plan)
	if plan.Jobs == nil {
		ph.Planner = func(context.Context) (engine.Plan, error) {
			us, p, err := unitsOf()
			units = us
			return p, err
		}
	} else {
		units, _, _ = unitsOf()
	}
	ph.OnResult = func(res engine.Result) {
		u, ok := UnitOf(res)
		if !ok {
			return
		}
		if res.Err != nil {
			out[u.ID] = Other
			return
		}
		c, err := ParseClassify(res.Response.Text, r.opts)
		if err != nil && parseErr == nil {
			parseErr = fmt.Errorf("%s: %w", u.ID, err)
		}
		out[u.ID], keys[u.ID] = c, res.Key
	}
	ph.Records = func(ctx context.Context, runID int64) error {
		if parseErr != nil {
			return parseErr
		}
		// Every classification stores its units, to report and show
		// later.
		rec := ClassifyRecord{Task: r.o.Task, Template: r.o.Template, Split: r.o.Split, Source: r.source(), Strict: r.o.Strict}
		if r.o.Task == "consistency" {
			rec.FromTemplate = r.o.FromTemplate
			rec.Source = r.o.Model + " " + r.o.FromTemplate + " → " + r.o.Template
		}
		for _, u := range units {
			if p, ok := out[u.ID]; ok {
				cu := ClassifiedUnit{ID: u.ID, LineID: u.LineID, Gold: u.Gold, Pred: p, CallKey: keys[u.ID]}
				if r.o.Task == "consistency" {
					cu.Premise = u.Premise
				}
				rec.Units = append(rec.Units, cu)
			}
		}
		return SaveClassification(ctx, r.env.Records, runID, rec)
	}
	return ph
}
