package bench

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// Selection is --limit and --sample-id: a deterministic part of a run's
// items, for trying a command before paying for all of it.
type Selection struct {
	Limit int    `json:",omitempty"`
	IDs   string `json:",omitempty"`
}

// Flags registers the flags; what names the items ("claims", "arguments").
func (s *Selection) Flags(f *pflag.FlagSet, what string) {
	f.IntVar(&s.Limit, "limit", 0, "run only the first N "+what+" (in file order; 0: all)")
	f.StringVar(&s.IDs, "sample-id", "", "run only these "+what+", by id, comma-separated")
}

// Select applies the selection to items identified by id; an id that names
// no item is an error listing a few that exist.
func Select[T any](s Selection, what string, items []T, id func(T) string) ([]T, error) {
	if s.IDs != "" {
		want := map[string]bool{}
		for _, x := range strings.Split(s.IDs, ",") {
			if x = strings.TrimSpace(x); x != "" {
				want[x] = true
			}
		}
		var out []T
		for _, it := range items {
			if want[id(it)] {
				out = append(out, it)
				delete(want, id(it))
			}
		}
		if len(want) > 0 {
			missing := slices.Sorted(maps.Keys(want)) // the same error every time
			var some []string
			for _, it := range items[:min(3, len(items))] {
				some = append(some, id(it))
			}
			return nil, fmt.Errorf("--sample-id %s: no such %s (ids look like %s)", strings.Join(missing, ", "), strings.TrimSuffix(what, "s"), strings.Join(some, ", "))
		}
		items = out
	}
	if s.Limit > 0 && s.Limit < len(items) {
		items = items[:s.Limit]
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("--limit/--sample-id select no %s", what)
	}
	return items, nil
}

// SplitList splits a comma-separated flag value, dropping empty parts.
func SplitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}
