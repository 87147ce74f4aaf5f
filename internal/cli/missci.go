package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/fallacylab/fallacylab/bench/missci"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/report"
	"github.com/spf13/cobra"
)

func newMissciCmd(g *Global) *cobra.Command {
	cmd := &cobra.Command{Use: "missci", Short: "Missci: reconstruct the fallacious premise behind misrepresented-science claims"}
	cmd.AddCommand(newMissciBaselineCmd(g), newMissciEvalCmd(g), newMissciRunCmd(g))
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
	var split, file, ks, format, out string
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
			return reportReconstruction(g, data, preds, k, split, file, unknown, f, out)
		},
	}
	cmd.Flags().StringVar(&split, "split", "test", "dev or test")
	cmd.Flags().StringVar(&file, "predictions", "", "predictions JSONL")
	cmd.Flags().StringVar(&ks, "k", "1", "cut-off: 1…6 or all")
	cmd.Flags().BoolVar(&strict, "strict", false, "abort on an unknown class name, as upstream does (default: Other, counted)")
	cmd.Flags().StringVar(&format, "format", "md", "md, csv, json, tex or html")
	cmd.Flags().StringVar(&out, "out", "", "output file")
	cmd.MarkFlagRequired("predictions")
	return cmd
}

func reportReconstruction(g *Global, data []missci.Argument, preds missci.Predictions, k int, split, source string, unknown []string, f report.Format, out string) error {
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
	sec := rep.AddSection("Reconstruction", "HasPositive@k is the paper's P@1 at k = 1; Other is never a false positive in micro-F1 (SPEC A.7). METEOR, BERTScore and NLI are not computed by this version.")
	sec.Add(missci.ReconstructionTable("reconstruction", "Reconstruction by cut-off k", names, rs))
	sec.Add(missci.PerClassTable(rs[0]))
	sec.Add(missci.ArgTTable(rs[0]))
	return writeReport(g, rep, f, out)
}

func firstN(s []string, n int) []string { return s[:min(n, len(s))] }

func newMissciRunCmd(g *Global) *cobra.Command {
	var model, template, split, format, out string
	var strict bool
	var maxTokens int
	cmd := &cobra.Command{
		Use:     "run",
		Short:   "Reconstruct every reasoning line with a model and score it",
		Example: `  fallacylab missci run --model openai:gpt-4.1 --template gen_cls/p4-connect-D`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f, err := report.ParseFormat(format)
			if err != nil {
				return err
			}
			spec, err := llm.ParseSpec(model)
			if err != nil {
				return err
			}
			if !strings.HasPrefix(template, "gen_cls/") {
				return fmt.Errorf("--template %q: this version runs the reconstruction task (gen_cls/…)", template)
			}
			data, err := missci.Load(split)
			if err != nil {
				return err
			}
			plan, err := missci.ReconstructionPlan(data, template, spec, nil, maxTokens)
			if err != nil {
				return err
			}
			s, err := openSession(g)
			if err != nil {
				return err
			}
			defer s.Close()
			var unknown []string
			opts := missci.ParseOptions{Strict: strict, Unknown: &unknown}
			preds := missci.Predictions{}
			var parseErr error
			_, err = s.execute(cmd.Context(), runSpec{Name: "missci " + template, Benchmark: "missci", Args: os.Args[1:],
				Options: map[string]any{"model": model, "template": template, "split": split}, Plan: plan, Specs: []llm.Spec{spec}},
				func(r engine.Result) {
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
			if g.DryRun {
				return err
			}
			if err != nil {
				return err
			}
			if parseErr != nil {
				return parseErr
			}
			return reportReconstruction(g, data, preds, 1, split, model+" "+template, unknown, f, out)
		},
	}
	cmd.Flags().StringVar(&model, "model", "", "model provider:model")
	cmd.Flags().StringVar(&template, "template", "gen_cls/p4-connect-D", "prompt template (see the embedded list)")
	cmd.Flags().StringVar(&split, "split", "test", "dev or test")
	cmd.Flags().IntVar(&maxTokens, "max-tokens", 1000, "output token limit (upstream GPT-4: 1000)")
	cmd.Flags().BoolVar(&strict, "strict", false, "abort on an unknown class name, as upstream does")
	cmd.Flags().StringVar(&format, "format", "md", "md, csv, json, tex or html")
	cmd.Flags().StringVar(&out, "out", "", "output file")
	return cmd
}
