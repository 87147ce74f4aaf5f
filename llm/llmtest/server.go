// Package llmtest is an in-process HTTP server that speaks the wire protocols of
// the providers fallacylab uses — OpenAI chat completions, files and batches;
// Anthropic messages and message batches; Gemini generateContent and inlined
// batchGenerateContent batches — so the real SDK adapters run unchanged
// against it. It is scriptable (answers as a function
// of the request, latency, 429 with Retry-After, 5xx, dropped connections, hangs,
// malformed bodies, a per-key requests/min limit) and keeps a ledger of every
// request so tests can assert that no call was paid for twice.
package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Call is a decoded model request as the server saw it.
type Call struct {
	Protocol string // "openai", "anthropic" or "gemini"
	Model    string
	System   string
	Prompt   string // the user messages, joined by "\n"
	APIKey   string
	Batch    bool // arrived inside a batch
	Body     []byte
	// MaxTokens is the request's output limit (0: none); the server never
	// answers, or bills, more output than it, as the providers do.
	MaxTokens int
	// CacheSystem: the system prompt was marked as a prompt-cache breakpoint
	// (Anthropic cache_control); the server then reports cache writes and
	// reads as the real API does.
	CacheSystem bool
}

// Reply is the answer the server gives to a Call.
type Reply struct {
	Text         string
	FinishReason string // provider-neutral: "stop", "length", "refusal"
	InputTokens  int
	OutputTokens int
	// CachedInputTokens of InputTokens come from the prompt cache and
	// CacheWriteTokens were written to it.
	CachedInputTokens int
	CacheWriteTokens  int
}

// Fault is a failure the server injects instead of answering.
type Fault string

// Faults the server can inject.
const (
	NoFault     Fault = ""
	RateLimited Fault = "429"
	ServerError Fault = "500"
	Overloaded  Fault = "529"
	BadRequest  Fault = "400"
	NotFound    Fault = "404"       // the model does not exist
	Hang        Fault = "hang"      // never answers until the client gives up
	Malformed   Fault = "malformed" // 200 with a truncated JSON body
	Reset       Fault = "reset"     // the connection is closed without a response
)

// Rates are probabilities of injecting each fault on a request.
type Rates struct {
	RateLimit, ServerError, Hang, Malformed, Reset float64
}

// Options script the server. Every field is optional.
type Options struct {
	// Respond computes the answer; the default echoes the prompt.
	Respond func(Call) Reply
	// Fault picks a fault for a call; the default draws from Rates.
	Fault func(Call) Fault
	// Rates are used by the default Fault function.
	Rates Rates
	// Seed seeds the fault and latency draws.
	Seed uint64
	// Latency returns the delay before answering; nil means none.
	Latency func(r *rand.Rand) time.Duration
	// RetryAfter is sent with injected 429s (default 1s); RetryAfterZero
	// sends "Retry-After: 0" instead, RetryAfterNone no header at all.
	RetryAfter                     time.Duration
	RetryAfterZero, RetryAfterNone bool
	// Window enforces a sliding-window limit per key: at most Window.N
	// admitted requests in any Window.Per (0: none). Refusals are 429s
	// with no Retry-After; with Window.Headers every answer carries
	// OpenAI's x-ratelimit-{limit,remaining,reset}-requests.
	Window WindowLimit
	// RPM enforces a per-key limit of requests per minute (0: none), as a token
	// bucket holding one second of requests.
	RPM float64
	// APIKey, when set, is the only key accepted; others get 401.
	APIKey string
	// Keyless also accepts requests that carry no real key (the "none"
	// placeholder adapters send for keyless local servers).
	Keyless bool
	// BatchPolls is how many status polls a batch stays in progress (default 1).
	BatchPolls int
	// EchoKey makes a 401 quote the key it was sent, as some
	// OpenAI-compatible proxies do: a test of secret redaction.
	EchoKey bool
	// LoseBatchCreates is how many of the next batch creations are accepted
	// and then answered by a dropped connection: the batch exists, but the
	// client never hears its id.
	LoseBatchCreates int
}

// WindowLimit is a sliding-window rate limit.
type WindowLimit struct {
	N       int
	Per     time.Duration
	Headers bool
}

// Entry is one request in the ledger.
type Entry struct {
	Time    time.Time // when it was answered
	Arrived time.Time // when the request arrived
	Call    Call
	Status  int   // HTTP status sent (0 for reset/hang)
	Fault   Fault // injected fault, if any
}

