package llm

import (
	"errors"
	"regexp"
	"strings"
)

// keyShapes are what API keys look like: OpenAI (sk-…, sk-proj-…), Anthropic
// (sk-ant-…), Google (AIza…), xAI (xai-…), OpenRouter (sk-or-…), and bearer
// tokens in echoed headers.
var keyShapes = regexp.MustCompile(`\b(?:sk-[A-Za-z0-9_\-]{16,}|AIza[0-9A-Za-z_\-]{30,}|xai-[A-Za-z0-9]{20,})|(?i:bearer\s+)[A-Za-z0-9._\-]{16,}`)

// Redacted stands in for a secret.
const Redacted = "[redacted]"

// Redact removes every given secret (configured API keys) and anything
// shaped like a key from s.
func Redact(s string, secrets ...string) string {
	for _, k := range secrets {
		if len(k) >= 8 {
			s = strings.ReplaceAll(s, k, Redacted)
		}
	}
	return keyShapes.ReplaceAllStringFunc(s, func(m string) string {
		if i := strings.IndexAny(m, " \t"); i > 0 && strings.EqualFold(m[:6], "bearer") {
			return m[:i+1] + Redacted
		}
		return Redacted
	})
}

// RedactError returns err with every secret removed from its text; err
// itself when there is none. The result keeps err's classification (an
// *Error stays one) and unwraps to err's cause for errors.Is.
func RedactError(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := Redact(msg, secrets...)
	if clean == msg {
		return err
	}
	var le *Error
	if errors.As(err, &le) {
		c := *le
		c.Message, c.Hint = Redact(le.Message, secrets...), Redact(le.Hint, secrets...)
		c.Err = redacted{msg: Redact(errText(le.Err), secrets...), err: le.Err}
		if c.Error() == Redact(c.Error(), secrets...) {
			return &c
		}
	}
	return redacted{msg: clean, err: err}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// redacted is an error whose text has had its secrets removed.
type redacted struct {
	msg string
	err error
}

func (r redacted) Error() string { return r.msg }

// Unwrap keeps errors.Is(…, context.Canceled) and the like working; the
// cause's own text is never printed through it.
func (r redacted) Unwrap() error { return r.err }
