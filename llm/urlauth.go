package llm

import (
	"net/http"
	"net/url"
)

// URLCredentials takes the credentials out of a base URL — a user and
// password (https://user:password@proxy.example/v1) and the query
// (…/v1?api_key=…, as some gateways take a key) — and returns the URL
// without them and a client that sends them with every request to that
// host: the user and password as HTTP Basic authentication (what curl and
// browsers do with such a URL, and what a proxy in front of vLLM or Ollama
// asks for), the query's parameters on every request's query. The SDKs
// drop both when they join a path to the base URL, so they would otherwise
// never reach the server. Basic authentication takes the Authorization
// header, where an OpenAI-compatible endpoint's key would go: the config
// refuses the two together (config.Provider). Credentials are never stored
// or printed: the URL the SDK (and its errors) see has none, and the cache
// identity masks them (RedactURL). A URL without credentials comes back
// unchanged, with client as it is (nil: the default client).
func URLCredentials(base string, client *http.Client) (string, *http.Client) {
	u, err := url.Parse(base)
	if err != nil || (u.User == nil && u.RawQuery == "") {
		return base, client
	}
	b := basicAuth{host: u.Host, query: u.Query()}
	if u.User != nil {
		b.user = u.User.Username()
		b.pass, b.hasPass = u.User.Password()
		b.basic = true
	}
	u.User, u.RawQuery = nil, ""
	if client == nil {
		client = http.DefaultClient
	}
	c := *client
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	b.next = next
	c.Transport = b
	return u.String(), &c
}

// basicAuth adds a base URL's credentials to the requests for its host.
type basicAuth struct {
	next             http.RoundTripper
	host, user, pass string
	hasPass, basic   bool
	query            url.Values
}

func (b basicAuth) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Host != b.host {
		return b.next.RoundTrip(r)
	}
	r = r.Clone(r.Context()) // a RoundTripper must not change its request
	if b.basic {
		r.SetBasicAuth(b.user, b.pass)
	}
	if len(b.query) > 0 {
		q := r.URL.Query()
		for k, vs := range b.query {
			if !q.Has(k) {
				q[k] = vs
			}
		}
		r.URL.RawQuery = q.Encode()
	}
	return b.next.RoundTrip(r)
}

// URLHasUser reports whether a base URL carries a user (and password).
func URLHasUser(base string) bool {
	u, err := url.Parse(base)
	return err == nil && u.User != nil
}
