package llm

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Quota is what a provider's rate-limit headers said about one model's
// limits with one answer: OpenAI's x-ratelimit-{limit,remaining,reset}-
// {requests,tokens} and Anthropic's anthropic-ratelimit-{requests,tokens}-
// {limit,remaining,reset}. A zero Limit means the header was not sent.
type Quota struct {
	Requests, Tokens Allowance
}

// Allowance is one limit: its size, what is left of it and when it is full
// again.
type Allowance struct {
	Limit, Remaining int64
	Reset            time.Duration // from the answer's arrival
}

// Known reports whether the headers gave this limit.
func (a Allowance) Known() bool { return a.Limit > 0 }

// ParseQuota reads the rate-limit headers of an answer (ok false: none).
func ParseQuota(h http.Header, now time.Time) (Quota, bool) {
	var q Quota
	read := func(a *Allowance, limit, remaining, reset string) {
		a.Limit, _ = strconv.ParseInt(strings.TrimSpace(h.Get(limit)), 10, 64)
		a.Remaining, _ = strconv.ParseInt(strings.TrimSpace(h.Get(remaining)), 10, 64)
		a.Reset = parseReset(h.Get(reset), now)
		if a.Limit <= 0 {
			*a = Allowance{}
		}
	}
	if h.Get("x-ratelimit-limit-requests") != "" || h.Get("x-ratelimit-limit-tokens") != "" {
		read(&q.Requests, "x-ratelimit-limit-requests", "x-ratelimit-remaining-requests", "x-ratelimit-reset-requests")
		read(&q.Tokens, "x-ratelimit-limit-tokens", "x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens")
	} else {
		read(&q.Requests, "anthropic-ratelimit-requests-limit", "anthropic-ratelimit-requests-remaining", "anthropic-ratelimit-requests-reset")
		read(&q.Tokens, "anthropic-ratelimit-tokens-limit", "anthropic-ratelimit-tokens-remaining", "anthropic-ratelimit-tokens-reset")
	}
	return q, q.Requests.Known() || q.Tokens.Known()
}

// parseReset reads a reset time: OpenAI's durations ("1s", "6m0s", "20ms",
// "1h2m3.5s"), plain seconds, or Anthropic's RFC 3339 instant.
func parseReset(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return d
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return max(0, t.Sub(now))
	}
	return 0
}

// resetHint is how long a 429's rate-limit headers say to wait: the reset
// of the exhausted limit (0: none said).
func resetHint(h http.Header) time.Duration {
	q, ok := ParseQuota(h, time.Now())
	if !ok {
		return 0
	}
	var d time.Duration
	for _, a := range []Allowance{q.Requests, q.Tokens} {
		if a.Known() && a.Remaining <= 0 {
			d = max(d, a.Reset)
		}
	}
	return d
}

// QuotaSink collects the rate-limit headers of the answers to the requests
// made with a context from WithQuotaSink.
type QuotaSink struct {
	mu    sync.Mutex
	quota Quota
	ok    bool
}

type sinkKey struct{}

// WithQuotaSink returns a context whose HTTP answers (through a client of
// NewHTTPClient) leave their rate-limit headers in the sink.
func WithQuotaSink(ctx context.Context) (context.Context, *QuotaSink) {
	s := &QuotaSink{}
	return context.WithValue(ctx, sinkKey{}, s), s
}

// Quota is the last answer's quota (ok false: no headers seen).
func (s *QuotaSink) Quota() (Quota, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.quota, s.ok
}

// NewHTTPClient is the HTTP client of one provider endpoint: one transport
// whose idle pool keeps conns connections (a call in flight at concurrency
// N needs N of them, and a new connection to an API is a TLS handshake),
// that opens no more connections than it has requests in flight (connGate),
// HTTP/2 where the server offers it, and rate-limit headers handed to the
// request context's QuotaSink.
func NewHTTPClient(conns int) *http.Client {
	return newHTTPClient(conns, nil)
}

// newHTTPClient is NewHTTPClient dialling with dial (nil: the default
// transport's dialer).
func newHTTPClient(conns int, dial func(ctx context.Context, network, addr string) (net.Conn, error)) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 0                      // no cap over all hosts
	t.MaxIdleConnsPerHost = max(2*conns, 2) // room for a call that starts as another ends
	t.ForceAttemptHTTP2 = true
	if dial == nil {
		dial = t.DialContext
	}
	g := &connGate{dial: dial, wait: gateWait}
	t.DialContext = g.dialContext
	return HTTPClientOver(gatedTransport{next: t, g: g})
}

// HTTPClientOver is a client like NewHTTPClient's over another transport (a
// proxy's, or a test's in-memory one): rate-limit headers reach the request
// context's QuotaSink the same way.
func HTTPClientOver(rt http.RoundTripper) *http.Client {
	return &http.Client{Transport: quotaTransport{rt}}
}

type quotaTransport struct{ next http.RoundTripper }

// CloseIdleConnections passes on to the transport below, as
// http.Client.CloseIdleConnections expects of its transport.
func (q quotaTransport) CloseIdleConnections() {
	if c, ok := q.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

func (q quotaTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := q.next.RoundTrip(r)
	if err == nil {
		if s, ok := r.Context().Value(sinkKey{}).(*QuotaSink); ok {
			if quota, seen := ParseQuota(resp.Header, time.Now()); seen {
				s.mu.Lock()
				s.quota, s.ok = quota, true
				s.mu.Unlock()
			}
		}
	}
	return resp, err
}
