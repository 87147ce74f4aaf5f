package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/fallacylab/fallacylab/bench/missci"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/internal/records"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/report"
	"github.com/spf13/cobra"
)

func newMissciCmd(g *Global) *cobra.Command {
	cmd := &cobra.Command{Use: "missci", Short: "Missci: reconstruct the fallacious premise behind misrepresented-science claims"}
	cmd.AddCommand(newMissciBaselineCmd(g), newMissciEvalCmd(g), newMissciRunCmd(g), newMissciHumanEvalCmd(g), newMissciReportCmd(g))
	return cmd
}

func parseK(s string) (int, error) {
	if s == "all" {
		return 0, nil
	}
	k, err := strconv.Atoi(s)
	if err != nil || k < 1 {
		return 0, fmt.Errorf("--k %q: use 1…6 or all", s)
	}
	return k, nil
}

func newMissciBaselineCmd(g *Global) *cobra.Command {
	var split, premise, seeds, format, out string
	cmd := &cobra.Command{
		Use:   "baseline random",
		Short: "The paper's random baselines: a random class (CPython-exact draws) with the claim or p0 as premise",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] != "random" {
				return fmt.Errorf("baseline %q: the only baseline is random", args[0])
			}
			f, err := report.ParseFormat(format)
			if err != nil {
				return err
			}
			data, err := missci.Load(split)
			if err != nil {
				return err
			}
			var names []string
			var rs []missci.Reconstruction
			var mean missci.Reconstruction
			var meteor float64
			lexical := 0
			ss := strings.Split(seeds, ",")
			for _, s := range ss {
				seed, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
				if err != nil {
					return fmt.Errorf("--seeds: %q is not a non-negative integer", s)
				}
				preds, err := missci.RandomBaseline(data, seed, premise)
				if err != nil {
					return err
				}
				r, err := missci.EvaluateReconstruction(data, preds, 1)
				if err != nil {
					return err
				}
				names, rs = append(names, "seed "+s), append(rs, r)
				n := float64(len(ss))
				pairs, err := missci.MatchPairs(data, preds, 1)
				if err != nil {
					return err
				}
				ps, err := missci.ScorePairs(pairs)
				if err != nil {
					return err
				}
				meteor += ps.All / n
				lexical += ps.NLexical
				mean.K, mean.Lines = 1, r.Lines
				mean.HasPositive += r.HasPositive / n
				mean.ArgK += r.ArgK / n
				mean.MicroF1 += r.MicroF1 / n
				mean.MacroF1 += r.MacroF1 / n
				mean.SamplesF1 += r.SamplesF1 / n
			}
			names, rs = append(names, "mean"), append(rs, mean)
			rep := &report.Report{Title: "Missci random baseline (" + premise + ")", Benchmark: "missci",
				Meta: [][2]string{{"split", split}, {"premise", premise}, {"draws", "CPython random.seed(s); random.choice(LABELS)"}}}
			rep.AddSection("Reconstruction", "").Add(missci.ReconstructionTable("random", "Random baseline, k = 1", names, rs))
			t := rep.AddSection("Premise quality", fmt.Sprintf("Mean METEOR over seeds of the %s used as the premise. %d line-seeds had no class match and were paired by the lexical fallback "+
				"(upstream uses SBERT cosine there, so its 0.181 / 0.188 differ slightly).", premise, lexical)).
				Add(&report.Table{ID: "random_meteor", Title: "METEOR", Columns: report.Cols("premise", "METEOR (mean over seeds)")})
			t.Rows = append(t.Rows, []report.Cell{report.T(premise), report.F(meteor, 4)})
			return writeReport(g, rep, f, out)
		},
	}
	cmd.Flags().StringVar(&split, "split", "test", "dev or test")
	cmd.Flags().StringVar(&premise, "premise", "claim", "claim or p0")
	cmd.Flags().StringVar(&seeds, "seeds", "1,2,3,4,5", "seeds")
	cmd.Flags().StringVar(&format, "format", "md", "md, csv, json, tex or html")
	cmd.Flags().StringVar(&out, "out", "", "output file")
	return cmd
}

// predLine is one line of a predictions file: ranked predictions, or a raw
// model answer to parse.
type predLine struct {
	ID          string              `json:"id"`
	Predictions []missci.Prediction `json:"predictions"`
	Answer      *string             `json:"answer"`
}

