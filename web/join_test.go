package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/study"
)

// TestJoinLink (#27 item 22): a study's shared link gives each participant
// a crowd platform sends (PROLIFIC_PID) a free place, the same one when
// they come back, and signs them in to its queue; when every place is
// taken it says so; a link without a participant, with the platform's
// placeholder left in, or with an id that is not one is refused.
func TestJoinLink(t *testing.T) {
	st, runID, _ := seed(t, []string{"model-a"}, 1)
	ctx := context.Background()
	s := rubricPlan(t, st, runID, []string{"refusal"}, false, study.Options{N: 2, Annotators: []string{"slot1", "slot2"}, Seed: 1, Join: true})
	if s.JoinToken == "" {
		t.Fatal("no shared link made")
	}
	h := viewer(t, st)
	join := func(pid string) (int, string) {
		do := visitor(h)
		path := "/annotate/join/" + s.JoinToken
		if pid != "" {
			path += "?PROLIFIC_PID=" + pid + "&STUDY_ID=abc&SESSION_ID=def"
		}
		rec := do("GET", path, nil)
		if rec.Code != 303 {
			return rec.Code, rec.Body.String()
		}
		page := do("GET", "/annotate/done", nil)
		return page.Code, page.Body.String()
	}
	for _, pid := range []string{"5f1e0c0ffee0123456789abc", "60aa0c0ffee0123456789abc"} {
		if code, body := join(pid); code != 200 || !strings.Contains(body, "Thank you, slot") {
			t.Fatalf("%s: %d\n%s", pid, code, body)
		}
	}
	// The first participant comes back: the same place.
	if code, body := join("5f1e0c0ffee0123456789abc"); code != 200 {
		t.Fatalf("back: %d %s", code, body)
	}
	got, _, err := st.Study(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	taken := map[string]string{}
	for _, a := range got.Annotators {
		taken[a.Participant] = a.Name
	}
	if len(taken) != 2 || taken["5f1e0c0ffee0123456789abc"] == "" || taken["60aa0c0ffee0123456789abc"] == "" {
		t.Fatalf("places %v", taken)
	}
	for _, c := range []struct {
		pid  string
		code int
		want string
	}{
		{"70bb0c0ffee0123456789abc", 409, "every place of this study is taken"},
		{"", 400, "PROLIFIC_PID"},
		{"{{%PROLIFIC_PID%}}", 400, "PROLIFIC_PID"},
		{"a%20b", 400, "participant id"},
	} {
		if code, body := join(c.pid); code != c.code || !strings.Contains(body, c.want) {
			t.Errorf("%q: %d, want %d with %q:\n%s", c.pid, code, c.code, c.want, body)
		}
	}
	if rec := visitor(h)("GET", "/annotate/join/not-the-token?PROLIFIC_PID=x1", nil); rec.Code != 404 {
		t.Errorf("a wrong token: %d", rec.Code)
	}
	rep, err := study.Analyze(got, nil, study.AnalyzeOptions{Resamples: 10})
	if err != nil {
		t.Fatal(err)
	}
	m := ""
	for _, kv := range rep.Meta {
		if kv[0] == "participants" {
			m = kv[1]
		}
	}
	if !strings.Contains(m, "= 5f1e0c0ffee0123456789abc") || !strings.Contains(m, "0 places free") {
		t.Errorf("report's participants: %q", m)
	}
}
