package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/fallacylab/fallacylab/bench/missci"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/internal/records"
	"github.com/fallacylab/fallacylab/lifecycle"
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
	s, err := openSession(g)
	if err != nil {
		return err
	}
	defer s.Close()
	var unknown []string
	opts := missci.ParseOptions{Strict: o.Strict, Unknown: &unknown}
	rs := runSpec{Name: "missci " + o.Task + " " + o.Template, Benchmark: missci.Definition.Name, Args: os.Args[1:], Options: o, Specs: []llm.Spec{spec}}
	// reconstruct runs a gen_cls template and parses ranked predictions;
	// keys are the calls each line's answer came from.
	var keys map[string]string
	reconstruct := func(template string) (missci.Predictions, int64, error) {
		plan, err := missci.ReconstructionPlan(data, template, spec, nil, o.MaxTokens)
		if err != nil {
			return nil, 0, err
		}
		preds := missci.Predictions{}
		keys = map[string]string{}
		var parseErr error
		rs.Plan, rs.Identity = plan, []any{engine.Digest(plan), o.Strict}
		rs.phase(missci.Definition.Phase("reconstruction"))
		_, runID, err := s.execute(ctx, rs, func(r engine.Result) {
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
		})
		if err == nil {
			err = parseErr
		}
		return preds, runID, err
	}
	classify := func(units []missci.ClassifyUnit, template string) (map[string]string, error) {
		plan, err := missci.ClassifyPlan(data, units, template, spec, o.MaxTokens)
		if err != nil {
			return nil, err
		}
		out := map[string]string{}
		var parseErr error
		rs.Plan, rs.Identity = plan, []any{engine.Digest(plan), o.Strict}
		rs.phase(missci.Definition.Phase("classification"))
		_, _, err = s.execute(ctx, rs, func(r engine.Result) {
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
		})
		if err == nil {
			err = parseErr
		}
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
			for _, t := range templates {
				unknown = unknown[:0]
				rs.Name = "missci reconstruct " + t
				if g.DryRun {
					fmt.Fprintf(g.Stdout, "%s:\n", t)
				}
				preds, runID, err := reconstruct(t)
				if err != nil {
					return fmt.Errorf("template %s: %w", t, err)
				}
				if !g.DryRun {
					if err := storeMissci(ctx, s, runID, o.Split, o.Model+" "+t, unknown, preds, keys); err != nil {
						return err
					}
				}
				all = append(all, preds)
			}
			if g.DryRun {
				return nil
			}
			x := premiseExtras{scorer: scorerFor(g, o.Scorer), ctx: ctx}
			if x.embed, err = embedderFor(ctx, s, o.Embedder); err != nil {
				return err
			}
			rep, err := sweepReport(data, templates, all, o.Split, o.Model, x)
			if err != nil {
				return err
			}
			return writeReport(g, rep, f, o.Out)
		}
		preds, runID, err := reconstruct(o.Template)
		if err != nil || g.DryRun {
			return err
		}
		if err := storeMissci(ctx, s, runID, o.Split, source, unknown, preds, keys); err != nil {
			return err
		}
		x := premiseExtras{scorer: scorerFor(g, o.Scorer), ctx: ctx}
		if x.embed, err = embedderFor(ctx, s, o.Embedder); err != nil {
			return err
		}
		return reportReconstruction(g, data, preds, 1, o.Split, source, unknown, f, o.Out, x)
	case "classify-gold", "classify-only":
		units := missci.GoldPremiseUnits(data)
		if o.Task == "classify-only" {
			units = missci.LineUnits(data)
		}
		if len(templates) > 1 {
			rep := &report.Report{Title: "Missci " + o.Task + " by template", Benchmark: "missci", Meta: [][2]string{{"split", o.Split}, {"model", o.Model}}}
			t := rep.AddSection("Classification", "One row per template (SPEC A.8–A.9 semantics).").
				Add(&report.Table{ID: "classification_by_template", Title: "Accuracy and macro-F1 by template", Columns: report.Cols("template", "units", "accuracy", "macro-F1", "labels")})
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
				t.Rows = append(t.Rows, []report.Cell{report.T(tpl), report.I(res.N), report.F(res.Accuracy, 4), report.F(res.MacroF1, 4), report.I(len(res.Labels))})
			}
			if g.DryRun {
				return nil
			}
			return writeReport(g, rep, f, o.Out)
		}
		got, err := classify(units, o.Template)
		if err != nil || g.DryRun {
			return err
		}
		res, err := evaluateClassification(o.Task, data, units, got)
		if err != nil {
			return err
		}
		rep := &report.Report{Title: "Missci " + o.Task, Benchmark: "missci", Meta: [][2]string{{"split", o.Split}, {"source", source}}}
		t := rep.AddSection("Classification", "classification_report semantics: the label set is the union of gold and predicted labels; with the gold premise, a prediction absent from gold counts as unk (SPEC A.8–A.9).").
			Add(&report.Table{ID: "classification", Title: "Accuracy and macro-F1", Columns: report.Cols("units", "accuracy", "macro-F1", "labels")})
		t.Rows = append(t.Rows, []report.Cell{report.I(res.N), report.F(res.Accuracy, 4), report.F(res.MacroF1, 4), report.I(len(res.Labels))})
		return writeReport(g, rep, f, o.Out)
	case "consistency":
		preds, _, err := reconstruct(o.FromTemplate)
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
		rep := &report.Report{Title: "Missci consistency", Benchmark: "missci", Meta: [][2]string{{"split", o.Split}, {"source", o.Model + " " + o.FromTemplate + " → " + o.Template}}}
		t := rep.AddSection("Consistency", "Matches@1: the share of reasoning lines whose generated premise is classified as the class generated with it (SPEC A.10). Premises that name their own class are excluded and counted.").
			Add(&report.Table{ID: "consistency", Title: "Matches@1", Columns: report.Cols("lines", "matches", "excluded", "Matches@1 (%)")})
		t.Rows = append(t.Rows, []report.Cell{report.I(c.N), report.I(c.Matches), report.I(len(c.Excluded)), report.F(c.MatchesAt1, 2)})
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
			rep := &report.Report{Title: "Missci human evaluation (Table 13)", Benchmark: "missci"}
			t := rep.AddSection("Metric versus human judgement", "Mean of the metric on rows where annotators judged the premise plausible (q4 = True) and not (q4 = False), and Pearson r with q4.").
				Add(&report.Table{ID: "table13", Title: "Table 13", Columns: report.Cols("metric", "q4 = yes (n)", "q4 = no (n)", "mean yes", "mean no", "r", "p")})
			t.Rows = append(t.Rows, []report.Cell{report.T("METEOR"), report.I(h.NYes), report.I(h.NNo), report.F(h.YesMean, 4), report.F(h.NoMean, 4), report.F(h.R, 4), report.PV(h.P)})
			for _, m := range []string{"BERTScore", "NLI-A", "NLI-S"} {
				t.Rows = append(t.Rows, []report.Cell{report.T(m), report.NA("not computed"), report.NA(""), report.NA(""), report.NA(""), report.NA(""), report.NA("")})
			}
			if file == "" {
				strata, err := missci.EmbeddedTable14()
				if err != nil {
					return err
				}
				p1 := map[string]float64{}
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
				sec := rep.AddSection("Human judgements by stratum (Table 14) and the Table 4 approximation",
					"Shares of True per question among items whose predicted class is gold (correct) and the others; with --p-at-1 MODEL/PROMPT=P, the approximation s = P·h_correct + (1 − P)·h_incorrect (SPEC A.12; reproduces GPT-4 (D) at P = 0.317).")
				t14 := sec.Add(&report.Table{ID: "table14", Title: "Table 14 and approximations", Columns: report.Cols("model", "prompt", "question", "correct (n)", "h correct", "incorrect (n)", "h incorrect", "approximation")})
				for _, st := range strata {
					for q := range 4 {
						approx := report.NA("pass --p-at-1")
						if v, ok := p1[st.Model+"/"+st.Prompt]; ok {
							approx = report.F(st.Approximate(v, q), 3)
						}
						t14.Rows = append(t14.Rows, []report.Cell{report.T(st.Model), report.T(st.Prompt), report.T(fmt.Sprintf("q%d", q+1)),
							report.I(st.NCorrect), report.F(st.Correct[q], 3), report.I(st.NIncorrect), report.F(st.Incorrect[q], 3), approx})
					}
				}
			}
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
		Use:   "run",
		Short: "Run a Missci task with a model and score it",
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
	f.StringVar(&o.Template, "template", "", "prompt template (default per task)")
	f.StringVar(&o.FromTemplate, "from-template", "gen_cls/p4-connect-D", "consistency: the reconstruction template whose answers are classified")
	f.StringVar(&o.Split, "split", "test", "dev or test")
	f.IntVar(&o.MaxTokens, "max-tokens", 1000, "output token limit (upstream GPT-4: 1000)")
	f.BoolVar(&o.Strict, "strict", false, "abort on an unknown class name or a self-naming premise, as upstream does")
	f.StringVar(&o.Format, "format", "md", "md, csv, json, tex or html")
	f.StringVar(&o.Out, "out", "", "output file")
	f.StringVar(&o.Embedder, "embedder", "", "embeddings model provider:model for pairing premises without a class match")
	f.StringVar(&o.Scorer, "scorer", "", "URL of a BERTScore/NLI scorer (docs/scorer-protocol.md)")
	return cmd
}

func newMissciReportCmd(g *Global) *cobra.Command {
	var run int64
	var allowIncomplete bool
	var ks, format, out, embedder, scorer string
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Report a stored reconstruction run (default: the latest) at any cut-off",
		Args:  cobra.NoArgs,
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
			s, err := openSession(g)
			if err != nil {
				return err
			}
			defer s.Close()
			r, err := lifecycle.Pick(ctx, s.st, missci.Definition.Name, missci.Definition.Title+" reconstruction", run, allowIncomplete, func(r store.Run) bool {
				_, err := records.LoadMissci(ctx, s.st, r.ID)
				return err == nil
			})
			if errors.Is(err, lifecycle.ErrNoRun) {
				return fmt.Errorf("no Missci reconstruction run in %s: run `fallacylab missci run` first", s.st.Path())
			}
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
			x := premiseExtras{scorer: scorerFor(g, scorer), ctx: ctx}
			if x.embed, err = embedderFor(ctx, s, embedder); err != nil {
				return err
			}
			return reportReconstruction(g, data, preds, k, m.Split, fmt.Sprintf("run %d: %s", run, m.Source), m.Unknown, f, out, x)
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
