package web_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestRunPagesLeadWithTheHeadline (#27 item 6): each benchmark's run page
// shows the figures that answer the run's question — DeflectBench's
// outcomes by model, the audit's flag rates under its verdict, Missci's
// reconstruction scores — in a box above the method block and the
// contents, with a link to their place in the report.
func TestRunPagesLeadWithTheHeadline(t *testing.T) {
	st, d, f := seed(t, []string{"model-a", "model-b"}, 1)
	m := missciRun(t, st)
	h := viewer(t, st)
	for _, c := range []struct {
		id          int64
		title, link string
		row         string
	}{
		{d, "Outcomes by model (Table 3)", "#outcomes_by_model", "<td>model-b</td>"},
		{f, "Flag rates", "#flag_rates", "<td>native</td>"},
		{m, "Reconstruction by cut-off k", "#reconstruction", "<td>scripted</td>"},
	} {
		code, body, _ := get(t, h, fmt.Sprintf("/runs/%d", c.id))
		if code != 200 {
			t.Fatalf("run %d: %d", c.id, code)
		}
		i := strings.Index(body, `<section class="headline">`)
		if i < 0 {
			t.Fatalf("run %d shows no headline", c.id)
		}
		box := body[i : i+strings.Index(body[i:], "</section>")]
		for _, want := range []string{"<h2>" + c.title, `href="` + c.link + `"`, c.row} {
			if !strings.Contains(box, want) {
				t.Errorf("run %d's headline lacks %q:\n%s", c.id, want, box)
			}
		}
		if m := strings.Index(body, "How these figures were made"); m >= 0 && m < i {
			t.Errorf("run %d: the headline comes after the method block", c.id)
		}
		if toc := strings.Index(body, `<nav class="toc">`); toc >= 0 && toc < i {
			t.Errorf("run %d: the headline comes after the contents", c.id)
		}
	}
}
