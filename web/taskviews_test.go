package web

import (
	"maps"
	"testing"
)

// A Task's page path matches the rest of a request's path part by part,
// its named parts giving their values; nothing else matches.
func TestMatchPath(t *testing.T) {
	for _, c := range []struct {
		pattern, path string
		want          map[string]string
	}{
		{"arguments", "arguments", map[string]string{}},
		{"arguments/{arg}", "arguments/arg-3", map[string]string{"arg": "arg-3"}},
		{"a/{x}/b/{y}", "a/1/b/2", map[string]string{"x": "1", "y": "2"}},
		{"arguments", "argument", nil},
		{"arguments/{arg}", "arguments", nil},
		{"arguments/{arg}", "arguments/", nil},
		{"arguments", "arguments/x", nil},
		{"items/{cond}/{item}", "items/test/authority%2Ff9loyen", map[string]string{"cond": "test", "item": "authority/f9loyen"}},
		{"items/{cond}/{item}", "items/test/authority/f9loyen", nil},
	} {
		got, ok := matchPath(c.pattern, c.path)
		if ok != (c.want != nil) || (ok && !maps.Equal(got, c.want)) {
			t.Errorf("matchPath(%q, %q) = %v, %v; want %v", c.pattern, c.path, got, ok, c.want)
		}
	}
}
