package cli

import "testing"

// A worker's first line says what it can call — a keyless local server
// among them, not among its "keys" — and, in the same line, what it
// cannot for want of a key.
func TestWorkerKeysLine(t *testing.T) {
	for _, c := range []struct {
		v    servable
		want string
	}{
		{servable{Providers: []string{"local", "ollama"}, keyless: []string{"openai"}},
			"can call local, ollama (a key set, or none needed); none for openai (their queues are skipped, saying which variable to set)"},
		{servable{Providers: []string{"openai"}}, "can call openai (a key set, or none needed)"},
		{servable{keyless: []string{"openai"}}, "has no key for any provider"},
	} {
		if got := c.v.keysLine(); got != c.want {
			t.Errorf("keysLine(%+v) = %q, want %q", c.v, got, c.want)
		}
	}
}