// Answered reports whether the entry delivered a model answer.
func (e Entry) Answered() bool { return e.Status == http.StatusOK && e.Fault == NoFault }

// Server is the fake provider endpoint.
type Server struct {
	*httptest.Server
	opts    Options
	mu      sync.Mutex
	rng     *rand.Rand
	ledger  []Entry
	limits  map[string]*rate.Limiter
	files   map[string][]byte
	batches map[string]*batch
	cached  map[string]bool // model + cached system prompt
	seq     int
	closing chan struct{}
	once    sync.Once
	window  map[string][]time.Time // admitted times per key (Window)
	conns   int                    // connections accepted
}

// Conns is how many TCP connections the server has accepted.
func (s *Server) Conns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns
}

// windowAdmit applies the sliding-window limit: ok false refuses the
// request. It sets the rate-limit headers when asked to.
func (s *Server) windowAdmit(w http.ResponseWriter, key string) bool {
	wl := s.opts.Window
	if wl.N <= 0 {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	times := s.window[key]
	for len(times) > 0 && now.Sub(times[0]) >= wl.Per {
		times = times[1:]
	}
	ok := len(times) < wl.N
	if ok {
		times = append(times, now)
	}
	s.window[key] = times
	if wl.Headers {
		// As OpenAI's: the time until the limit is full again.
		reset := time.Duration(0)
		if len(times) > 0 {
			reset = times[len(times)-1].Add(wl.Per).Sub(now)
		}
		w.Header().Set("x-ratelimit-limit-requests", fmt.Sprint(wl.N))
		w.Header().Set("x-ratelimit-remaining-requests", fmt.Sprint(wl.N-len(times)))
		w.Header().Set("x-ratelimit-reset-requests", reset.Round(time.Millisecond).String())
	}
	return ok
}

// New starts a server; Close it when done.
func New(opts Options) *Server {
	if opts.RetryAfter == 0 {
		opts.RetryAfter = time.Second
	}
	if opts.BatchPolls == 0 {
		opts.BatchPolls = 1
	}
	s := &Server{
		opts:    opts,
		rng:     rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15)),
		limits:  map[string]*rate.Limiter{},
		files:   map[string][]byte{},
		batches: map[string]*batch{},
		cached:  map[string]bool{},
		closing: make(chan struct{}),
		window:  map[string][]time.Time{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.openaiChat)
	mux.HandleFunc("POST /v1/files", s.openaiUpload)
	mux.HandleFunc("GET /v1/files/{id}/content", s.openaiFileContent)
	mux.HandleFunc("POST /v1/batches", s.openaiBatchCreate)
	mux.HandleFunc("GET /v1/batches/{id}", s.openaiBatchGet)
	mux.HandleFunc("GET /v1/batches", s.openaiBatchList)
	mux.HandleFunc("POST /v1/messages", s.anthropicMessages)
	mux.HandleFunc("POST /v1/messages/batches", s.anthropicBatchCreate)
	mux.HandleFunc("GET /v1/messages/batches/{id}", s.anthropicBatchGet)
	mux.HandleFunc("GET /v1/messages/batches/{id}/results", s.anthropicBatchResults)
	mux.HandleFunc("POST /v1beta/models/{action}", s.geminiGenerate)
	mux.HandleFunc("GET /v1beta/batches/{id}", s.geminiBatchGet)
	mux.HandleFunc("GET /v1beta/batches", s.geminiBatchList)
	mux.HandleFunc("GET /v1/models", s.openaiModels)
	mux.HandleFunc("POST /v1/embeddings", s.openaiEmbeddings)
	s.Server = httptest.NewUnstartedServer(mux)
	s.Server.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.mu.Lock()
			s.conns++
			s.mu.Unlock()
		}
	}
	s.Server.Start()
	return s
}

// Transport reaches the server's handlers in memory, with no TCP: the
// same HTTP requests and answers, for a test in a synctest bubble, whose
// fake clock moves only while every goroutine waits on it — a socket read
// would hold it still. No connection is counted (Conns); the Reset fault,
// which hangs up a connection, answers 200 with an empty body.
func (s *Server) Transport() http.RoundTripper { return handlerTransport{s.Server.Config.Handler} }

// handlerTransport serves each request with a handler in the caller's
// goroutine.
type handlerTransport struct{ h http.Handler }

