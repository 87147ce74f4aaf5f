package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"key sk-proj-abcdefghijklmnop1234 bad":            "key [redacted] bad",
		"x-api-key sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAA": "x-api-key [redacted]",
		"AIzaSyA1234567890abcdefghijklmnopqrstu ok":       "[redacted] ok",
		"Authorization: Bearer abcdefghijklmnopqrstuvwx":  "Authorization: Bearer [redacted]",
		"my-own-secret-value here":                        "[redacted] here",
		"nothing secret, sk-short":                        "nothing secret, sk-short",
	} {
		if got := Redact(in, "my-own-secret-value"); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
	le := &Error{Provider: "p", Status: 401, Message: "bad key my-own-secret-value", Err: errors.New("sdk: my-own-secret-value")}
	got := RedactError(le, "my-own-secret-value")
	var back *Error
	if !errors.As(got, &back) || back.Status != 401 || strings.Contains(got.Error(), "my-own-secret") || FailScope(got) != ScopeEndpoint {
		t.Fatalf("redacted *Error: %v", got)
	}
	wrapped := RedactError(fmt.Errorf("call: %w (key my-own-secret-value)", context.Canceled), "my-own-secret-value")
	if !errors.Is(wrapped, context.Canceled) || strings.Contains(wrapped.Error(), "my-own") {
		t.Fatalf("redacted wrapper: %v", wrapped)
	}
	if e := errors.New("clean"); RedactError(e) != e {
		t.Fatal("a clean error is replaced")
	}
}
