package missci

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/runner"

	"github.com/fallacylab/fallacylab/decode"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store"
	"github.com/spf13/cobra"
)

// Commands implements bench.Commands: reports that are not of a stored
// run — the evaluation of answers made elsewhere (a file), the paper's
// random baselines and its human-evaluation table (the run and its report
// are the Task's BindRun and BindReport). They are commands of their own
// because each reads something other than a run (a predictions file, the
// paper's data and seeds, its human-evaluation CSV); an evaluation whose
// premises are embedded or scored makes a run of those calls.
func (Task) Commands(h bench.Host) []*cobra.Command {
	return []*cobra.Command{newBaselineCmd(h), newEvalCmd(h), newHumanEvalCmd(h)}
}

func parseK(s string) (int, error) {
	if s == "all" {
		return 0, nil
	}
	k, err := strconv.Atoi(s)
	if err != nil || k < 1 || k > 6 {
		return 0, fmt.Errorf("--k %q: use 1…6 or all", s)
	}
	return k, nil
}

func newBaselineCmd(h bench.Host) *cobra.Command {
	var split, premise, seeds, format, out string
	cmd := &cobra.Command{
		Use:   "baseline random",
		Short: "The paper's random baselines: a random class (CPython-exact draws) with the claim or p0 as premise",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] != "random" {
				return fmt.Errorf("baseline %q: the only baseline is random", args[0])
			}
			if _, err := report.ParseFormat(format); err != nil {
				return err
			}
			data, err := Load(split)
			if err != nil {
				return err
			}
			var nums []uint64
			var labels []string
			for _, s := range strings.Split(seeds, ",") {
				seed, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
				if err != nil {
					return fmt.Errorf("--seeds: %q is not a non-negative integer", s)
				}
				nums, labels = append(nums, seed), append(labels, s)
			}
			rep, err := RandomBaselineReport(data, split, premise, nums, labels)
			if err != nil {
				return err
			}
			return h.WriteReport(rep, format, out)
		},
	}
	cmd.Flags().StringVar(&split, "split", "test", "dev or test")
	cmd.Flags().StringVar(&premise, "premise", "claim", "claim or p0")
	cmd.Flags().StringVar(&seeds, "seeds", "1,2,3,4,5", "seeds")
	bench.AddReportFlags(cmd.Flags(), &format, &out, "output file")
	return cmd
}

