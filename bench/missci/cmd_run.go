package missci

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/runner"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store"
	"github.com/spf13/cobra"
)

func run(cmd *cobra.Command, h bench.Host, o runOptions) error {
	ctx := cmd.Context()
	if _, err := report.ParseFormat(o.Format); err != nil {
		return err
	}
	spec, err := llm.ParseSpec(o.Model)
	if err != nil {
		return err
	}
	def, ok := defaultTemplates[o.Task]
	if !ok {
		return fmt.Errorf("--task %q: use reconstruct, classify-gold, classify-only or consistency", o.Task)
	}
	if o.Template == "" {
		o.Template = def
	}
	data, err := Load(o.Split)
	if err != nil {
		return err
	}
	r := &missciRun{ctx: ctx, h: h, o: o, spec: spec, split: data} // the report of a limited run says how many of split it covers
	if r.data, err = bench.Select(o.Select, "arguments", data, func(a Argument) string { return a.ID }); err != nil {
		return err
	}
	if r.s, err = h.Open(ctx, true); err != nil {
		return err
	}
	defer r.s.Close()
	r.opts = ParseOptions{Strict: o.Strict, Unknown: &r.unknown}
	r.rs = runner.Spec{Name: "missci " + o.Task + " " + o.Template, Benchmark: Definition.Name, Options: o, Specs: []llm.Spec{spec},
		Identity: []any{o.Strict}} // and the plan's digest (fingerprint)
	templates, err := expandTemplates(o.Template, o.Task)
	if err != nil {
		return err
	}
	if len(templates) > 1 && o.Task == "consistency" {
		return fmt.Errorf("--task consistency takes one --template")
	}
	if len(templates) == 1 {
		r.o.Template = templates[0]
		r.rs.Name = "missci " + o.Task + " " + r.o.Template
	}
	switch o.Task {
	case "reconstruct":
		if len(templates) > 1 {
			return r.reconstructSweep(templates)
		}
		return r.reconstructOne()
	case "classify-gold", "classify-only":
		return r.classifyTask(templates)
	case "consistency":
		return r.consistency()
	}
	return nil
}

// missciRun is one `missci run`: its options, data, session and the runner
// spec each of its runs starts from.
type missciRun struct {
	ctx         context.Context
	h           bench.Host
	o           runOptions
	spec        llm.Spec
	data, split []Argument
	s           bench.Session
	rs          runner.Spec
	opts        ParseOptions
	unknown     []string
	// keys are the calls each line's answer came from (reconstruct).
	keys map[string]string
}

// dry says the command is a dry run.
func (r *missciRun) dry() bool { return r.h.Settings().DryRun }

// source names the run's model and template in its records and reports.
func (r *missciRun) source() string { return r.o.Model + " " + r.o.Template }

// reconstruct runs a gen_cls template and parses ranked predictions;
// source != "" stores the predictions with the run, before it finishes.
func (r *missciRun) reconstruct(template, source string) (Predictions, int64, error) {
	plan, err := ReconstructionPlan(r.data, template, r.spec, nil, r.o.MaxTokens)
	if err != nil {
		return nil, 0, err
	}
	preds := Predictions{}
	r.keys = map[string]string{}
	keys := r.keys
	var parseErr error
	ph := Definition.Phase("reconstruction").Run(plan)
	ph.Records = func(ctx context.Context, runID int64) error {
		if parseErr != nil {
			return parseErr // --strict: the run fails, as upstream aborts
		}
		if source == "" {
			return nil
		}
		return storeMissci(ctx, r.s, runID, r.o.Split, source, r.unknown, preds, keys)
	}
	ph.OnResult = func(res engine.Result) {
		id, ok := LineOf(res)
		if !ok {
			return
		}
		if res.Err != nil {
			preds[id] = []Prediction{{Class: Other}}
			return
		}
		p, err := ParseGenCls(res.Response.Text, r.opts)
		if err != nil && parseErr == nil {
			parseErr = fmt.Errorf("%s: %w", id, err)
		}
		preds[id], keys[id] = p, res.Key
	}
	sp := r.rs
	sp.Phases = []runner.Phase{ph}
	res, err := r.s.Run(r.ctx, sp)
	return preds, res.RunID, err
}

