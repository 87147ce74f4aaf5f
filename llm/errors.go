package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Error is a classified provider failure. Retryable errors (rate limits,
// overload, server errors, dropped connections, timeouts, unreadable bodies) may
// succeed on a later attempt; permanent ones (bad request, auth, not found,
// policy refusal) never will, and Hint says what the user should do.
type Error struct {
	Provider   string
	Status     int // HTTP status, 0 for transport failures
	Retryable  bool
	RateLimit  bool          // a 429: the engine also lowers its concurrency
	RetryAfter time.Duration // from the Retry-After header, when sent
	// Hinted is true when the server said when to retry: a Retry-After
	// header (even "0") or the reset of an exhausted rate limit. A 429
	// without a hint is how a per-minute limit with no headers shows.
	Hinted  bool
	Message string
	Hint    string
	Err     error
}

// Error renders "401 from anthropic: invalid x-api-key: set ANTHROPIC_API_KEY".
func (e *Error) Error() string {
	var b strings.Builder
	if e.Status != 0 {
		fmt.Fprintf(&b, "%d from %s", e.Status, e.Provider)
	} else {
		fmt.Fprintf(&b, "%s", e.Provider)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.Hint != "" {
		b.WriteString(": " + e.Hint)
	}
	return b.String()
}

// Unwrap returns the underlying SDK or transport error.
func (e *Error) Unwrap() error { return e.Err }

// IsRetryable reports whether err is worth another attempt.
func IsRetryable(err error) bool {
	var e *Error
	if errors.As(err, &e) {
		return e.Retryable
	}
	return false
}

// KeyEnv returns the conventional API-key variable of a provider.
func KeyEnv(provider string) string {
	return strings.ToUpper(provider) + "_API_KEY"
}

// ClassifyHTTP builds an Error from an HTTP status, the response headers (may be
// nil) and the provider's error message. keyEnv names the variable the user
// should set on 401/403 ("" for keyless endpoints).
func ClassifyHTTP(provider string, status int, header http.Header, msg, keyEnv string, cause error) *Error {
	e := &Error{Provider: provider, Status: status, Message: msg, Err: cause}
	switch {
	case status == http.StatusTooManyRequests:
		e.Retryable, e.RateLimit = true, true
	case status == http.StatusRequestTimeout, status == http.StatusConflict, status >= 500:
		e.Retryable = true
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		if keyEnv != "" {
			e.Hint = "set " + keyEnv + " to a valid key"
		} else {
			e.Hint = "check the endpoint's api_key_env in the config"
		}
	case status == http.StatusNotFound:
		e.Hint = "check the model name and the endpoint's base_url"
	case status == http.StatusBadRequest:
		lower := strings.ToLower(msg)
		if strings.Contains(lower, "content_policy") || strings.Contains(lower, "safety") || strings.Contains(lower, "content management policy") {
			e.Hint = "the provider refused the prompt by policy"
		} else {
			e.Hint = "the provider rejected the request; check model name and parameters"
		}
	}
	if header != nil {
		e.RetryAfter = parseRetryAfter(header)
		e.Hinted = header.Get("Retry-After") != "" || header.Get("Retry-After-Ms") != ""
		if e.RateLimit && !e.Hinted {
			if d := resetHint(header); d > 0 {
				e.RetryAfter, e.Hinted = d, true
			}
		}
	}
	return e
}

// parseRetryAfter reads Retry-After (seconds or HTTP date) and the
// retry-after-ms extension some providers send.
func parseRetryAfter(h http.Header) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

// ClassifyTransport classifies a failure that produced no HTTP status: dropped
// connections, timeouts and unreadable response bodies are retryable; a
// cancellation of the caller's own context is returned unchanged so the engine
// can stop.
func ClassifyTransport(ctx context.Context, provider string, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	e := &Error{Provider: provider, Message: err.Error(), Err: err, Retryable: true}
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		e.Message = "timeout: " + err.Error()
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		e.Message = "connection dropped: " + err.Error()
	case errors.Is(err, syscall.ECONNREFUSED):
		e.Message = "connection refused: " + err.Error()
		e.Hint = "is the server running? check base_url"
	}
	return e
}

// Scopes of a permanent error that no other job can get past.
const (
	ScopeNone     = ""
	ScopeEndpoint = "endpoint" // a bad key or no permission (401, 403): every job of the endpoint fails the same way
	ScopeModel    = "model"    // the model does not exist there (404): every job of that model fails the same way
)

// FailScope says how far a permanent error reaches beyond its own job.
func FailScope(err error) string {
	var e *Error
	if !errors.As(err, &e) || e.Retryable {
		return ScopeNone
	}
	switch e.Status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return ScopeEndpoint
	case http.StatusNotFound:
		return ScopeModel
	}
	return ScopeNone
}
