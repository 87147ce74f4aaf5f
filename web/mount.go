package web

import (
	"net/http"
	"net/url"
	"strings"
)

// mount is another application served under a path of the viewer (the
// River UI under /queue/, `fallacylab view --queue`).
type mount struct {
	prefix string
	h      http.Handler
	csp    string
}

// Mount serves h under prefix (ending in "/") behind the viewer's access
// rules (its hosts and token), with csp as its Content-Security-Policy (an
// application with its own scripts needs its own). A request that would
// change something (any method but GET and HEAD) must come from the
// viewer's own pages: a page of another site cannot send it.
func (s *Server) Mount(prefix string, h http.Handler, csp string) {
	s.mounts = append(s.mounts, mount{prefix: prefix, h: h, csp: csp})
}

// handler is the mounted application behind its CSP and the same-origin
// rule.
func (m mount) handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", m.csp)
		if r.Method != http.MethodGet && r.Method != http.MethodHead && !sameOrigin(r) {
			http.Error(w, "refused: a request that changes the queue must come from the viewer's own pages", http.StatusForbidden)
			return
		}
		m.h.ServeHTTP(w, r)
	})
}

// sameOrigin reports whether r comes from a page of the viewer itself: the
// browser says so (Sec-Fetch-Site), or its Origin names the host asked.
func sameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" {
		return site == "same-origin"
	}
	o := r.Header.Get("Origin")
	if o == "" {
		return false
	}
	u, err := url.Parse(o)
	return err == nil && strings.EqualFold(u.Host, r.Host)
}

// QueueCSP is the River UI's policy: its own scripts, styles and fonts,
// its API on the same origin, nothing else.
const QueueCSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'self'; frame-ancestors 'none'"