// classify runs a classification template on units.
func (r *missciRun) classify(units []ClassifyUnit, template string) (map[string]string, error) {
	plan, err := ClassifyPlan(r.data, units, template, r.spec, r.o.MaxTokens)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	keys := map[string]string{}
	var parseErr error
	ph := Definition.Phase("classification").Run(plan)
	ph.Records = func(ctx context.Context, runID int64) error {
		if parseErr != nil || r.o.Task == "consistency" || runID == 0 {
			return parseErr
		}
		// classify-gold and classify-only store their units, to report
		// and show later.
		rec := ClassifyRecord{Task: r.o.Task, Template: template, Split: r.o.Split, Source: r.o.Model + " " + template}
		for _, u := range units {
			if p, ok := out[u.ID]; ok {
				rec.Units = append(rec.Units, ClassifiedUnit{ID: u.ID, LineID: u.LineID, Gold: u.Gold, Pred: p, CallKey: keys[u.ID]})
			}
		}
		return SaveClassification(ctx, r.s.Env("").Records, runID, rec)
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
	sp := r.rs
	sp.Phases = []runner.Phase{ph}
	_, err = r.s.Run(r.ctx, sp)
	return out, err
}

// reconstructSweep runs several templates, one run each, and reports them
// in one table. A sweep run again after it was stopped part-way resumes:
// the templates whose runs finished then are not run again (their
// predictions are read back), the one that was cut off resumes, the rest
// start.
func (r *missciRun) reconstructSweep(templates []string) error {
	var all []Predictions
	done := map[string]int64{}
	if !r.dry() {
		var err error
		if done, err = sweepDone(r.ctx, r.s, templates, func(t string) (runner.Spec, error) {
			plan, err := ReconstructionPlan(r.data, t, r.spec, nil, r.o.MaxTokens)
			sp := r.rs
			sp.Name, sp.Phases = "missci reconstruct "+t, []runner.Phase{{Plan: plan}}
			return sp, err
		}); err != nil {
			return err
		}
	}
	for _, t := range templates {
		r.unknown = r.unknown[:0]
		r.rs.Name = "missci reconstruct " + t
		if r.dry() {
			fmt.Fprintf(r.h.Settings().Stdout, "%s:\n", t)
		}
		if id, ok := done[t]; ok {
			rec, err := LoadRecord(r.ctx, r.s.Env("").Records, id)
			if err != nil {
				return fmt.Errorf("template %s: %w", t, err)
			}
			fmt.Fprintf(r.h.Settings().Stderr, "template %s: run %d finished before; its predictions are used\n", t, id)
			all = append(all, rec.Preds)
			continue
		}
		preds, _, err := r.reconstruct(t, r.o.Model+" "+t)
		if err != nil {
			return fmt.Errorf("template %s: %w", t, err)
		}
		all = append(all, preds)
	}
	if r.dry() {
		return nil
	}
	x, err := scorers(r.ctx, r.s, r.o.Embedder, r.o.Scorer)
	if err != nil {
		return err
	}
	rep, err := SweepReport(r.data, templates, all, r.o.Split, r.o.Model, x)
	if err != nil {
		return err
	}
	return r.h.WriteReport(rep, r.o.Format, r.o.Out)
}

// reconstructOne runs one template, stores its predictions with the run
// and reports them.
func (r *missciRun) reconstructOne() error {
	preds, runID, err := r.reconstruct(r.o.Template, r.source())
	if err != nil || r.dry() {
		return err
	}
	x, err := scorers(r.ctx, r.s, r.o.Embedder, r.o.Scorer)
	if err != nil {
		return err
	}
	rep, err := ReconstructionReport(r.split, preds, 1, r.o.Split, r.source(), r.unknown, x)
	if err != nil {
		return err
	}
	if err := r.s.Annotate(r.ctx, runID, rep); err != nil {
		return err
	}
	return r.h.WriteReport(rep, r.o.Format, r.o.Out)
}

// classifyTask runs classify-gold or classify-only with each template,
// one table row each.
func (r *missciRun) classifyTask(templates []string) error {
	units := GoldPremiseUnits(r.data)
	if r.o.Task == "classify-only" {
		units = LineUnits(r.data)
	}
	if len(templates) == 1 {
		got, err := r.classify(units, r.o.Template)
		if err != nil || r.dry() {
			return err
		}
		res, err := evaluateClassification(r.o.Task, r.data, units, got)
		if err != nil {
			return err
		}
		return r.h.WriteReport(ClassificationReport(r.o.Task, r.o.Split, r.source(), []ClassifyRow{{Result: res}}), r.o.Format, r.o.Out)
	}
	var rows []ClassifyRow
	for _, tpl := range templates {
		r.rs.Name = "missci " + r.o.Task + " " + tpl
		if r.dry() {
			fmt.Fprintf(r.h.Settings().Stdout, "%s:\n", tpl)
		}
		got, err := r.classify(units, tpl)
		if err != nil {
			return fmt.Errorf("template %s: %w", tpl, err)
		}
		if r.dry() {
			continue
		}
		res, err := evaluateClassification(r.o.Task, r.data, units, got)
		if err != nil {
			return err
		}
		rows = append(rows, ClassifyRow{Template: tpl, Result: res})
	}
	if r.dry() {
		return nil
	}
	return r.h.WriteReport(ClassificationReport(r.o.Task, r.o.Split, r.o.Model, rows), r.o.Format, r.o.Out)
}

// consistency reconstructs with --from-template, then classifies the
// single-fallacy predictions with --template.
func (r *missciRun) consistency() error {
	preds, _, err := r.reconstruct(r.o.FromTemplate, "")
	if err != nil || r.dry() {
		return err
	}
	units := ConsistencyUnits(r.data, SingleFallacy(r.data, preds, 1))
	got, err := r.classify(units, r.o.Template)
	if err != nil {
		return err
	}
	c, err := EvaluateConsistency(units, got, r.o.Strict)
	if err != nil {
		return err
	}
	return r.h.WriteReport(ConsistencyReport(r.o.Split, r.o.Model+" "+r.o.FromTemplate+" → "+r.o.Template, c), r.o.Format, r.o.Out)
}

// evaluateClassification scores classify-gold (with the gold premise) or
// classify-only answers.
func evaluateClassification(task string, data []Argument, units []ClassifyUnit, got map[string]string) (ClassifyResult, error) {
	if task == "classify-gold" {
		var yTrue, yPred []string
		for _, u := range units {
			yTrue, yPred = append(yTrue, u.Gold), append(yPred, got[u.ID])
		}
		return EvaluateWithPremise(yTrue, yPred)
	}
	return EvaluateWithoutPremise(data, got)
}

func newHumanEvalCmd(h bench.Host) *cobra.Command {
	var file, format, out, pAt1 string
	cmd := &cobra.Command{
		Use:   "human-eval",
		Short: "Table 13: METEOR against the human judgement q4 on the paper's human-evaluation CSV",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := report.ParseFormat(format); err != nil {
				return err
			}
			var he HumanEvalMeteor
			var err error
			if file == "" {
				he, err = EmbeddedHumanEval()
			} else {
				var fh *os.File
				if fh, err = os.Open(file); err != nil {
					return err
				}
				he, err = HumanEval(fh, file)
				fh.Close()
			}
			if err != nil {
				return err
			}
			var strata []Stratum
			p1 := map[string]float64{}
			if file == "" {
				if strata, err = EmbeddedTable14(); err != nil {
					return err
				}
				for _, kv := range strings.Split(pAt1, ",") {
					if kv = strings.TrimSpace(kv); kv == "" {
						continue
					}
					k, v, ok := strings.Cut(kv, "=")
					x, err := strconv.ParseFloat(v, 64)
					if !ok || err != nil || x < 0 || x > 1 {
						return fmt.Errorf("--p-at-1 %q: want MODEL/PROMPT=P, e.g. \"GPT 4/definition=0.317\"", kv)
					}
					p1[k] = x
				}
			}
			rep := HumanEvalReport(he, strata, p1)
			return h.WriteReport(rep, format, out)
		},
	}
	cmd.Flags().StringVar(&file, "csv", "", "human-evaluation CSV (default: the embedded human-analysis/human-eval.csv)")
	cmd.Flags().StringVar(&pAt1, "p-at-1", "", "P@1 per model/prompt for the Table 4 approximation, e.g. \"GPT 4/definition=0.317\"")
	bench.AddReportFlags(cmd.Flags(), &format, &out, "output file")
	return cmd
}

