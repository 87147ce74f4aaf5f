package llm

import (
	"regexp"
	"strings"
)

// URLMask stands in for a URL's password or secret query value.
const URLMask = "xxxxx"

// secretParam matches the names of query parameters (and of key=value
// connection-string fields) whose values are secrets.
var secretParam = regexp.MustCompile(`(?i)key|token|secret|pass|pwd|sig|auth|credential|session`)

// secretField is a secret field of a key=value connection string
// ("host=db password=hunter2"), quoted values included.
var secretField = regexp.MustCompile(`(?i)\b(?:password|passwd|pwd|sslpassword)\s*=\s*('(?:[^'\\]|\\.)*'|\S+)`)

// RedactURL masks the secrets in a URL before it is stored or printed: the
// password of its userinfo (or the whole userinfo when it has no password
// and is no database user: a token passed as the user name), and the
// values of query parameters named like secrets (api_key, token, sig,
// password, …). A PostgreSQL key=value connection string gets its
// password= masked.
func RedactURL(raw string) string {
	var b strings.Builder
	last := 0
	for _, sp := range urlSecrets(raw) {
		b.WriteString(raw[last:sp[0]])
		b.WriteString(URLMask)
		last = sp[1]
	}
	b.WriteString(raw[last:])
	return b.String()
}

// URLSecrets are the secrets RedactURL masks in raw, for removal from
// error texts (Redact).
func URLSecrets(raw string) []string {
	var out []string
	for _, sp := range urlSecrets(raw) {
		out = append(out, raw[sp[0]:sp[1]])
	}
	return out
}

// urlSecrets finds the byte spans of raw's secrets, in order. The URL is
// taken apart by hand, not by url.Parse: a password may hold '#', '/', '?'
// or '%' unescaped, which url.Parse refuses or reads as the end of the
// userinfo, and the password would be printed whole.
func urlSecrets(raw string) [][2]int {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok || strings.ContainsAny(scheme, " /?#@=") {
		var out [][2]int
		for _, m := range secretField.FindAllStringSubmatchIndex(raw, -1) {
			out = append(out, [2]int{m[2], m[3]})
		}
		return out
	}
	base := len(scheme) + 3
	var out [][2]int
	from := 0 // where the host starts, in rest
	if at := userinfoEnd(rest); at >= 0 {
		if colon := strings.IndexByte(rest[:at], ':'); colon >= 0 {
			if colon+1 < at {
				out = append(out, [2]int{base + colon + 1, base + at})
			}
		} else if !isDatabase(scheme) && at > 0 {
			out = append(out, [2]int{base, base + at})
		}
		from = at + 1
	}
	q := strings.IndexByte(rest[from:], '?')
	if q < 0 {
		return out
	}
	i := from + q + 1
	end := len(rest)
	if h := strings.IndexByte(rest[i:], '#'); h >= 0 {
		end = i + h
	}
	for i < end {
		j := strings.IndexByte(rest[i:end], '&')
		if j < 0 {
			j = end - i
		}
		if k, _, ok := strings.Cut(rest[i:i+j], "="); ok && secretParam.MatchString(k) && len(k)+1 < j {
			out = append(out, [2]int{base + i + len(k) + 1, base + i + j})
		}
		i += j + 1
	}
	return out
}

// userinfoEnd is the index of the '@' that ends the URL's userinfo (rest
// is the URL after "scheme://"), or -1. The userinfo ends at the last '@'
// before the first '/'; a password holding a '/' pushes it past that, so
// a later '@' ends it when what precedes it has a ':'.
func userinfoEnd(rest string) int {
	slash := strings.IndexByte(rest, '/')
	if slash < 0 {
		slash = len(rest)
	}
	if at := strings.LastIndexByte(rest[:slash], '@'); at >= 0 {
		return at
	}
	if at := strings.LastIndexByte(rest, '@'); at >= 0 && strings.Contains(rest[:at], ":") {
		return at
	}
	return -1
}

func isDatabase(scheme string) bool {
	s := strings.ToLower(scheme)
	return s == "postgres" || s == "postgresql"
}
