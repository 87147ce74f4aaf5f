package study

import (
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
)

// Prop is k of n as a proportion with its Wilson interval at the
// analysis level (n = 0: no items).
func (o AnalyzeOptions) Prop(k, n int) report.Cell {
	if n == 0 {
		return report.NA("no items")
	}
	p, _ := stats.Prop(k, n, o.Level, stats.Wilson)
	return report.PCI(p.Estimate, p.Lo, p.Hi, n)
}
