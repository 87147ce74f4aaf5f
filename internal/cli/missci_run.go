package cli

import (
	"context"
	"fmt"
	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/runner"
	"os"
	"strconv"
	"strings"

	"github.com/fallacylab/fallacylab/bench/missci"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/internal/records"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store"
	"github.com/spf13/cobra"
)

func missciRun(cmd *cobra.Command, g *Global, o missciRunOptions) error {
	ctx := cmd.Context()
	f, err := report.ParseFormat(o.Format)
	if err != nil {
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
	data, err := missci.Load(o.Split)
	if err != nil {
		return err
	}
	split := data // the report of a limited run says how many of these it covers
	if data, err = bench.Select(o.Select, "arguments", data, func(a missci.Argument) string { return a.ID }); err != nil {
		return err
	}
	s, err := openSession(g)
	if err != nil {
		return err
	}
	defer s.Close()
	var unknown []string
	opts := missci.ParseOptions{Strict: o.Strict, Unknown: &unknown}
	rs := runner.Spec{Name: "missci " + o.Task + " " + o.Template, Benchmark: missci.Definition.Name, Args: os.Args[1:], Options: o, Specs: []llm.Spec{spec},
		Identity: []any{o.Strict}} // and the plan's digest (fingerprint)
	// reconstruct runs a gen_cls template and parses ranked predictions;
	// keys are the calls each line's answer came from.
	var keys map[string]string
	// source != "" stores the predictions with the run, before it finishes.
	reconstruct := func(template, source string) (missci.Predictions, int64, error) {
		plan, err := missci.ReconstructionPlan(data, template, spec, nil, o.MaxTokens)
		if err != nil {
			return nil, 0, err
		}
		preds := missci.Predictions{}
		keys = map[string]string{}
		var parseErr error
		ph := phaseOf(missci.Definition.Phase("reconstruction"), plan)
		ph.Records = func(ctx context.Context, runID int64) error {
			if parseErr != nil {
				return parseErr // --strict: the run fails, as upstream aborts
			}
			if source == "" {
				return nil
			}
			return storeMissci(ctx, s, runID, o.Split, source, unknown, preds, keys)
		}
		ph.OnResult = func(r engine.Result) {
			id, ok := missci.LineOf(r)
			if !ok {
				return
			}
			if r.Err != nil {
				preds[id] = []missci.Prediction{{Class: missci.Other}}
				return
			}
			p, err := missci.ParseGenCls(r.Response.Text, opts)
			if err != nil && parseErr == nil {
				parseErr = fmt.Errorf("%s: %w", id, err)
			}
			preds[id], keys[id] = p, r.Key
		}
		sp := rs
		sp.Phases = []runner.Phase{ph}
		res, err := s.runner().Run(ctx, sp)
		return preds, res.RunID, err
	}
	classify := func(units []missci.ClassifyUnit, template string) (map[string]string, error) {
		plan, err := missci.ClassifyPlan(data, units, template, spec, o.MaxTokens)
		if err != nil {
			return nil, err
		}
		out := map[string]string{}
		var parseErr error
		ph := phaseOf(missci.Definition.Phase("classification"), plan)
		ph.Records = func(context.Context, int64) error { return parseErr }
		ph.OnResult = func(r engine.Result) {
			u, ok := missci.UnitOf(r)
			if !ok {
				return
			}
			if r.Err != nil {
				out[u.ID] = missci.Other
				return
			}
			c, err := missci.ParseClassify(r.Response.Text, opts)
			if err != nil && parseErr == nil {
				parseErr = fmt.Errorf("%s: %w", u.ID, err)
			}
			out[u.ID] = c
		}
		sp := rs
		sp.Phases = []runner.Phase{ph}
		_, err = s.runner().Run(ctx, sp)
		return out, err
	}
	templates, err := expandTemplates(o.Template, o.Task)
	if err != nil {
		return err
	}
	if len(templates) > 1 && o.Task == "consistency" {
		return fmt.Errorf("--task consistency takes one --template")
	}
	if len(templates) == 1 {
		o.Template = templates[0]
		rs.Name = "missci " + o.Task + " " + o.Template
	}
	source := o.Model + " " + o.Template
	switch o.Task {
	case "reconstruct":
		if len(templates) > 1 {
			var all []missci.Predictions
			// A sweep run again after it was stopped part-way resumes:
			// the templates whose runs finished then are not run again
			// (their predictions are read back), the one that was cut
			// off resumes, the rest start.
			done := map[string]int64{}
			if !g.DryRun {
				var err error
				if done, err = sweepDone(ctx, s, templates, func(t string) (runner.Spec, error) {
					plan, err := missci.ReconstructionPlan(data, t, spec, nil, o.MaxTokens)
					sp := rs
					sp.Name, sp.Phases = "missci reconstruct "+t, []runner.Phase{{Plan: plan}}
					return sp, err
				}); err != nil {
					return err
				}
			}
			for _, t := range templates {
				unknown = unknown[:0]
				rs.Name = "missci reconstruct " + t
				if g.DryRun {
					fmt.Fprintf(g.Stdout, "%s:\n", t)
				}
				if id, ok := done[t]; ok {
					rec, err := records.LoadMissci(ctx, s.st, id)
					if err != nil {
						return fmt.Errorf("template %s: %w", t, err)
					}
					fmt.Fprintf(g.Stderr, "template %s: run %d finished before; its predictions are used\n", t, id)
					all = append(all, rec.Preds)
					continue
				}
				preds, _, err := reconstruct(t, o.Model+" "+t)
				if err != nil {
					return fmt.Errorf("template %s: %w", t, err)
				}
				all = append(all, preds)
			}
			if g.DryRun {
				return nil
			}
			x, err := scorers(ctx, g, s, o.Embedder, o.Scorer)
			if err != nil {
				return err
			}
			rep, err := missci.SweepReport(data, templates, all, o.Split, o.Model, x)
			if err != nil {
				return err
			}
			return writeReport(g, rep, f, o.Out)
		}
		preds, runID, err := reconstruct(o.Template, source)
		if err != nil || g.DryRun {
			return err
		}
		x, err := scorers(ctx, g, s, o.Embedder, o.Scorer)
		if err != nil {
			return err
		}
		rep, err := missci.ReconstructionReport(split, preds, 1, o.Split, source, unknown, x)
		if err != nil {
			return err
		}
		if err := addUnusable(ctx, s.st, runID, rep); err != nil {
			return err
		}
		return writeReport(g, rep, f, o.Out)
	case "classify-gold", "classify-only":
		units := missci.GoldPremiseUnits(data)
		if o.Task == "classify-only" {
			units = missci.LineUnits(data)
		}
		if len(templates) > 1 {
			var rows []missci.ClassifyRow
			for _, tpl := range templates {
				rs.Name = "missci " + o.Task + " " + tpl
				if g.DryRun {
					fmt.Fprintf(g.Stdout, "%s:\n", tpl)
				}
				got, err := classify(units, tpl)
				if err != nil {
					return fmt.Errorf("template %s: %w", tpl, err)
				}
				if g.DryRun {
					continue
				}
				res, err := evaluateClassification(o.Task, data, units, got)
				if err != nil {
					return err
				}
				rows = append(rows, missci.ClassifyRow{Template: tpl, Result: res})
			}
			if g.DryRun {
				return nil
			}
			return writeReport(g, missci.ClassificationReport(o.Task, o.Split, o.Model, rows), f, o.Out)
		}
		got, err := classify(units, o.Template)
		if err != nil || g.DryRun {
			return err
		}
		res, err := evaluateClassification(o.Task, data, units, got)
		if err != nil {
			return err
		}
		rep := missci.ClassificationReport(o.Task, o.Split, source, []missci.ClassifyRow{{Result: res}})
		return writeReport(g, rep, f, o.Out)
	case "consistency":
		preds, _, err := reconstruct(o.FromTemplate, "")
		if err != nil || g.DryRun {
			return err
		}
		units := missci.ConsistencyUnits(data, missci.SingleFallacy(data, preds, 1))
		got, err := classify(units, o.Template)
		if err != nil {
			return err
		}
		c, err := missci.EvaluateConsistency(units, got, o.Strict)
		if err != nil {
			return err
		}
		rep := missci.ConsistencyReport(o.Split, o.Model+" "+o.FromTemplate+" → "+o.Template, c)
		return writeReport(g, rep, f, o.Out)
	}
	return nil
}

// evaluateClassification scores classify-gold (with the gold premise) or
// classify-only answers.
func evaluateClassification(task string, data []missci.Argument, units []missci.ClassifyUnit, got map[string]string) (missci.ClassifyResult, error) {
	if task == "classify-gold" {
		var yTrue, yPred []string
		for _, u := range units {
			yTrue, yPred = append(yTrue, u.Gold), append(yPred, got[u.ID])
		}
		return missci.EvaluateWithPremise(yTrue, yPred)
	}
	return missci.EvaluateWithoutPremise(data, got)
}

func newMissciHumanEvalCmd(g *Global) *cobra.Command {
	var file, format, out, pAt1 string
	cmd := &cobra.Command{
		Use:   "human-eval",
		Short: "Table 13: METEOR against the human judgement q4 on the paper's human-evaluation CSV",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f, err := report.ParseFormat(format)
			if err != nil {
				return err
			}
			var h missci.HumanEvalMeteor
			if file == "" {
				h, err = missci.EmbeddedHumanEval()
			} else {
				var fh *os.File
				if fh, err = os.Open(file); err != nil {
					return err
				}
				h, err = missci.HumanEval(fh, file)
				fh.Close()
			}
			if err != nil {
				return err
			}
			var strata []missci.Stratum
			p1 := map[string]float64{}
			if file == "" {
				if strata, err = missci.EmbeddedTable14(); err != nil {
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
			rep := missci.HumanEvalReport(h, strata, p1)
			return writeReport(g, rep, f, out)
		},
	}
	cmd.Flags().StringVar(&file, "csv", "", "human-evaluation CSV (default: the embedded human-analysis/human-eval.csv)")
	cmd.Flags().StringVar(&pAt1, "p-at-1", "", "P@1 per model/prompt for the Table 4 approximation, e.g. \"GPT 4/definition=0.317\"")
	cmd.Flags().StringVar(&format, "format", "md", "md, csv, json, tex or html")
	cmd.Flags().StringVar(&out, "out", "", "output file")
	return cmd
}

// storeMissci keeps a reconstruction run's predictions with that run.
func storeMissci(ctx context.Context, s *session, runID int64, split, source string, unknown []string, preds missci.Predictions, keys map[string]string) error {
	if runID == 0 {
		return fmt.Errorf("internal error: Missci predictions without a run")
	}
	m := missci.Record{Split: split, Source: source, Unknown: unknown, Preds: preds, CallKeys: keys}
	return records.SaveMissci(ctx, s.st, runID, m)
}

func newMissciRunCmd(g *Global) *cobra.Command {
	var o missciRunOptions
	cmd := &cobra.Command{
		Use:         "run",
		Annotations: callsModels(),
		Short:       "Run a Missci task with a model and score it",
		Long: `Tasks: reconstruct (premise + class per reasoning line, SPEC A.7), classify-gold (classify each gold
premise, A.8), classify-only (classify without a premise, A.9), consistency (classify the model's own
top-1 premise from --from-template, A.10). Every call is cached: consistency re-reads the
reconstruction answers from the cache without paying for them again.`,
		Example: `  fallacylab missci run --model openai:gpt-4.1 --template gen_cls/p4-connect-D
  fallacylab missci run --task classify-gold --model openai:gpt-4.1 --template cls_with_premise/classify-D
  fallacylab missci run --task consistency --model openai:gpt-4.1 --from-template gen_cls/p4-connect-D`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return missciRun(cmd, g, o) },
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
	f.StringVar(&o.Format, "format", "md", "md, csv, json, tex or html")
	f.StringVar(&o.Out, "out", "", "output file")
	f.StringVar(&o.Embedder, "embedder", "", "embeddings model provider:model for pairing premises without a class match")
	f.StringVar(&o.Scorer, "scorer", "", "URL of a BERTScore/NLI scorer (docs/scorer-protocol.md)")
	o.Select.Flags(f, "arguments")
	return cmd
}

func newMissciReportCmd(g *Global) *cobra.Command {
	var run int64
	var allowIncomplete bool
	var ks, format, out, embedder, scorer string
	cmd := &cobra.Command{
		Use:         "report",
		Annotations: callsModels(),
		Short:       "Report a stored reconstruction run (default: the latest) at any cut-off",
		Args:        cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			f, err := report.ParseFormat(format)
			if err != nil {
				return err
			}
			k, err := parseK(ks)
			if err != nil {
				return err
			}
			s, err := openBrowse(g)
			if err != nil {
				return err
			}
			defer s.Close()
			r, err := pick(ctx, s.st, missci.Definition, missci.Definition.Title+" reconstruction", run, allowIncomplete, func(r store.Run) bool {
				_, err := records.LoadMissci(ctx, s.st, r.ID)
				return err == nil
			}, "fallacylab missci run")
			if err != nil {
				return err
			}
			run = r.ID
			m, err := records.LoadMissci(ctx, s.st, run)
			if err != nil {
				return err
			}
			data, err := missci.Load(m.Split)
			if err != nil {
				return err
			}
			preds := m.Preds
			x, err := scorers(ctx, g, s, embedder, scorer)
			if err != nil {
				return err
			}
			rep, err := missci.ReconstructionReport(data, preds, k, m.Split, fmt.Sprintf("run %d: %s", run, m.Source), m.Unknown, x)
			if err != nil {
				return err
			}
			addPartial(r, rep)
			if err := addUnusable(ctx, s.st, run, rep); err != nil {
				return err
			}
			return writeReport(g, rep, f, out)
		},
	}
	cmd.Flags().Int64Var(&run, "run", 0, "run id (default: the latest Missci reconstruction run)")
	cmd.Flags().BoolVar(&allowIncomplete, "allow-incomplete", false, "report a run that did not finish from the predictions it has")
	cmd.Flags().StringVar(&ks, "k", "1", "cut-off: 1…6 or all (1 reports every cut-off)")
	cmd.Flags().StringVar(&format, "format", "md", "md, csv, json, tex or html")
	cmd.Flags().StringVar(&out, "out", "", "output file")
	cmd.Flags().StringVar(&embedder, "embedder", "", "embeddings model for premise pairing")
	cmd.Flags().StringVar(&scorer, "scorer", "", "BERTScore/NLI scorer URL")
	return cmd
}

// sweepDone is, for a sweep of one run per template that was stopped
// part-way (one template's run did not finish), the runs of the templates
// that did finish then; nil when the sweep is not resuming.
func sweepDone(ctx context.Context, s *session, templates []string, specOf func(string) (runner.Spec, error)) (map[string]int64, error) {
	prev := map[string]store.Run{}
	resuming := false
	for _, t := range templates {
		sp, err := specOf(t)
		if err != nil {
			return nil, err
		}
		r, ok, err := s.runner().Previous(ctx, sp)
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
