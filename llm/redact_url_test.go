package llm

import (
	"net/url"
	"strings"
	"testing"
)

func TestRedactURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"http://user:pass@host/v1", "http://user:xxxxx@host/v1"},
		{"https://api.example.com/v1", "https://api.example.com/v1"},
		{"http://localhost:11434/v1", "http://localhost:11434/v1"},
		{"https://sk-abcdef@host/v1", "https://xxxxx@host/v1"},
		{"postgres://lab@db/x", "postgres://lab@db/x"},
		{"postgres://lab:hunter2@db.internal:5432/x?sslmode=disable", "postgres://lab:xxxxx@db.internal:5432/x?sslmode=disable"},
		// Unescaped characters url.Parse refuses or misreads.
		{"postgres://lab:p#ss@db/x", "postgres://lab:xxxxx@db/x"},
		{"postgres://lab:a/b?c@db/x", "postgres://lab:xxxxx@db/x"},
		{"postgres://lab:50%off@db/x", "postgres://lab:xxxxx@db/x"},
		{"postgres://lab:p@ss@db/x", "postgres://lab:xxxxx@db/x"},
		{"postgres://u@db/x?password=hunter2&sslmode=require", "postgres://u@db/x?password=xxxxx&sslmode=require"},
		{"https://host/v1?api_key=abc123&x=1&token=t#frag", "https://host/v1?api_key=xxxxx&x=1&token=xxxxx#frag"},
		{"https://host/v1?x=a@b", "https://host/v1?x=a@b"},
		{"host=db user=lab password=hunter2 dbname=x", "host=db user=lab password=xxxxx dbname=x"},
		{"host=db password='hunter 2' dbname=x", "host=db password=xxxxx dbname=x"},
		{"fallacylab.db", "fallacylab.db"},
		{"", ""},
	} {
		if got := RedactURL(c.in); got != c.want {
			t.Errorf("RedactURL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	got := URLSecrets("postgres://lab:p#ss@db/x?password=z")
	if len(got) != 2 || got[0] != "p#ss" || got[1] != "z" {
		t.Fatalf("URLSecrets: %q", got)
	}
	// What url.Parse can read, it reads with the password masked.
	for _, in := range []string{"http://user:pa%2Fss@host:8080/v1?key=1", "postgres://a:b@c/d"} {
		u, err := url.Parse(RedactURL(in))
		if err != nil {
			t.Fatal(err)
		}
		if p, _ := u.User.Password(); p != URLMask || strings.Contains(u.String(), "pa%2Fss") {
			t.Fatalf("%q: %v", in, u)
		}
	}
}
