package cli

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/compare"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
)

// planOptions are `fallacylab plan`'s flags.
type planOptions struct {
	pilot, metric    string
	rate, delta      float64
	alpha, power     float64
	samples, icc     float64
	format, out, dir string
	maxItems         int
}

// newPlanCmd is `fallacylab plan`: how many items (and samples per item)
// a comparison of two arms needs, from a pilot run or stated rates; the
// minimum detectable effect of a finished run; the planned run's price.
func newPlanCmd(g *Global) *cobra.Command {
	var o planOptions
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Plan a run before paying for it: items and samples to detect a difference, the minimum detectable effect, the price",
		Long: `How many items (claims, texts, arguments) and samples per item two arms need for a
difference in a rate of --delta to be detected with --power at --alpha (two-sided z test on
Cohen's h; the samples of an item are correlated, so their number is inflated by the design
effect 1 + (m − 1)·ρ, with ρ the intra-cluster correlation). From a pilot run (--pilot RUN or
RUN:MODEL, any benchmark whose runs compare) the base rate, ρ, the samples per item and the
price of an item come from its records and spend; else give --rate, --samples and --icc. The
pilot's own minimum detectable effect is printed too: what a finished run of its size can show.
Arms that share items (one plan, two models) need fewer: the figure is the independent
arms' bound. Where a plan needs more items than the benchmark has (--max-items, or what the
pilot's benchmark says of its set: its claims, a corpus's texts, a split's arguments), it says how many
observations per item all of them need, or that none suffices. The formulas are in
docs/planning.md.`,
		Example: `  fallacylab plan --pilot 7:openai:gpt-4.1 --delta 0.05       # from a pilot run of one model
  fallacylab plan --rate 0.30 --delta 0.05 --samples 75 --icc 0.2
  fallacylab plan --pilot 12 --metric accuracy --delta 0.03 --power 0.9`,
		Args: cobra.NoArgs,
	}
	f := cmd.Flags()
	f.StringVar(&o.pilot, "pilot", "", "a run (RUN or RUN:MODEL) whose rate, intra-cluster correlation, samples per item and price the plan uses")
	f.StringVar(&o.metric, "metric", "", "the pilot's rate to plan for (default: its first)")
	f.Float64Var(&o.rate, "rate", 0, "the base rate, without a pilot")
	f.Float64Var(&o.delta, "delta", 0.05, "the difference in the rate to detect (absolute, e.g. 0.05: 5 points)")
	f.Float64Var(&o.alpha, "alpha", 0.05, "level of the two-sided test")
	f.Float64Var(&o.power, "power", 0.8, "power to reach")
	f.Float64Var(&o.samples, "samples", 1, "without a pilot: observations per item (frames × samples)")
	f.Float64Var(&o.icc, "icc", 0, "without a pilot: intra-cluster correlation of an item's observations")
	f.IntVar(&o.maxItems, "max-items", 0, "the most items an arm can have — the benchmark's whole set of claims or texts (default: what the pilot's benchmark says, else no limit)")
	bench.AddReportFlags(f, &o.format, &o.out, "")
	f.StringVar(&o.dir, "data-dir", "", "data directory (default $FALLACYLAB_DATA or the user's data folder)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		rf, err := report.ParseFormat(o.format)
		if err != nil {
			return err
		}
		in := planInput{rate: o.rate, m: o.samples, rho: o.icc, perObs: math.NaN(), unit: "item"}
		if o.pilot != "" {
			if in, err = pilotInput(cmd, g, o); err != nil {
				return err
			}
		}
		if o.maxItems > 0 {
			in.pool = o.maxItems
		}
		rep, err := planReport(in, o)
		if err != nil {
			return err
		}
		return writeReport(g, rep, rf, o.out)
	}
	return cmd
}

// planInput is what a plan rests on: the base rate, observations per item
// and their intra-cluster correlation; from a pilot also its items, the
// metric's name and the price of one observation (NaN: unknown).
type planInput struct {
	rate, m, rho float64
	items        int
	source       string
	metric       string
	perObs       float64
	pilotObs     int
	// pool is how many items the benchmark's runs draw from (0: unknown),
	// unit what an item is ("claim").
	pool int
	unit string
}

