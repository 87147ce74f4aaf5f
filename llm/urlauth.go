package llm

import (
	"net/http"
	"net/url"
)

// URLCredentials takes the user and password out of a base URL
// (https://user:password@proxy.example/v1) and returns the URL without
// them and a client that sends them with every request to that host, as
// HTTP Basic authentication — what curl and browsers do with such a URL,
// and what a proxy in front of vLLM or Ollama asks for. The SDKs send the
// key as a Bearer token in the same header and drop the URL's user part,
// so the credentials would otherwise never reach the server; they replace
// the key's header on that host. Credentials are never stored or printed:
// the URL the SDK (and its errors) see has none, and the cache identity
// masks them (RedactURL). A URL without credentials comes back unchanged,
// with client as it is (nil: the default client).
func URLCredentials(base string, client *http.Client) (string, *http.Client) {
	u, err := url.Parse(base)
	if err != nil || u.User == nil {
		return base, client
	}
	user := u.User.Username()
	pass, _ := u.User.Password()
	host := u.Host
	u.User = nil
	if client == nil {
		client = http.DefaultClient
	}
	c := *client
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = basicAuth{next: next, host: host, user: user, pass: pass}
	return u.String(), &c
}

// basicAuth adds Basic authentication to the requests for one host.
type basicAuth struct {
	next             http.RoundTripper
	host, user, pass string
}

func (b basicAuth) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Host != b.host {
		return b.next.RoundTrip(r)
	}
	r = r.Clone(r.Context()) // a RoundTripper must not change its request
	r.SetBasicAuth(b.user, b.pass)
	return b.next.RoundTrip(r)
}
