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

// Ratio is k of n as a number from 0 to 1 with its Wilson interval (a
// precision or a recall; undefined when n is 0).
func (o AnalyzeOptions) Ratio(k, n int) report.Cell {
	if n == 0 {
		return report.NA("undefined")
	}
	p, err := stats.Prop(k, n, o.Level, stats.Wilson)
	if err != nil {
		return report.NA(err.Error())
	}
	return report.NCI(p.Estimate, p.Lo, p.Hi, 3)
}