// inMemory marks the context of a request served by handlerTransport.
type inMemory struct{}

// closingFor is what a handler's wait on the request's ctx also ends at:
// the server's closing — or, in memory, nothing more (a channel made
// outside a synctest bubble would keep its clock still; the caller's
// context ends the wait).
func (s *Server) closingFor(ctx context.Context) <-chan struct{} {
	if ctx.Value(inMemory{}) != nil {
		return nil
	}
	return s.closing
}

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	in := r.Clone(context.WithValue(r.Context(), inMemory{}, true))
	in.RequestURI, in.RemoteAddr = r.URL.RequestURI(), "127.0.0.1:1"
	if in.Body == nil {
		in.Body = http.NoBody
	}
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, in)
	if r.Body != nil {
		r.Body.Close()
	}
	resp := rec.Result()
	resp.Request = r
	return resp, nil
}

// Close releases hanging handlers and stops the server.
func (s *Server) Close() {
	s.once.Do(func() { close(s.closing) })
	s.Server.CloseClientConnections()
	s.Server.Close()
}

// OpenAIURL is the base URL for the OpenAI adapter ("…/v1").
func (s *Server) OpenAIURL() string { return s.URL + "/v1" }

// Ledger returns a copy of every request received so far.
func (s *Server) Ledger() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Entry(nil), s.ledger...)
}

// Answers counts delivered answers per prompt (batch items included).
func (s *Server) Answers() map[string]int {
	out := map[string]int{}
	for _, e := range s.Ledger() {
		if e.Answered() {
			out[e.Call.Prompt]++
		}
	}
	return out
}

func (s *Server) record(e Entry) {
	s.mu.Lock()
	s.ledger = append(s.ledger, e)
	s.mu.Unlock()
}

func (s *Server) respond(c Call) Reply {
	var r Reply
	if s.opts.Respond != nil {
		r = s.opts.Respond(c)
	} else {
		r = Reply{Text: "echo: " + c.Prompt}
	}
	if r.FinishReason == "" {
		r.FinishReason = "stop"
	}
	if r.InputTokens == 0 {
		r.InputTokens = 1 + len(strings.Fields(c.System+" "+c.Prompt))
	}
	if r.OutputTokens == 0 {
		r.OutputTokens = 1 + len(strings.Fields(r.Text))
	}
	if c.MaxTokens > 0 && r.OutputTokens > c.MaxTokens {
		r.OutputTokens, r.FinishReason = c.MaxTokens, "length"
	}
	if c.CacheSystem && r.CachedInputTokens == 0 && r.CacheWriteTokens == 0 {
		n := len(strings.Fields(c.System))
		s.mu.Lock()
		if s.cached[c.Model+"\x00"+c.System] {
			r.CachedInputTokens = n
		} else {
			s.cached[c.Model+"\x00"+c.System] = true
			r.CacheWriteTokens = n
		}
		s.mu.Unlock()
	}
	return r
}

// admit decides what happens to a call before it is answered: an auth failure,
// a rate-limit rejection, an injected fault or nothing. It also applies latency.
func (s *Server) admit(ctx context.Context, c Call) (Fault, int, time.Duration) {
	if s.opts.APIKey != "" && c.APIKey != s.opts.APIKey && !(s.opts.Keyless && (c.APIKey == "" || c.APIKey == "none")) {
		return NoFault, http.StatusUnauthorized, 0
	}
	if s.opts.RPM > 0 {
		s.mu.Lock()
		lim := s.limits[c.APIKey]
		if lim == nil {
			burst := int(s.opts.RPM / 60)
			if burst < 1 {
				burst = 1
			}
			lim = rate.NewLimiter(rate.Limit(s.opts.RPM/60), burst)
			s.limits[c.APIKey] = lim
		}
		now := time.Now()
		r := lim.ReserveN(now, 1)
		wait := r.DelayFrom(now)
		if wait > 0 {
			r.CancelAt(now)
		}
		s.mu.Unlock()
		if wait > 0 {
			return RateLimited, http.StatusTooManyRequests, wait
		}
	}
	var f Fault
	var lat time.Duration
	s.mu.Lock()
	if s.opts.Fault != nil {
		f = s.opts.Fault(c)
	} else {
		x, rt := s.rng.Float64(), s.opts.Rates
		switch {
		case x < rt.RateLimit:
			f = RateLimited
		case x < rt.RateLimit+rt.ServerError:
			f = ServerError
		case x < rt.RateLimit+rt.ServerError+rt.Hang:
			f = Hang
		case x < rt.RateLimit+rt.ServerError+rt.Hang+rt.Malformed:
			f = Malformed
		case x < rt.RateLimit+rt.ServerError+rt.Hang+rt.Malformed+rt.Reset:
			f = Reset
		}
	}
	if s.opts.Latency != nil && f != RateLimited { // a provider refuses at once
		lat = s.opts.Latency(s.rng)
	}
	s.mu.Unlock()
	if lat > 0 {
		select {
		case <-time.After(lat):
		case <-ctx.Done():
		case <-s.closingFor(ctx):
		}
	}
	switch f {
	case RateLimited:
		return f, http.StatusTooManyRequests, s.opts.RetryAfter
	case ServerError:
		return f, http.StatusInternalServerError, 0
	case Overloaded:
		return f, 529, 0
	case BadRequest:
		return f, http.StatusBadRequest, 0
	case NotFound:
		return f, http.StatusNotFound, 0
	}
	return f, 0, 0
}

