package cli

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/compare"
	"github.com/fallacylab/fallacylab/report"
)

// newCompareCmd is `fallacylab compare A B [C…]`: paired comparisons of
// arms of one benchmark on their shared items.
func newCompareCmd(g *Global) *cobra.Command {
	var o compare.Options
	var format, out, dir string
	cmd := &cobra.Command{
		Use:   "compare ARM ARM [ARM…] | RUN",
		Short: "Compare runs (or models inside runs) of one benchmark item by item: paired differences, tests and verdicts",
		Long: `Compare two or more arms of one benchmark on the items they share. An arm is a run
(RUN: its id) or one model inside a run (RUN:MODEL, e.g. 12:openai:gpt-4.1). One run
alone compares every model inside it.

For each headline metric of the benchmark: each arm's estimate and the paired difference
on the shared items, with percentile intervals from a bootstrap over the benchmark's
cluster unit (a text, an argument, a claim); McNemar's exact test and its mid-p for a
binary outcome per item, a sign-flip permutation test over clusters otherwise; Cohen's h
for rates. With three or more arms every pair is compared, and Holm and
Benjamini–Hochberg adjust the p-values over the pairs of each metric; each pair gets a
verdict at --alpha.`,
		Example: `  fallacylab compare 12 13                           # two runs
  fallacylab compare 12 13 14 --alpha 0.01 --format html --out compare.html
  fallacylab compare 7:openai:gpt-4.1 7:anthropic:claude-haiku-4-5   # two models of one run
  fallacylab compare 7                               # every model of run 7, pair by pair`,
		Args: cobra.MinimumNArgs(1),
	}
	f := cmd.Flags()
	f.Float64Var(&o.Alpha, "alpha", 0.05, "the level of the verdicts (two-sided)")
	f.IntVar(&o.Resamples, "resamples", 2000, "cluster bootstrap resamples for the intervals")
	f.Uint64Var(&o.Seed, "seed", 20260101, "bootstrap and permutation seed")
	bench.AddReportFlags(f, &format, &out, "")
	f.StringVar(&dir, "data-dir", "", "data directory (default $FALLACYLAB_DATA or the user's data folder)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		ctx := cmd.Context()
		rf, err := report.ParseFormat(format)
		if err != nil {
			return err
		}
		s, err := openBrowse(g)
		if err != nil {
			return err
		}
		defer s.Close()
		var arms []compare.Arm
		seen := map[string]bool{}
		benchmark, design, first := "", "", ""
		panels := map[int64][]string{}
		for _, a := range args {
			id, model, err := parseArm(a)
			if err != nil {
				return fmt.Errorf("arm %w", err)
			}
			key := fmt.Sprintf("%d:%s", id, model)
			if seen[key] {
				return fmt.Errorf("arm %q is named twice: a comparison of an arm with itself says nothing", a)
			}
			seen[key] = true
			r, ok, err := s.st.Run(ctx, id)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("arm %q: the store has no run %d (fallacylab runs lists them)", a, id)
			}
			t, ok := bench.TaskOf(r.Benchmark)
			c, can := t.(bench.Compares)
			if !ok || !can {
				return fmt.Errorf("arm %q: runs of %s do not compare item by item yet", a, bench.Title(r.Benchmark))
			}
			as, err := bench.ComparedAs(ctx, s.taskEnv(dir), r)
			if err != nil {
				return fmt.Errorf("arm %q: %w", a, err)
			}
			if benchmark != "" && as != benchmark {
				return fmt.Errorf("arm %q is a run of %s, the others of %s: arms of two benchmarks do not compare", a, bench.Title(as), bench.Title(benchmark))
			}
			benchmark = as
			runArms, err := c.Arms(ctx, s.taskEnv(dir), r)
			if err != nil {
				return fmt.Errorf("run %d: %w", id, err)
			}
			if len(runArms) == 0 {
				return fmt.Errorf("arm %q: run %d has no figures to compare", a, id)
			}
			panels[id] = slices.Sorted(slices.Values(runArms[0].Judges))
			if d := runArms[0].Design; design == "" {
				design, first = d, a
			} else if !bench.SameDesign(d, design) {
				return fmt.Errorf("arm %q is a run of %s %s, arm %q of %s: their figures measure different things", a, bench.Title(r.Benchmark), d, first, design)
			}
			if len(args) == 1 && model == "" {
				if arms, err = everyModel(runArms, id); err != nil {
					return err
				}
				break
			}
			arm, err := pickArm(runArms, id, model)
			if err != nil {
				return fmt.Errorf("arm %q: %w", a, err)
			}
			arms = append(arms, arm)
		}
		if len(arms) < 2 {
			return fmt.Errorf("one arm (%s) compares with nothing: name another run, or another model of a run (RUN:MODEL)", arms[0].Label)
		}
		pairs, err := compare.Compare(arms, o)
		if err != nil {
			return err
		}
		rep := compare.Report(bench.Title(benchmark)+": paired comparison", benchmark, pairs, o)
		if note := bench.PanelsNote(panels); note != "" {
			rep.Meta = append(rep.Meta, [2]string{"judges", note})
		}
		return writeReport(g, rep, rf, out)
	}
	return cmd
}

// parseArm reads an arm's name: RUN, or RUN:MODEL (the model's own colons
// kept: 12:openai:gpt-4.1).
func parseArm(a string) (id int64, model string, err error) {
	idText, model, _ := strings.Cut(a, ":")
	id, err = strconv.ParseInt(idText, 10, 64)
	if err != nil || id <= 0 {
		return 0, "", fmt.Errorf("%q: name a run (its id) or a model inside a run (RUN:MODEL, e.g. 12:openai:gpt-4.1)", a)
	}
	return id, model, nil
}

// everyModel is an arm for each model of run id (compare RUN): a run of
// one model is an error that says what to name.
func everyModel(arms []bench.Arm, id int64) ([]compare.Arm, error) {
	if len(arms) < 2 {
		return nil, fmt.Errorf("run %d has one model: compare it with another run (compare %d RUN) or name a model of another (RUN:MODEL)", id, id)
	}
	out := make([]compare.Arm, len(arms))
	for i, a := range arms {
		out[i] = compare.Arm{Label: fmt.Sprintf("run %d:%s", id, a.Model), Metrics: a.Metrics}
	}
	return out, nil
}

// pickArm is the arm of run id a comparison names: the model's, or the
// run's only one.
func pickArm(arms []bench.Arm, id int64, model string) (compare.Arm, error) {
	var names []string
	for _, a := range arms {
		names = append(names, a.Model)
		if a.Model == model || (model == "" && len(arms) == 1) {
			label := fmt.Sprintf("run %d", id)
			switch {
			case model != "":
				label += ":" + a.Model
			case a.Model != "":
				label += " (" + a.Model + ")"
			}
			return compare.Arm{Label: label, Metrics: a.Metrics}, nil
		}
	}
	if model == "" {
		return compare.Arm{}, fmt.Errorf("run %d has %d models (%s): name one as %d:MODEL", id, len(arms), strings.Join(names, ", "), id)
	}
	return compare.Arm{}, fmt.Errorf("run %d has no model %s (it has %s)", id, model, strings.Join(names, ", "))
}
