package foils

import (
	"fmt"
	"io"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/textwrap"

	"github.com/fallacylab/fallacylab/report"
)

// auditBrief is what a person at a terminal sees after `foils audit`: the
// verdict first, the figures it rests on, and where the whole report is —
// not 160 lines of Markdown ending with the verdict.
func auditBrief(w io.Writer, rep *report.Report, sum Summary, runID int64, env bench.Env) {
	fmt.Fprintf(w, "%s\n\n", rep.Title)
	for _, sec := range rep.Sections {
		if sec.Title == "Verdict" && sec.Intro != "" {
			fmt.Fprintf(w, "%s\n\n", textwrap.Wrap(sec.Intro, 96))
		}
	}
	prop := func(p float64, lo, hi float64, n int) string {
		return fmt.Sprintf("%5.1f %%  [%.1f, %.1f]  (%d items)", 100*p, 100*lo, 100*hi, n)
	}
	pp := func(v, lo, hi float64) string { return fmt.Sprintf("%+5.1f pp [%.1f, %.1f]", 100*v, 100*lo, 100*hi) }
	rows := [][2]string{
		{"false positives on native none", prop(sum.NativeFPR.Estimate, sum.NativeFPR.Lo, sum.NativeFPR.Hi, sum.NativeFPR.N)},
		{"false positives on scheme-matched", prop(sum.MatchedFPR.Estimate, sum.MatchedFPR.Lo, sum.MatchedFPR.Hi, sum.MatchedFPR.N)},
		{"flags on wrong-scheme", prop(sum.WrongFlag.Estimate, sum.WrongFlag.Lo, sum.WrongFlag.Hi, sum.WrongFlag.N)},
		{"type-specific separation", pp(sum.Sep, sum.SepLo, sum.SepHi)},
		{"τ′ margin on wrong-scheme", pp(sum.Margin, sum.MarginLo, sum.MarginHi)},
	}
	for _, r := range rows {
		fmt.Fprintf(w, "  %-34s %s\n", r[0], r[1])
	}
	if sum.Unparsed > 0 {
		fmt.Fprintf(w, "  %-34s %d\n", "unparsed predictions", sum.Unparsed)
	}
	fmt.Fprintf(w, "\nThe whole report, %d tables: %s\n  (--format md, html, csv, json or tex; --out FILE)\n",
		len(rep.Tables()), env.Command(fmt.Sprintf("foils report --run %d", runID)))
}
