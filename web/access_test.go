package web_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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
}
