package missciplus_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/bench/benchtest"
)

// TestViewerComparesOneSubtask: the run page of a run that called no
// model; the viewer's comparison of two runs
// pairs them where they rank for one subtask, and says why not where one
// ranks for subtask 1 and the other for subtask 2 (both have a P@1).
func TestViewerComparesOneSubtask(t *testing.T) {
	h := benchtest.New(t, nil)
	h.Run("missciplus", "run", "--subtask", "1", "--ranker", "random", "--seeds", "1", "--split", "dev")
	h.Run("missciplus", "run", "--subtask", "1", "--ranker", "ordered", "--split", "dev")
	h.Run("missciplus", "run", "--subtask", "2", "--ranker", "ordered", "--split", "dev")
	get := h.Viewer()
	// A run that called no model links no calls; the study it may have
	// is named, not "--kind …".
	page := get(http.MethodGet, "/runs/1", nil).Body.String()
	if strings.Contains(page, "Every call of this run") || strings.Contains(page, "with the call each was made from") ||
		!strings.Contains(page, "fallacylab study create --run 1 --kind missciplus-premise (or --kind records --questions FILE.yaml)") {
		t.Errorf("run page of a run without calls:\n%.3000s", page)
	}
	// The verdicts come first, above the wide table whose last column
	// they are.
	cmp := get(http.MethodGet, "/compare?a=1&b=2", nil).Body.String()
	verdicts := regexp.MustCompile(`<ul class="verdicts"><li><b>P@1</b>, run 1 \(random\) − run 2 \(ordered\): [-+]\d+\.\d points \[[-+]\d+\.\d, [-+]\d+\.\d\] — \S`)
	if i := strings.Index(cmp, "Paired comparisons on the shared items"); !verdicts.MatchString(cmp) || i < 0 || verdicts.FindStringIndex(cmp)[0] > i {
		t.Errorf("the comparison's verdicts are not listed above its table:\n%.3000s", cmp)
	}
	for path, want := range map[string]string{
		"/compare?a=1&b=2": "Paired comparisons on the shared items",
		"/compare?a=1&b=3": "run 1 is a run of subtask 1 and run 3 of subtask 2: their figures measure different things",
	} {
		rec := get(http.MethodGet, path, nil)
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), want) {
			t.Errorf("%s: %d, lacks %q\n%.3000s", path, rec.Code, want, rec.Body.String())
		}
	}
}