// storeMissci keeps a reconstruction run's predictions with that run.
func storeMissci(ctx context.Context, s bench.Session, runID int64, split, source string, unknown []string, preds Predictions, keys map[string]string) error {
	if runID == 0 {
		return fmt.Errorf("internal error: Missci predictions without a run")
	}
	m := Record{Split: split, Source: source, Unknown: unknown, Preds: preds, CallKeys: keys}
	return SaveRecord(ctx, s.Env("").Records, runID, m)
}

func newRunCmd(h bench.Host) *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:         "run",
		Annotations: bench.CallsModels(),
		Short:       "Run a Missci task with a model and score it",
		Long: `Tasks: reconstruct (premise + class per reasoning line, SPEC A.7), classify-gold (classify each gold
premise, A.8), classify-only (classify without a premise, A.9), consistency (classify the model's own
top-1 premise from --from-template, A.10). Every call is cached: consistency re-reads the
reconstruction answers from the cache without paying for them again.`,
		Example: `  fallacylab missci run --model openai:gpt-4.1 --template gen_cls/p4-connect-D
  fallacylab missci run --task classify-gold --model openai:gpt-4.1 --template cls_with_premise/classify-D
  fallacylab missci run --task consistency --model openai:gpt-4.1 --from-template gen_cls/p4-connect-D`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return run(cmd, h, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Task, "task", "reconstruct", "reconstruct, classify-gold, classify-only or consistency")
	f.StringVar(&o.Model, "model", "", "model provider:model")
	f.StringVar(&o.Model, "models", "", "the same as --model (the other run commands' spelling; one model)")
	f.MarkHidden("models")
	f.StringVar(&o.Template, "template", "", "prompt template (default per task)")
	f.StringVar(&o.FromTemplate, "from-template", "gen_cls/p4-connect-D", "consistency: the reconstruction template whose answers are classified")
	f.StringVar(&o.Split, "split", "test", "dev or test")
	f.IntVar(&o.MaxTokens, "max-tokens", 1000, "output token limit (upstream GPT-4: 1000)")
	f.BoolVar(&o.Strict, "strict", false, "abort on an unknown class name or a self-naming premise, as upstream does")
	bench.AddReportFlags(f, &o.Format, &o.Out, "output file")
	f.StringVar(&o.Embedder, "embedder", "", "embeddings model provider:model for pairing premises without a class match")
	f.StringVar(&o.Scorer, "scorer", "", "URL of a BERTScore/NLI scorer (docs/scorer-protocol.md)")
	o.Select.Flags(f, "arguments")
	bench.Choices(f, "task", "reconstruct", "classify-gold", "classify-only", "consistency")
	bench.Choices(f, "template", append(Templates(), "all")...)
	bench.Choices(f, "from-template", Templates()...)
	return cmd
}

