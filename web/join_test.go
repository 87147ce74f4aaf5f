package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
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

// TestJoinNeverSharesAPlace (#41 item 13): the shared link never gives a
// participant a place whose private link someone has opened (they would
// write into one queue and see each other's answers); one browser holding
// a place gets that place back, whatever id it sends; and participants
// arriving at once through two viewers of one store each get their own
// place — a compare-and-swap on the study, not a lock of one process.
func TestJoinNeverSharesAPlace(t *testing.T) {
	st, runID, _ := seed(t, []string{"model-a"}, 1)
	ctx := context.Background()
	names := []string{"p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"}
	s := rubricPlan(t, st, runID, []string{"refusal"}, false, study.Options{N: 2, Annotators: names, Seed: 1, Join: true})
	h1, h2 := viewer(t, st), viewer(t, st)
	// p1's private link is opened: the place is in use.
	if rec := visitor(h1)("GET", "/annotate/login/"+s.Annotators[0].Token, nil); rec.Code != 303 {
		t.Fatalf("private link: %d", rec.Code)
	}
	join := func(h http.Handler, do func(string, string, url.Values) *httptest.ResponseRecorder, pid string) string {
		if do == nil {
			do = visitor(h)
		}
		rec := do("GET", "/annotate/join/"+s.JoinToken+"?PROLIFIC_PID="+pid, nil)
		if rec.Code != 303 {
			return fmt.Sprint(rec.Code)
		}
		page := do("GET", "/annotate/done", nil)
		i := strings.Index(page.Body.String(), "Thank you, ")
		if i < 0 {
			return "no place"
		}
		return strings.Fields(page.Body.String()[i+len("Thank you, "):])[0]
	}
	// One browser, two ids: one place.
	b := visitor(h1)
	first := join(h1, b, "aaaa0c0ffee0123456789abc")
	if again := join(h1, b, "bbbb0c0ffee0123456789abc"); again != first {
		t.Fatalf("one browser took a second place: %s then %s", first, again)
	}
	// Six participants at once through two viewers: the six free places,
	// each once.
	var wg sync.WaitGroup
	got := make([]string, 6)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := []http.Handler{h1, h2}[i%2]
			got[i] = join(h, nil, fmt.Sprintf("cc%02d0c0ffee0123456789abc", i))
		}()
	}
	wg.Wait()
	seen := map[string]bool{strings.TrimRight(first, ".,!"): true}
	for _, g := range got {
		g = strings.TrimRight(g, ".,!")
		if seen[g] || g == "p1" || !strings.HasPrefix(g, "p") {
			t.Fatalf("places given: %q (first %q): a place given twice, or p1's, whose private link is in use", got, first)
		}
		seen[g] = true
	}
	final, _, err := st.Study(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	pids := map[string]bool{}
	for _, a := range final.Annotators {
		if a.Participant != "" && pids[a.Participant] {
			t.Fatalf("participant %s holds two places", a.Participant)
		}
		pids[a.Participant] = true
		if a.Name == "p1" && (a.Participant != "" || !a.Private) {
			t.Fatalf("p1: %+v", a)
		}
	}
	if code := join(h2, nil, "dddd0c0ffee0123456789abc"); code != "409" {
		t.Fatalf("a participant beyond the places: %s", code)
	}
}
