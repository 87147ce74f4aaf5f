package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/web"
)

// TestStudioErrorPathsKeepBlindnessAndAnswers (#27 item 13): every answer
// an annotator's mistakes can bring back — a save with a question left
// open (a radio forgotten, Enter after one digit), going back from a
// half-answered item, an answer that is no choice, an item past the queue,
// a form without its token — names no item key (DeflectBench keys hold the
// model, frame and fallacy the study hides) and no model; a half-answered
// item is kept as a draft, shown again when they return to it, and never
// stored as an answer.
func TestStudioErrorPathsKeepBlindnessAndAnswers(t *testing.T) {
	st, id, qs := anaStudy(t, "refusal", "WA_present")
	ctx := context.Background()
	sty, ok, err := st.Study(ctx, id)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	hidden := []string{"model-a", "model_a"}
	for _, it := range sty.Items {
		hidden = append(hidden, it.Key)
	}
	v, _ := web.New(st)
	h := v.HandlerWith(web.Access{Hosts: []string{"lab.example"}, Token: "s3cret"})
	cookie := request(h, "lab.example", "/annotate/login/ana-token").Result().Cookies()[0]
	page := request(h, "lab.example", "/annotate/2", cookie).Body.String()
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF token on the annotation page:\n%s", page)
	}
	token := m[1]
	post := func(path string, form url.Values) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", path, strings.NewReader(form.Encode()))
		req.Host = "lab.example"
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(cookie)
		h.ServeHTTP(rec, req)
		return rec
	}
	blind := func(what string, rec *httptest.ResponseRecorder) {
		t.Helper()
		body := rec.Body.String() + rec.Header().Get("Location")
		for _, x := range hidden {
			if strings.Contains(body, x) {
				t.Errorf("%s (%d) shows %q, which the study hides:\n%.600s", what, rec.Code, x, body)
			}
		}
	}
	checked := regexp.MustCompile(`name="q_refusal" value="1"[^>]*checked`)

	// Enter after one digit: refusal answered, WA_present forgotten.
	rec := post("/annotate/2", url.Values{"csrf": {token}, "q_refusal": {"1"}, "comment": {"hm"}, "action": {"save"}})
	blind("a save with a question left open", rec)
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), `id="problem"`) || !checked.MatchString(rec.Body.String()) ||
		!strings.Contains(rec.Body.String(), ">hm</textarea>") {
		t.Fatalf("a save with a question left open: %d, want 422 with the answers given and what is missing:\n%s", rec.Code, rec.Body.String())
	}
	for _, q := range qs[1:] {
		if !strings.Contains(rec.Body.String(), q.Text) {
			t.Errorf("the page does not name the open question %q", q.Text)
		}
	}
	if anns, _ := st.Annotations(ctx, id); len(anns) != 0 {
		t.Fatalf("a half answer was stored: %+v", anns)
	}
	// Back to it later: the draft is there.
	if got := request(h, "lab.example", "/annotate/2", cookie).Body.String(); !checked.MatchString(got) || !strings.Contains(got, "unsaved draft") {
		t.Fatalf("the draft is not shown when the annotator returns:\n%s", got)
	}

	// ← on a focused radio of item 3: back to item 2, the half answer kept.
	rec = post("/annotate/3", url.Values{"csrf": {token}, "q_WA_present": {"0"}, "action": {"prev"}})
	blind("going back from a half-answered item", rec)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/annotate/2" {
		t.Fatalf("going back from a half-answered item: %d to %q, want 303 to /annotate/2", rec.Code, rec.Header().Get("Location"))
	}
	if got := request(h, "lab.example", "/annotate/3", cookie).Body.String(); !regexp.MustCompile(`name="q_WA_present" value="0"[^>]*checked`).MatchString(got) {
		t.Fatal("the answer given before going back is lost")
	}

	for _, c := range []struct {
		what, path string
		form       url.Values
		code       int
	}{
		{"an answer that is no choice", "/annotate/2", url.Values{"csrf": {token}, "q_refusal": {"7"}, "q_WA_present": {"0"}, "action": {"save"}}, 422},
		{"an item past the queue", "/annotate/99", url.Values{"csrf": {token}, "q_refusal": {"1"}, "action": {"save"}}, 404},
		{"a form without its token", "/annotate/2", url.Values{"q_refusal": {"1"}, "action": {"save"}}, 403},
		{"Enter with nothing answered", "/annotate/1", url.Values{"csrf": {token}, "action": {"save"}}, 422},
	} {
		rec := post(c.path, c.form)
		blind(c.what, rec)
		if rec.Code != c.code {
			t.Errorf("%s: %d, want %d", c.what, rec.Code, c.code)
		}
	}
	blind("a page past the queue", request(h, "lab.example", "/annotate/99", cookie))

	// A whole answer saves, and its draft goes.
	rec = post("/annotate/2", url.Values{"csrf": {token}, "q_refusal": {"1"}, "q_WA_present": {"0"}, "action": {"save"}})
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("a whole answer: %d\n%s", rec.Code, rec.Body.String())
	}
	if anns, _ := st.Annotations(ctx, id); len(anns) != 1 || anns[0].Answers["refusal"] != "1" || anns[0].Answers["WA_present"] != "0" {
		t.Fatalf("stored: %+v", anns)
	}
	if got := request(h, "lab.example", "/annotate/2", cookie).Body.String(); strings.Contains(got, "unsaved draft") || !strings.Contains(got, "you answered this one") {
		t.Fatal("after the save the item still shows a draft, or not the saved answer")
	}
}