// serve runs the shared request life cycle: admit, inject, answer, record.
// errBody renders a protocol-specific error body; ok renders the success body.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, c Call, errBody func(status int, msg string) any, ok func(Reply) any) {
	arrived := time.Now()
	var fault Fault
	var status int
	var retry time.Duration
	if s.windowAdmit(w, c.APIKey) { // a refusal is at once, before latency
		fault, status, retry = s.admit(r.Context(), c)
	} else {
		fault, status, retry = RateLimited, http.StatusTooManyRequests, -1
	}
	entry := Entry{Time: time.Now(), Arrived: arrived, Call: c, Fault: fault, Status: status}
	switch {
	case status != 0:
		switch {
		case retry < 0 || (status == http.StatusTooManyRequests && s.opts.RetryAfterNone):
		case status == http.StatusTooManyRequests && s.opts.RetryAfterZero:
			w.Header().Set("Retry-After", "0")
		case retry > 0:
			secs := int(retry.Seconds() + 0.999)
			w.Header().Set("Retry-After", fmt.Sprint(secs))
			w.Header().Set("Retry-After-Ms", fmt.Sprint(retry.Milliseconds()))
		}
		msg := http.StatusText(status)
		if status == http.StatusUnauthorized {
			msg = "invalid api key"
			if s.opts.EchoKey {
				msg = "Incorrect API key provided: " + c.APIKey + ". You can find your API key at https://example.com/keys."
			}
		}
		writeJSON(w, status, errBody(status, msg))
	case fault == Hang:
		select {
		case <-r.Context().Done():
		case <-s.closingFor(r.Context()):
		}
	case fault == Reset:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
			}
		}
	case fault == Malformed:
		entry.Status = http.StatusOK
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		body, _ := json.Marshal(ok(s.respond(c)))
		w.Write(body[:len(body)/2])
	default:
		entry.Status = http.StatusOK
		s.record(entry)
		writeJSON(w, http.StatusOK, ok(s.respond(c)))
		return
	}
	s.record(entry)
}

func (s *Server) seqNow() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return s.seq
}

func (s *Server) nextID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return fmt.Sprintf("%s_%06d", prefix, s.seq)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func bearer(r *http.Request) string {
	return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
}

// Update changes the server's script while it runs.
func (s *Server) Update(fn func(*Options)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(&s.opts)
}

// pollBatch looks a batch up and counts the status request against it.
func (s *Server) pollBatch(id string) (*batch, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.batches[id]
	if ok {
		b.polls++
	}
	return b, ok
}

// answerBatchCreate sends a created batch's JSON, or drops the connection
// when a lost answer is scripted (the batch stays created).
func (s *Server) answerBatchCreate(w http.ResponseWriter, body any) {
	s.mu.Lock()
	lose := s.opts.LoseBatchCreates > 0
	if lose {
		s.opts.LoseBatchCreates--
	}
	s.mu.Unlock()
	if lose {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
	}
	writeJSON(w, 200, body)
}

// batchList is every batch of one protocol, newest first.
func (s *Server) batchList(protocol string) []*batch {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*batch
	for _, b := range s.batches {
		if b.protocol == protocol {
			out = append(out, b)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq > out[j].seq })
	return out
}

func (s *Server) batchDone(b *batch) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return b.polls >= s.opts.BatchPolls
}
