package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/bench/deflect"

	"github.com/fallacylab/fallacylab/store/sqlite"
	"github.com/fallacylab/fallacylab/study"
	"github.com/fallacylab/fallacylab/web"
)

func request(h http.Handler, host, path string, cookies ...*http.Cookie) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", path, nil)
	req.Host = host
	for _, c := range cookies {
		req.AddCookie(c)
	}
	h.ServeHTTP(rec, req)
	return rec
}

// The viewer answers only requests that name a loopback host: a page on
// another site that rebinds its name to 127.0.0.1 gets nothing.
func TestHostCheck(t *testing.T) {
	st, _, _ := seed(t, []string{"model-a"}, 1)
	v, err := web.New(st)
	if err != nil {
		t.Fatal(err)
	}
	h := v.Handler()
	for host, want := range map[string]int{"127.0.0.1:7411": 200, "localhost:7411": 200, "[::1]:7411": 200, "127.0.0.2": 200,
		"evil.example:7411": 403, "evil.example": 403, "127.0.0.1.evil.example": 403, "": 403} {
		if got := request(h, host, "/runs/1").Code; got != want {
			t.Errorf("Host %q: %d, want %d", host, got, want)
		}
	}
	// --allow-remote: the listed names, and the token.
	h = v.HandlerWith(web.Access{Hosts: []string{"lab.example"}, Token: "s3cret"})
	if got := request(h, "lab.example:7411", "/runs/1").Code; got != 401 {
		t.Fatalf("no token: %d, want 401", got)
	}
	if got := request(h, "lab.example:7411", "/runs/1?token=nope").Code; got != 401 {
		t.Fatalf("wrong token: %d", got)
	}
	if got := request(h, "other.example", "/runs/1?token=s3cret").Code; got != 403 {
		t.Fatalf("unlisted host with the token: %d", got)
	}
	rec := request(h, "lab.example:7411", "/runs/1?token=s3cret&page=2")
	cookies := rec.Result().Cookies()
	if rec.Code != http.StatusSeeOther || len(cookies) != 1 || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteStrictMode ||
		strings.Contains(rec.Header().Get("Location"), "token") || !strings.Contains(rec.Header().Get("Location"), "page=2") {
		t.Fatalf("token visit: %d %v %q", rec.Code, cookies, rec.Header().Get("Location"))
	}
	if got := request(h, "lab.example:7411", "/runs/1", cookies[0]).Code; got != 200 {
		t.Fatalf("with the cookie: %d", got)
	}
	// The redirect after the token stays on this viewer (#41 item 12):
	// //evil.example/… once led off-site.
	for _, path := range []string{"//evil.example/?token=s3cret", "/\\evil.example/?token=s3cret", "///evil.example/x?token=s3cret"} {
		rec := request(h, "lab.example:7411", path)
		if loc := rec.Header().Get("Location"); rec.Code != http.StatusSeeOther || !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") || strings.HasPrefix(loc, "/\\") {
			t.Errorf("%s: %d to %q", path, rec.Code, loc)
		}
	}
}

// Remote annotators (view --allow-remote): their study link reaches their
// queue without the viewer's token; the runs stay behind that token, and an
// annotator's cookie opens nothing else. A forged or replayed form without
// the page's CSRF token stores nothing.
func TestRemoteAnnotatorsReachOnlyTheStudio(t *testing.T) {
	st, id, _ := anaStudy(t, "refusal")
	ctx := context.Background()
	v, _ := web.New(st)
	h := v.HandlerWith(web.Access{Hosts: []string{"lab.example"}, Token: "s3cret"})
	login := request(h, "lab.example", "/annotate/login/ana-token")
	if login.Code != http.StatusSeeOther {
		t.Fatalf("study link: %d", login.Code)
	}
	cookie := login.Result().Cookies()[0]
	if got := request(h, "lab.example", "/annotate/1", cookie); got.Code != 200 || !strings.Contains(got.Body.String(), "item 1 / 3") {
		t.Fatalf("the annotator's queue: %d", got.Code)
	}
	for _, p := range []string{"/", "/runs/1", "/studies", fmt.Sprintf("/studies/%d", id), fmt.Sprintf("/studies/%d/adjudicate", id)} {
		if got := request(h, "lab.example", p, cookie).Code; got != 401 {
			t.Errorf("%s with an annotator's cookie: %d, want 401", p, got)
		}
	}
	if got := request(h, "evil.example", "/annotate/login/ana-token").Code; got != 403 {
		t.Errorf("a foreign Host: %d", got)
	}
	if got := request(h, "lab.example", "/annotate/login/not-a-token").Code; got != 401 {
		t.Errorf("a wrong study link: %d", got)
	}
	post := func(form url.Values) int {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/annotate/1", strings.NewReader(form.Encode()))
		req.Host = "lab.example"
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(cookie)
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	if got := post(url.Values{"q_refusal": {"1"}, "action": {"save"}}); got != 403 {
		t.Errorf("a form without the CSRF token: %d", got)
	}
	if anns, _ := st.Annotations(ctx, id); len(anns) != 0 {
		t.Fatal("a forged form stored an answer")
	}
}

// anaStudy is a rubric study of a seeded run's fields: three items for one
// annotator, "ana", whose link's token is "ana-token".
func anaStudy(t *testing.T, fields ...string) (*sqlite.Store, int64, []study.Question) {
	t.Helper()
	st, runID, _ := seed(t, []string{"model-a"}, 1)
	plan := rubricPlan(t, st, runID, fields, true, study.Options{N: 3, Annotators: []string{"ana"}, Seed: 1, Token: func() string { return "ana-token" }})
	return st, plan.ID, plan.Questions
}

// rubricPlan plans a rubric study of run runID's fields with o (its
// decoys drawn from the run's unanimous generations when withDecoys) and
// stores it; the plan comes back with its id.
func rubricPlan(t *testing.T, st *sqlite.Store, runID int64, fields []string, withDecoys bool, o study.Options) study.Study {
	t.Helper()
	ctx := context.Background()
	ds, err := deflect.LoadRecords(ctx, st, runID)
	if err != nil {
		t.Fatal(err)
	}
	qs, err := study.Questions(deflect.RubricStudy.Kind, fields)
	if err != nil {
		t.Fatal(err)
	}
	cands, decoys, _, _ := deflect.RubricItems(ds, fields, nil)
	if !withDecoys {
		decoys = nil
	}
	plan, err := study.Plan(deflect.RubricStudy.Kind, qs, cands, decoys, o)
	if err != nil {
		t.Fatal(err)
	}
	plan.RunID = runID
	if plan.ID, err = st.PutStudy(ctx, plan); err != nil {
		t.Fatal(err)
	}
	return plan
}
