package foils

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
)

// TestAuditBrief: at a terminal the audit says its verdict first, then the
// figures it rests on, then where the whole report is.
func TestAuditBrief(t *testing.T) {
	rep := &report.Report{Title: "Scheme Foils audit: reddit — tfidf"}
	rep.AddSection("Verdict", "The dissociation holds: "+strings.Repeat("it calls matched items by their source type ", 5))
	rep.AddSection("Flag rates", "").Add(&report.Table{ID: "t"})
	sum := Summary{NativeFPR: stats.Proportion{Estimate: 0.042, Lo: 0.021, Hi: 0.084, N: 166}, MatchedFPR: stats.Proportion{Estimate: 0.178, N: 387},
		Sep: 0.073, SepLo: 0.037, SepHi: 0.11, Margin: 0.087}
	var b bytes.Buffer
	auditBrief(&b, rep, sum, 7, bench.Env{})
	out := b.String()
	title, verdict, fpr, hint := strings.Index(out, "Scheme Foils audit"), strings.Index(out, "The dissociation holds"),
		strings.Index(out, "  4.2 %  [2.1, 8.4]  (166 items)"), strings.Index(out, "fallacylab foils report --run 7")
	if !(title == 0 && title < verdict && verdict < fpr && fpr < hint) || !strings.Contains(out, "+7.3 pp [3.7, 11.0]") {
		t.Fatalf("brief:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if len([]rune(line)) > 100 {
			t.Fatalf("a line of %d characters: %q", len([]rune(line)), line)
		}
	}
}
