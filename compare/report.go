package compare

import (
	"fmt"

	"github.com/fallacylab/fallacylab/report"
)

// FewClusters is how few clusters a pair's bootstrap interval may rest on
// before the report warns that it is too narrow to read.
const FewClusters = 10

// Report is the comparison's report: one table of every pair on every
// metric, and the family each adjustment corrects over.
func Report(title, benchmark string, pairs []Pair, o Options) *report.Report {
	o.defaults()
	rep := &report.Report{Title: title, Benchmark: benchmark, Headline: "paired", Meta: [][2]string{
		{"intervals", fmt.Sprintf("%.0f%% percentile cluster bootstrap over the shared items' clusters, %d resamples, seed %d; an arm's rate of independent items (one per cluster) has Wilson's interval", 100*o.Level, o.Resamples, o.Seed)},
		{"tests", fmt.Sprintf("McNemar's exact test (and mid-p) for a binary outcome with one item per cluster; a sign-flip permutation test of the mean paired difference over clusters otherwise (every flip up to %d clusters, else %d random flips)", o.ExactClusters, o.Flips)},
		{"level", fmt.Sprintf("α = %g, two-sided", o.Alpha)},
	}}
	seen := map[string]bool{}
	for _, p := range pairs {
		if p.Family > 1 && !seen[p.Metric] {
			seen[p.Metric] = true
			rep.Meta = append(rep.Meta, [2]string{"family: " + p.Metric, fmt.Sprintf("the %d pairs of arms on %s (Holm and Benjamini–Hochberg adjust over them)", p.Family, p.Metric)})
		}
	}
	if note := fewClustersNote(pairs); note != "" {
		rep.Meta = append(rep.Meta, [2]string{"few clusters", note})
	}
	t := &report.Table{ID: "paired", Title: "Paired comparisons on the shared items",
		Columns: report.Cols("metric", "arm A", "arm B", "items (A / B / shared)", "clusters", "A", "B", "A − B", "Cohen's h", "test", "p", "mid-p", "p (Holm)", "p (BH)", "verdict")}
	for _, p := range pairs {
		h := report.NA("not a rate")
		if p.Binary {
			h = report.F(p.H, 3)
		}
		mid := report.NA("McNemar only")
		if p.MidP == p.MidP {
			mid = report.PV(p.MidP)
		}
		t.Rows = append(t.Rows, []report.Cell{report.T(p.Metric), report.T(p.A), report.T(p.B),
			report.T(fmt.Sprintf("%d / %d / %d", p.NA, p.NB, p.Shared)), report.I(p.Clusters),
			report.NCI(p.EstA, p.LoA, p.HiA, 3), report.NCI(p.EstB, p.LoB, p.HiB, 3), report.NCI(p.Diff, p.DiffLo, p.DiffHi, 3),
			h, report.T(p.Test), report.PV(p.P), mid, report.PV(p.PHolm), report.PV(p.PBH), report.T(p.Verdict)})
	}
	rep.AddSection("Paired comparisons", "Each pair of arms on the items both have; their estimates and difference are means over those items, with intervals from resampling the items' clusters (an arm's rate of independent items: Wilson's). A verdict reads the Holm-adjusted p where a metric compares more than one pair.").Add(t)
	rep.NotePointIntervals("cluster")
	return rep
}

// fewClustersNote warns of the pairs whose bootstrap intervals rest on
// fewer than FewClusters clusters ("" if none does): a percentile
// bootstrap of so few clusters can only redraw what was seen, and its
// intervals are too narrow.
func fewClustersNote(pairs []Pair) string {
	few := 0
	for _, p := range pairs {
		if p.Clusters < FewClusters {
			few++
		}
	}
	if few == 0 {
		return ""
	}
	which := fmt.Sprintf("%d of the %d pairs rest", few, len(pairs))
	if len(pairs) == 1 {
		which = "the pair rests"
	}
	return fmt.Sprintf("%s on fewer than %d clusters: a percentile bootstrap of so few clusters can only redraw what was seen, and its intervals are too narrow (one may leave out 0 where the exact test shows nothing); read their tests", which, FewClusters)
}
