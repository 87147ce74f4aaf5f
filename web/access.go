package web

import (
	"crypto/subtle"
	"net"
	"net/http"
	"strings"
)

// Access is who may use the viewer. The zero value allows loopback only.
type Access struct {
	// Hosts are Host names accepted besides loopback names and addresses
	// (localhost, 127.0.0.0/8, ::1): what --allow-remote serves under.
	Hosts []string
	// Token, when set, must be given once as ?token=… (it is then kept in
	// a cookie) or be in the cookie.
	Token string
}

// tokenCookie holds the viewer's token after the first visit.
const tokenCookie = "fallacylab_token"

// guard refuses requests whose Host is not allowed — a page on another site
// reaching the viewer through DNS rebinding names its own host — and, with
// a token, requests that do not carry it.
func (a Access) guard(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !a.hostAllowed(r.Host) {
			http.Error(w, "Host "+r.Host+" is not allowed: open the viewer at the address fallacylab view printed", http.StatusForbidden)
			return
		}
		if a.Token == "" || studioPath(r.URL.Path) {
			// Annotators hold their own token (their study link), not the
			// viewer's: the studio pages are all they reach.
			h.ServeHTTP(w, r)
			return
		}
		if t := r.URL.Query().Get("token"); t != "" {
			if !equal(t, a.Token) {
				http.Error(w, "wrong token: open the link fallacylab view printed", http.StatusUnauthorized)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: a.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			q := r.URL.Query()
			q.Del("token")
			// Back to the same page of this viewer: one leading slash, so
			// that //evil.example/?token=… never leads off-site (a
			// browser reads //host as another host).
			to := "/" + strings.TrimLeft(r.URL.EscapedPath(), "/\\")
			if len(q) > 0 {
				to += "?" + q.Encode()
			}
			http.Redirect(w, r, to, http.StatusSeeOther)
			return
		}
		if c, err := r.Cookie(tokenCookie); err == nil && equal(c.Value, a.Token) {
			h.ServeHTTP(w, r)
			return
		}
		http.Error(w, "this viewer needs its token: open the link fallacylab view printed", http.StatusUnauthorized)
	})
}

func (a Access) hostAllowed(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "localhost" {
		return true
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return true
	}
	for _, h := range a.Hosts {
		if strings.EqualFold(strings.TrimSuffix(h, "."), host) {
			return true
		}
	}
	return false
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// studioPath reports whether a path is an annotation page, which checks
// the annotator's own token, or a static file those pages load.
func studioPath(p string) bool {
	return p == "/annotate" || strings.HasPrefix(p, "/annotate/") || strings.HasPrefix(p, "/static/") || p == "/favicon.ico"
}