func newEvalCmd(h bench.Host) *cobra.Command {
	var split, file, ks, format, out, embedder, scorer string
	var strict bool
	cmd := &cobra.Command{
		Use:         "eval",
		Annotations: bench.CallsModels(),
		Short:       "Score reconstruction outputs produced elsewhere",
		Long: `Each line of --predictions is {"id": "arg-34:1", "predictions": [{"premise": "…", "class": "…"}, …]}
(ranked) or {"id": "arg-34:1", "answer": "<raw model output>"}, parsed as upstream parses it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := report.ParseFormat(format); err != nil {
				return err
			}
			k, err := parseK(ks)
			if err != nil {
				return err
			}
			data, err := Load(split)
			if err != nil {
				return err
			}
			fh, err := os.Open(file)
			if err != nil {
				return fmt.Errorf("predictions: %w", err)
			}
			defer fh.Close()
			var unknown []string
			opts := ParseOptions{Strict: strict, Unknown: &unknown}
			preds := Predictions{}
			// Raw answers the parser cannot read count as unusable, as in
			// a run: over --max-unusable, the evaluation fails (exit 4).
			usage := store.PhaseCount{Phase: "reconstruction", Model: file}
			sc := bufio.NewScanner(fh)
			sc.Buffer(make([]byte, 1<<20), 32<<20)
			for n := 1; sc.Scan(); n++ {
				if strings.TrimSpace(sc.Text()) == "" {
					continue
				}
				var pl PredictionLine
				line := sc.Bytes()
				if n == 1 {
					line = decode.StripBOM(line)
				}
				if err := json.Unmarshal(line, &pl); err != nil {
					return fmt.Errorf("%s line %d: %w", file, n, decode.Explain(err, pl))
				}
				if pl.ID == "" {
					return fmt.Errorf("%s line %d: field id: required", file, n)
				}
				switch {
				case pl.Answer != nil:
					p, err := ParseGenCls(*pl.Answer, opts)
					if err != nil {
						return fmt.Errorf("%s line %d: %w", file, n, err)
					}
					preds[pl.ID] = p
					usage.Answered++
					if !GenClsParsable(*pl.Answer) {
						if usage.Unusable++; usage.Example == "" {
							usage.Example = *pl.Answer
						}
					}
				case len(pl.Predictions) > 0:
					for i, p := range pl.Predictions {
						if !IsValid(p.Class) {
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
			if err := runner.CheckUnusable("reconstruction", Definition.Phase("reconstruction").Hint, []store.PhaseCount{usage}, h.Settings().MaxUnusable); err != nil {
				return err
			}
			x := Scorers{}
			if embedder != "" || scorer != "" {
				// The embeddings and scores are a run's phases: counted,
				// priced by --dry-run, cached, resumed, stored with it.
				var done bool
				if x, done, err = evalRun(cmd.Context(), h, evalOptions{Split: split, Predictions: file, Embedder: embedder, Scorer: scorer, Strict: strict},
					data, preds, unknown); err != nil || done {
					return err
				}
			}
			rep, err := ReconstructionReport(data, preds, k, split, file, unknown, x)
			if err != nil {
				return err
			}
			if usage.Unusable > 0 {
				rep.Meta = append(rep.Meta, [2]string{"unusable answers", fmt.Sprintf("%d of %d raw answers could not be parsed (scored as Other)", usage.Unusable, usage.Answered)})
			}
			return h.WriteReport(rep, format, out)
		},
	}
	cmd.Flags().StringVar(&embedder, "embedder", "", "embeddings model provider:model (OpenAI-compatible /v1/embeddings) for pairing premises without a class match")
	cmd.Flags().StringVar(&scorer, "scorer", "", "URL of a BERTScore/NLI scorer (docs/scorer-protocol.md)")
	cmd.Flags().StringVar(&split, "split", "test", "dev or test")
	cmd.Flags().StringVar(&file, "predictions", "", "predictions JSONL")
	cmd.Flags().StringVar(&ks, "k", "1", "cut-off: 1…6 or all")
	cmd.Flags().BoolVar(&strict, "strict", false, "abort on an unknown class name, as upstream does (default: Other, counted)")
	bench.AddReportFlags(cmd.Flags(), &format, &out, "output file")
	cmd.MarkFlagRequired("predictions")
	return cmd
}

// runOptions are `missci run`'s options.
type runOptions struct {
	Task, Model, Template, FromTemplate, Split string
	Embedder, Scorer                           string
	Strict                                     bool
	MaxTokens                                  int
	Select                                     bench.Selection
}

var defaultTemplates = map[string]string{
	"reconstruct": "gen_cls/p4-connect-D", "classify-gold": "cls_with_premise/classify-D",
	"classify-only": "cls_without_premise/p4-connect-cls-D", "consistency": "cls_with_premise/classify-D",
}

// evalOptions are what an evaluation run of predictions made elsewhere is
// made with.
type evalOptions struct {
	Split, Predictions, Embedder, Scorer string
	Strict                               bool
}

// evalRun embeds and scores the premises of predictions made elsewhere in
// a run of their own (the predictions its records, the embedding and
// scoring its phases) and returns the scorers of what it stored; done:
// a dry run, priced, with nothing more to do.
func evalRun(ctx context.Context, h bench.Host, o evalOptions, data []Argument, preds Predictions, unknown []string) (Scorers, bool, error) {
	sess, err := h.Open(ctx, true)
	if err != nil {
		return Scorers{}, false, err
	}
	defer sess.Close()
	env := sess.Env("")
	r := &missciRun{env: env, o: runOptions{Task: "reconstruct", Split: o.Split, Embedder: o.Embedder, Scorer: o.Scorer, Strict: o.Strict}, data: data, preds: preds}
	phases, specs, err := r.premisePhases()
	if err != nil {
		return Scorers{}, false, err
	}
	res, err := sess.Run(ctx, runner.Spec{Name: "missci eval " + o.Predictions, Options: o, Specs: specs, Phases: phases,
		Identity: []any{o, predsDigest(preds), unknown},
		Setup: func(ctx context.Context, runID int64) error {
			return SaveRecord(ctx, env.Records, runID, Record{Split: o.Split, Source: o.Predictions, Unknown: unknown, Preds: preds})
		}})
	if err != nil || h.Settings().DryRun {
		return Scorers{}, true, err
	}
	x, _, err := storedScorers(ctx, env.Records, res.RunID)
	return x, false, err
}

// predsDigest identifies a set of predictions.
func predsDigest(preds Predictions) string {
	b, _ := json.Marshal(preds) // maps marshal in key order
	return fmt.Sprintf("%x", sha256.Sum256(b))
}