// pilotInput reads a plan's input from a pilot run's arm.
func pilotInput(cmd *cobra.Command, g *Global, o planOptions) (planInput, error) {
	ctx := cmd.Context()
	s, err := openBrowse(g)
	if err != nil {
		return planInput{}, err
	}
	defer s.Close()
	id, model, err := parseArm(o.pilot)
	if err != nil {
		return planInput{}, fmt.Errorf("--pilot %w", err)
	}
	r, ok, err := s.st.Run(ctx, id)
	if err != nil {
		return planInput{}, fmt.Errorf("--pilot: run %d: %w", id, err)
	}
	if !ok {
		return planInput{}, fmt.Errorf("--pilot: the store has no run %d (fallacylab runs lists them)", id)
	}
	t, _ := bench.TaskOf(r.Benchmark)
	c, can := t.(bench.Compares)
	if !can {
		return planInput{}, fmt.Errorf("--pilot: runs of %s do not give per-item outcomes yet", bench.Title(r.Benchmark))
	}
	arms, err := c.Arms(ctx, s.taskEnv(o.dir), r)
	if err != nil {
		return planInput{}, err
	}
	arm, err := pickArm(arms, id, model)
	if err != nil {
		return planInput{}, fmt.Errorf("--pilot: %w", err)
	}
	m, err := pilotRate(arm, id, o.metric)
	if err != nil {
		return planInput{}, err
	}
	groups := map[string][]float64{}
	var order []string
	sum := 0.0
	for _, it := range m.Items {
		if _, ok := groups[it.Cluster]; !ok {
			order = append(order, it.Cluster)
		}
		groups[it.Cluster] = append(groups[it.Cluster], it.Value)
		sum += it.Value
	}
	var gs [][]float64
	for _, k := range order {
		gs = append(gs, groups[k])
	}
	in := planInput{rate: sum / float64(len(m.Items)), m: float64(len(m.Items)) / float64(len(gs)), items: len(gs),
		source: arm.Label, metric: m.Name, perObs: math.NaN(), pilotObs: len(m.Items), pool: poolOf(arms), unit: cmp.Or(m.Unit, "item")}
	if len(gs) >= 2 {
		if in.rho, err = stats.ICC(gs); err != nil {
			in.rho = 0
		}
	}
	// The price of an observation: the run's spend over all its arms'
	// observations of the metric (judges included, where it has them).
	if spend, err := s.st.RunSpend(ctx, id); err == nil && spend > 0 {
		total := 0
		for _, a := range arms {
			for _, x := range a.Metrics {
				if x.Name == m.Name {
					total += len(x.Items)
				}
			}
		}
		in.perObs = spend / float64(total)
	}
	return in, nil
}

// poolOf is how many items the run's benchmark draws from, as its arms
// say (0: unknown).
func poolOf(arms []bench.Arm) int {
	pool := 0
	for _, a := range arms {
		pool = max(pool, a.Pool)
	}
	return pool
}

// pilotRate is the pilot arm's rate to plan for: the one named, else its
// first; an error names the rates it has, or says that its figures are no
// rates (a mean over seeds, a rank, an F1).
func pilotRate(arm compare.Arm, id int64, name string) (compare.Metric, error) {
	var rates, others []string
	for _, x := range arm.Metrics {
		if !x.Binary {
			others = append(others, x.Name)
			continue
		}
		if name == "" || x.Name == name {
			return x, nil
		}
		rates = append(rates, x.Name)
	}
	switch {
	case slices.Contains(others, name):
		return compare.Metric{}, fmt.Errorf("--pilot: %s of run %d is not a rate (its items are not each 0 or 1): a plan sizes a rate; its rates: %s", name, id, cmp.Or(strings.Join(rates, ", "), "none"))
	case len(rates) == 0:
		return compare.Metric{}, fmt.Errorf("--pilot: run %d has no rate to plan for (its figures, %s, are not 0 or 1 per item): give --rate, --samples and --icc instead", id, strings.Join(others, ", "))
	}
	return compare.Metric{}, fmt.Errorf("--pilot: run %d has no rate %q: its rates are %s", id, name, strings.Join(rates, ", "))
}