func newMissciEvalCmd(g *Global) *cobra.Command {
	var split, file, ks, format, out, embedder, scorer string
	var strict bool
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Score reconstruction outputs produced elsewhere",
		Long: `Each line of --predictions is {"id": "arg-34:1", "predictions": [{"premise": "…", "class": "…"}, …]}
(ranked) or {"id": "arg-34:1", "answer": "<raw model output>"}, parsed as upstream parses it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f, err := report.ParseFormat(format)
			if err != nil {
				return err
			}
			k, err := parseK(ks)
			if err != nil {
				return err
			}
			data, err := missci.Load(split)
			if err != nil {
				return err
			}
			fh, err := os.Open(file)
			if err != nil {
				return fmt.Errorf("predictions: %w", err)
			}
			defer fh.Close()
			var unknown []string
			opts := missci.ParseOptions{Strict: strict, Unknown: &unknown}
			preds := missci.Predictions{}
			sc := bufio.NewScanner(fh)
			sc.Buffer(make([]byte, 1<<20), 32<<20)
			for n := 1; sc.Scan(); n++ {
				if strings.TrimSpace(sc.Text()) == "" {
					continue
				}
				var pl predLine
				if err := json.Unmarshal(sc.Bytes(), &pl); err != nil {
					return fmt.Errorf("%s line %d: %w", file, n, err)
				}
				if pl.ID == "" {
					return fmt.Errorf("%s line %d: field id: required", file, n)
				}
				switch {
				case pl.Answer != nil:
					p, err := missci.ParseGenCls(*pl.Answer, opts)
					if err != nil {
						return fmt.Errorf("%s line %d: %w", file, n, err)
					}
					preds[pl.ID] = p
				case len(pl.Predictions) > 0:
					for i, p := range pl.Predictions {
						if !missci.IsValid(p.Class) {
							c, err := opts.Normalize(p.Class)
							if err != nil {
								return fmt.Errorf("%s line %d: predictions[%d].class: %w", file, n, i, err)
							}
							pl.Predictions[i].Class = c
						}
					}
					preds[pl.ID] = pl.Predictions
				default:
					return fmt.Errorf("%s line %d: needs predictions or answer", file, n)
				}
			}
			if err := sc.Err(); err != nil {
				return err
			}
			x := premiseExtras{scorer: scorer, ctx: cmd.Context()}
			if embedder != "" {
				s, err := openSession(g)
				if err != nil {
					return err
				}
				defer s.Close()
				if x.embed, err = embedderFor(cmd.Context(), s, embedder); err != nil {
					return err
				}
			}
			return reportReconstruction(g, data, preds, k, split, file, unknown, f, out, x)
		},
	}
	cmd.Flags().StringVar(&embedder, "embedder", "", "embeddings model provider:model (OpenAI-compatible /v1/embeddings) for pairing premises without a class match")
	cmd.Flags().StringVar(&scorer, "scorer", "", "URL of a BERTScore/NLI scorer (docs/scorer-protocol.md)")
	cmd.Flags().StringVar(&split, "split", "test", "dev or test")
	cmd.Flags().StringVar(&file, "predictions", "", "predictions JSONL")
	cmd.Flags().StringVar(&ks, "k", "1", "cut-off: 1…6 or all")
	cmd.Flags().BoolVar(&strict, "strict", false, "abort on an unknown class name, as upstream does (default: Other, counted)")
	cmd.Flags().StringVar(&format, "format", "md", "md, csv, json, tex or html")
	cmd.Flags().StringVar(&out, "out", "", "output file")
	cmd.MarkFlagRequired("predictions")
	return cmd
}

func reportReconstruction(g *Global, data []missci.Argument, preds missci.Predictions, k int, split, source string, unknown []string, f report.Format, out string, x premiseExtras) error {
	var names []string
	var rs []missci.Reconstruction
	ks := []int{k}
	if k == 1 {
		ks = []int{1, 2, 3, 4, 5, 6, 0}
	}
	for _, kk := range ks {
		r, err := missci.EvaluateReconstruction(data, preds, kk)
		if err != nil {
			return err
		}
		names, rs = append(names, source), append(rs, r)
	}
	rep := &report.Report{Title: "Missci reconstruction", Benchmark: "missci", Meta: [][2]string{{"split", split}, {"source", source},
		{"unknown class names mapped to Other", fmt.Sprintf("%d %v", len(unknown), firstN(unknown, 5))}}}
	sec := rep.AddSection("Reconstruction", "HasPositive@k is the paper's P@1 at k = 1; Other is never a false positive in micro-F1 (SPEC A.7).")
	sec.Add(missci.ReconstructionTable("reconstruction", "Reconstruction by cut-off k", names, rs))
	sec.Add(missci.PerClassTable(rs[0]))
	sec.Add(missci.ArgTTable(rs[0]))
	if err := premiseSection(rep, data, preds, k, x); err != nil {
		return err
	}
	return writeReport(g, rep, f, out)
}

// premiseExtras are the optional premise scorers.
type premiseExtras struct {
	embed  missci.Embedder
	scorer string
	ctx    context.Context
}

// premiseSection adds METEOR (and, with a scorer, BERTScore and NLI) over
// the matched (gold, predicted) premise pairs.
func premiseSection(rep *report.Report, data []missci.Argument, preds missci.Predictions, k int, x premiseExtras) error {
	pairs, err := missci.MatchPairsWith(data, preds, k, x.embed)
	if err != nil {
		return err
	}
	ps, err := missci.ScorePairs(pairs)
	if err != nil {
		return err
	}
	how := fmt.Sprintf("%d of %d lines had no class match and were paired by the lexical fallback (token-set Jaccard) instead of upstream's SBERT cosine, since no --embedder is configured.", ps.NLexical, ps.N)
	if x.embed != nil {
		how = fmt.Sprintf("%d of %d lines had no class match and were paired by embedding cosine (--embedder).", ps.NEmbedding, ps.N)
	}
	intro := "METEOR as nltk 3.8 computes it (word_tokenize, Porter, WordNet 3.0), reference = gold premise. Pairs are matched by class first; " + how
	if x.scorer == "" {
		intro += " BERTScore and NLI-A/NLI-S: not computed (no --scorer configured)."
	}
	sec := rep.AddSection("Premise quality", intro)
	cols := []string{"pairs", "METEOR all", "METEOR correct class", "METEOR incorrect class"}
	row := []report.Cell{report.I(ps.N), report.F(ps.All, 4), report.F(ps.Correct, 4), report.F(ps.Incorrect, 4)}
	if x.scorer != "" {
		scores, err := scorePairs(x.ctx, x.scorer, pairs)
		if err != nil {
			return err
		}
		for _, m := range []string{"bertscore", "nli_a", "nli_s"} {
			sum, n := 0.0, 0
			for _, s := range scores {
				if v, ok := s[m]; ok {
					sum += v
					n++
				}
			}
			cols = append(cols, m)
			if n == 0 {
				row = append(row, report.NA("not returned by the scorer"))
			} else {
				row = append(row, report.F(sum/float64(n), 4))
			}
		}
	}
	t := sec.Add(&report.Table{ID: "premise_quality", Title: "Generated premises against gold premises", Columns: report.Cols(cols...)})
	t.Rows = append(t.Rows, row)
	per, n, err := missci.PerClassMeteor(pairs)
	if err != nil {
		return err
	}
	pc := sec.Add(&report.Table{ID: "premise_meteor_per_class", Title: "METEOR of correctly classified premises, per gold class", Columns: report.Cols("class", "pairs", "METEOR")})
	for _, c := range missci.Classes {
		if n[c] > 0 {
			pc.Rows = append(pc.Rows, []report.Cell{report.T(c), report.I(n[c]), report.F(per[c], 4)})
		}
	}
	return nil
}

func firstN(s []string, n int) []string { return s[:min(n, len(s))] }

type missciRunOptions struct {
	Task, Model, Template, FromTemplate, Split, Format, Out string
	Embedder, Scorer                                        string
	Strict                                                  bool
	MaxTokens                                               int
}

var defaultTemplates = map[string]string{
	"reconstruct": "gen_cls/p4-connect-D", "classify-gold": "cls_with_premise/classify-D",
	"classify-only": "cls_without_premise/p4-connect-cls-D", "consistency": "cls_with_premise/classify-D",
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
	rs := runSpec{Name: "missci " + o.Task + " " + o.Template, Benchmark: "missci", Args: os.Args[1:], Options: o, Specs: []llm.Spec{spec}}
	// reconstruct runs a gen_cls template and parses ranked predictions.
	reconstruct := func(template string) (missci.Predictions, error) {
		plan, err := missci.ReconstructionPlan(data, template, spec, nil, o.MaxTokens)
		if err != nil {
			return nil, err
		}
		preds := missci.Predictions{}
		var parseErr error
		rs.Plan = plan
		_, err = s.execute(ctx, rs, func(r engine.Result) {
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
			preds[id] = p
		})
		if err == nil {
			err = parseErr
		}
		return preds, err
	}
	classify := func(units []missci.ClassifyUnit) (map[string]string, error) {
		plan, err := missci.ClassifyPlan(data, units, o.Template, spec, o.MaxTokens)
		if err != nil {
			return nil, err
		}
		out := map[string]string{}
		var parseErr error
		rs.Plan = plan
		_, err = s.execute(ctx, rs, func(r engine.Result) {
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
	source := o.Model + " " + o.Template
	switch o.Task {
	case "reconstruct":
		if !strings.HasPrefix(o.Template, "gen_cls/") {
			return fmt.Errorf("--task reconstruct needs a gen_cls/ template")
		}
		preds, err := reconstruct(o.Template)
		if err != nil || g.DryRun {
			return err
		}
		if err := storeMissci(ctx, s, o.Split, source, unknown, preds); err != nil {
			return err
		}
		x := premiseExtras{scorer: o.Scorer, ctx: ctx}
		if x.embed, err = embedderFor(ctx, s, o.Embedder); err != nil {
			return err
		}
		return reportReconstruction(g, data, preds, 1, o.Split, source, unknown, f, o.Out, x)
	case "classify-gold", "classify-only":
		units := missci.GoldPremiseUnits(data)
		if o.Task == "classify-only" {
			units = missci.LineUnits(data)
		}
		got, err := classify(units)
		if err != nil || g.DryRun {
			return err
		}
		var res missci.ClassifyResult
		if o.Task == "classify-gold" {
			var yTrue, yPred []string
			for _, u := range units {
				yTrue, yPred = append(yTrue, u.Gold), append(yPred, got[u.ID])
			}
			res, err = missci.EvaluateWithPremise(yTrue, yPred)
		} else {
			res, err = missci.EvaluateWithoutPremise(data, got)
		}
		if err != nil {
			return err
		}
		rep := &report.Report{Title: "Missci " + o.Task, Benchmark: "missci", Meta: [][2]string{{"split", o.Split}, {"source", source}}}
		t := rep.AddSection("Classification", "classification_report semantics: the label set is the union of gold and predicted labels; with the gold premise, a prediction absent from gold counts as unk (SPEC A.8–A.9).").
			Add(&report.Table{ID: "classification", Title: "Accuracy and macro-F1", Columns: report.Cols("units", "accuracy", "macro-F1", "labels")})
		t.Rows = append(t.Rows, []report.Cell{report.I(res.N), report.F(res.Accuracy, 4), report.F(res.MacroF1, 4), report.I(len(res.Labels))})
		return writeReport(g, rep, f, o.Out)
	case "consistency":
		preds, err := reconstruct(o.FromTemplate)
		if err != nil || g.DryRun {
			return err
		}
		units := missci.ConsistencyUnits(data, missci.SingleFallacy(data, preds, 1))
		got, err := classify(units)
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

// storeMissci keeps a reconstruction run's predictions with the run just executed.
func storeMissci(ctx context.Context, s *session, split, source string, unknown []string, preds missci.Predictions) error {
	runID, err := records.LatestRun(ctx, s.st, "missci")
	if err != nil || runID == 0 {
		return err
	}
	m := records.MissciRun{Split: split, Source: source, Unknown: unknown, Predictions: map[string][]map[string]string{}}
	for id, list := range preds {
		for _, p := range list {
			m.Predictions[id] = append(m.Predictions[id], map[string]string{"premise": p.Premise, "class": p.Class})
		}
	}
	return records.SaveMissci(ctx, s.st, runID, m)
}

func newMissciReportCmd(g *Global) *cobra.Command {
	var run int64
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
			if run == 0 {
				runs, err := s.st.Runs(ctx)
				if err != nil {
					return err
				}
				for _, r := range runs {
					if r.Benchmark == "missci" {
						if _, err := records.LoadMissci(ctx, s.st, r.ID); err == nil {
							run = r.ID
							break
						}
					}
				}
				if run == 0 {
					return fmt.Errorf("no Missci reconstruction run in %s: run `fallacylab missci run` first", s.st.Path())
				}
			}
			m, err := records.LoadMissci(ctx, s.st, run)
			if err != nil {
				return err
			}
			data, err := missci.Load(m.Split)
			if err != nil {
				return err
			}
			preds := missci.Predictions{}
			for id, list := range m.Predictions {
				for _, p := range list {
					preds[id] = append(preds[id], missci.Prediction{Premise: p["premise"], Class: p["class"]})
				}
			}
			x := premiseExtras{scorer: scorer, ctx: ctx}
			if x.embed, err = embedderFor(ctx, s, embedder); err != nil {
				return err
			}
			return reportReconstruction(g, data, preds, k, m.Split, fmt.Sprintf("run %d: %s", run, m.Source), m.Unknown, f, out, x)
		},
	}
	cmd.Flags().Int64Var(&run, "run", 0, "run id (default: the latest Missci reconstruction run)")
	cmd.Flags().StringVar(&ks, "k", "1", "cut-off: 1…6 or all (1 reports every cut-off)")
	cmd.Flags().StringVar(&format, "format", "md", "md, csv, json, tex or html")
	cmd.Flags().StringVar(&out, "out", "", "output file")
	cmd.Flags().StringVar(&embedder, "embedder", "", "embeddings model for premise pairing")
	cmd.Flags().StringVar(&scorer, "scorer", "", "BERTScore/NLI scorer URL")
	return cmd
}
