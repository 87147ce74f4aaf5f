package llm_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/llm/anthropic"
	"github.com/fallacylab/fallacylab/llm/gemini"
	"github.com/fallacylab/fallacylab/llm/llmtest"
	"github.com/fallacylab/fallacylab/llm/openai"
)

// TestBaseURLCredentialsAreSent (#41 item 11): user:password@ in a base
// URL reaches the server as Basic authentication, and the URL's query on
// every request, on every provider.
func TestBaseURLCredentialsAreSent(t *testing.T) {
	inner := llmtest.New(llmtest.Options{})
	defer inner.Close()
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, ok := r.BasicAuth()
		mu.Lock()
		seen = append(seen, map[bool]string{true: u + ":" + p, false: "none"}[ok]+" "+r.URL.Query().Get("team"))
		mu.Unlock()
		if !ok || r.URL.Query().Get("team") != "t1" {
			w.WriteHeader(401)
			return
		}
		r.Header.Del("Authorization")
		inner.Config.Handler.ServeHTTP(w, r) // the real wire protocols behind a proxy asking for a password
	}))
	defer srv.Close()
	base := strings.Replace(srv.URL, "http://", "http://lab:pa%2Fss%40word@", 1)
	for _, p := range []llm.Provider{
		openai.New(openai.Config{BaseURL: base + "/v1?team=t1"}),
		anthropic.New(anthropic.Config{BaseURL: base + "?team=t1", APIKey: "k"}),
		gemini.New(gemini.Config{BaseURL: base + "?team=t1", APIKey: "k"}),
	} {
		if _, err := p.Generate(context.Background(), "m", llm.UserPrompt("", "hi")); err != nil {
			t.Errorf("%s: %v", p.Name(), err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 3 || seen[0] != "lab:pa/ss@word t1" || seen[1] != seen[0] || seen[2] != seen[0] {
		t.Fatalf("the server saw %q, want the URL's credentials three times", seen)
	}
}