// planReport is the plan: items per arm and observations, the pilot's
// minimum detectable effect, the price.
func planReport(in planInput, o planOptions) (*report.Report, error) {
	if in.rate <= 0 || in.rate >= 1 {
		return nil, fmt.Errorf("the base rate %.3g: give --rate in (0, 1), or a pilot whose rate is neither 0 nor 1", in.rate)
	}
	if in.m < 1 || in.rho < 0 || in.rho > 1 {
		return nil, fmt.Errorf("--samples %g and --icc %g: at least one observation per item, and a correlation in [0, 1]", in.m, in.rho)
	}
	target := in.rate + o.delta
	if target < 0 || target > 1 {
		hint := "a smaller --delta, or a negative one to detect a fall"
		if o.delta < 0 {
			hint = "a smaller fall"
		}
		return nil, fmt.Errorf("--delta %g from the base rate %.3f is %.3f, not a rate: %s", o.delta, in.rate, target, hint)
	}
	h := 2*math.Asin(math.Sqrt(target)) - 2*math.Asin(math.Sqrt(in.rate))
	n, err := stats.SampleSize(h, o.alpha, o.power)
	if err != nil {
		return nil, fmt.Errorf("--delta %g, --alpha %g, --power %g: %w", o.delta, o.alpha, o.power, err)
	}
	de := stats.DesignEffect(in.m, in.rho)
	items := math.Ceil(n * de / in.m)
	rep := &report.Report{Title: "Plan", Benchmark: "plan", Headline: "plan", Meta: [][2]string{
		{"test", fmt.Sprintf("two-sided z test of two rates on Cohen's h, α = %g, power %g (statsmodels' NormalIndPower)", o.alpha, o.power)},
		{"design effect", fmt.Sprintf("1 + (m − 1)·ρ = 1 + (%.3g − 1)·%.3g = %.3f", in.m, in.rho, de)},
	}}
	if in.source != "" {
		rep.Meta = append(rep.Meta, [2]string{"pilot", fmt.Sprintf("%s, %s: rate %.3f over %d observations of %d items (ρ by one-way ANOVA)", in.source, in.metric, in.rate, in.pilotObs, in.items)})
	}
	t := &report.Table{ID: "plan", Title: "Items and observations each arm needs",
		Columns: report.Cols("base rate", "to detect", "Cohen's h", "observations per arm (independent)", "observations per item", "items per arm", "observations per arm", "price per arm")}
	price := report.NA("no pilot spend")
	obs := items * in.m
	if !math.IsNaN(in.perObs) {
		price = report.T(fmt.Sprintf("$%.2f", obs*in.perObs))
	}
	t.Rows = append(t.Rows, []report.Cell{report.F(in.rate, 3), report.F(target, 3), report.F(h, 3), report.I(int(math.Ceil(n))),
		report.F(in.m, 1), report.I(int(items)), report.I(int(obs)), price})
	sec := rep.AddSection("Plan", "Arms that share their items (two models on one plan) need fewer: this is the bound for independent arms.")
	sec.Add(t)
	if in.pool > 0 && int(items) > in.pool {
		rep.Meta = append(rep.Meta, [2]string{"too few " + in.unit + "s", poolNote(in, n, int(items))})
	}
	if in.items > 0 {
		mt := &report.Table{ID: "mde", Title: "What the pilot's size can show",
			Columns: report.Cols("items", "observations per item", "effective observations", "minimum detectable h", "smallest rate above the pilot's it detects", "in points")}
		intro := "Two arms of the pilot's size, compared with the same test."
		sizes := []int{in.items}
		if in.pool > in.items {
			sizes = append(sizes, in.pool)
			intro = fmt.Sprintf("Two arms of the pilot's size, and of all %d %ss the benchmark has at the pilot's observations per %s, compared with the same test.", in.pool, in.unit, in.unit)
		}
		for _, k := range sizes {
			nEff := float64(k) * in.m / de
			mde, err := stats.MinimumEffect(nEff, o.alpha, o.power)
			if err != nil {
				return nil, err
			}
			up := stats.RateAtEffect(in.rate, mde)
			mt.Rows = append(mt.Rows, []report.Cell{report.I(k), report.F(in.m, 1), report.F(nEff, 1), report.F(mde, 3), report.F(up, 3), report.F(100*(up-in.rate), 1)})
		}
		rep.AddSection("Minimum detectable effect", intro).Add(mt)
	}
	return rep, nil
}

// poolNote says, of a plan that needs more items per arm than the
// benchmark has (in.pool), how many observations per item all of them
// need — n(1 − ρ)/(pool − nρ), from pool·m/(1 + (m − 1)ρ) = n — or that
// none suffices: pool items give at most pool/ρ effective observations.
func poolNote(in planInput, n float64, items int) string {
	head := fmt.Sprintf("the benchmark has %d %ss: %d per arm is more than there are", in.pool, in.unit, items)
	pool := float64(in.pool)
	if in.rho > 0 && pool <= n*in.rho {
		return fmt.Sprintf("%s, and no number of observations per %s reaches it: with ρ = %.3g, %d %ss give at most %.0f effective observations (%d/ρ), fewer than the %.0f needed; plan a larger difference (arms that share their %ss, two models compared pairwise, need fewer than this bound)",
			head, in.unit, in.rho, in.pool, in.unit, pool/in.rho, in.pool, math.Ceil(n), in.unit)
	}
	m := math.Ceil(n * (1 - in.rho) / (pool - n*in.rho))
	return fmt.Sprintf("%s; all %d at %.0f observations per %s reach it (design effect %.3f)", head, in.pool, m, in.unit, stats.DesignEffect(m, in.rho))
}
