package web_test

import (
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/study"
)

// TestCompletionCode (#27 item 22): a study made with a crowd platform's
// completion code shows it, escaped, at the end of every queue with
// Prolific's completion link; a study without one shows neither.
func TestCompletionCode(t *testing.T) {
	st, runID, _ := seed(t, []string{"model-a"}, 1)
	for _, c := range []struct{ code, token string }{{"C0DE&<x>", "crowd-token"}, {"", "lab-token"}} {
		tok := c.token
		rubricPlan(t, st, runID, []string{"refusal"}, false, study.Options{N: 2, Annotators: []string{"ana"}, Seed: 1, CompletionCode: c.code, Token: func() string { return tok }})
	}
	h := viewer(t, st)
	for _, c := range []struct {
		token string
		want  bool
	}{{"crowd-token", true}, {"lab-token", false}} {
		login := request(h, "127.0.0.1", "/annotate/login/"+c.token)
		done := request(h, "127.0.0.1", "/annotate/done", login.Result().Cookies()[0])
		body := done.Body.String()
		if done.Code != 200 {
			t.Fatalf("%s: done page %d", c.token, done.Code)
		}
		has := strings.Contains(body, `<code>C0DE&amp;&lt;x&gt;</code>`) && strings.Contains(body, `href="https://app.prolific.com/submissions/complete?cc=C0DE%26%3cx%3e"`)
		if has != c.want || strings.Contains(body, "C0DE&<x>") {
			t.Fatalf("%s: completion code shown %v, want %v:\n%s", c.token, has, c.want, body)
		}
	}
}