func newReportCmd(h bench.Host) *cobra.Command {
	var run int64
	var allowIncomplete bool
	var ks, format, out, embedder, scorer string
	cmd := &cobra.Command{
		Use:         "report",
		Annotations: bench.CallsModels(),
		Short:       "Report a stored run (default: the latest): a reconstruction at any cut-off, or a classification",
		Args:        cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if _, err := report.ParseFormat(format); err != nil {
				return err
			}
			k, err := parseK(ks)
			if err != nil {
				return err
			}
			// A report that embeds or scores premises keeps those calls in
			// the store's cache, like every call: it opens the store to
			// write.
			s, err := h.Open(ctx, embedder != "" || scorer != "")
			if err != nil {
				return err
			}
			defer s.Close()
			r, err := s.Pick(ctx, run, allowIncomplete, Definition.Title, func(r store.Run) bool {
				_, err := LoadRecord(ctx, s.Env("").Records, r.ID)
				_, cls, _ := LoadClassification(ctx, s.Env("").Records, r.ID)
				return err == nil || cls
			}, "fallacylab missci run")
			if err != nil {
				return err
			}
			run = r.ID
			if c, ok, err := LoadClassification(ctx, s.Env("").Records, run); err != nil || ok {
				if err != nil {
					return err
				}
				rep, err := c.Report()
				if err != nil {
					return fmt.Errorf("run %d: %w", run, err)
				}
				return h.WriteReport(rep, format, out)
			}
			m, err := LoadRecord(ctx, s.Env("").Records, run)
			if err != nil {
				return err
			}
			data, err := Load(m.Split)
			if err != nil {
				return err
			}
			preds := m.Preds
			x, err := scorers(ctx, s, embedder, scorer)
			if err != nil {
				return err
			}
			rep, err := ReconstructionReport(data, preds, k, m.Split, fmt.Sprintf("run %d: %s", run, m.Source), m.Unknown, x)
			if err != nil {
				return err
			}
			if err := s.Annotate(ctx, run, rep); err != nil {
				return err
			}
			return h.WriteReport(rep, format, out)
		},
	}
	cmd.Flags().Int64Var(&run, "run", 0, "run id (default: the latest Missci reconstruction run)")
	cmd.Flags().BoolVar(&allowIncomplete, "allow-incomplete", false, "report a run that did not finish from the predictions it has")
	cmd.Flags().StringVar(&ks, "k", "1", "cut-off: 1…6 or all (1 reports every cut-off)")
	bench.AddReportFlags(cmd.Flags(), &format, &out, "output file")
	cmd.Flags().StringVar(&embedder, "embedder", "", "embeddings model for premise pairing")
	cmd.Flags().StringVar(&scorer, "scorer", "", "BERTScore/NLI scorer URL")
	return cmd
}

// sweepDone is, for a sweep of one run per template that was stopped
// part-way (one template's run did not finish), the runs of the templates
// that did finish then; nil when the sweep is not resuming.
func sweepDone(ctx context.Context, s bench.Session, templates []string, specOf func(string) (runner.Spec, error)) (map[string]int64, error) {
	prev := map[string]store.Run{}
	resuming := false
	for _, t := range templates {
		sp, err := specOf(t)
		if err != nil {
			return nil, err
		}
		r, ok, err := s.Previous(ctx, sp)
		if err != nil {
			return nil, err
		}
		if ok {
			prev[t] = r
			resuming = resuming || r.Status != store.RunDone
		}
	}
	if !resuming {
		return nil, nil
	}
	done := map[string]int64{}
	for t, r := range prev {
		if r.Status == store.RunDone {
			done[t] = r.ID
		}
	}
	return done, nil
}
