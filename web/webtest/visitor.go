// Package webtest helps tests drive the viewer's handler as a browser
// would, without a network.
package webtest

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
)

// Visitor makes requests to h as one browser would: on loopback, with the
// cookies earlier answers set; a form, when given, is posted.
func Visitor(h http.Handler) func(method, path string, form url.Values) *httptest.ResponseRecorder {
	jar := map[string]*http.Cookie{}
	return func(method, path string, form url.Values) *httptest.ResponseRecorder {
		var req *http.Request
		if form != nil {
			req = httptest.NewRequest(method, path, strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		} else {
			req = httptest.NewRequest(method, path, nil)
		}
		req.Host = "127.0.0.1"
		for _, c := range jar {
			req.AddCookie(c)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		for _, c := range rec.Result().Cookies() {
			jar[c.Name] = c
		}
		return rec
	}
}
