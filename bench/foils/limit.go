package foils

import "fmt"

// Limit is a quick look at the sets: at most n items of each condition,
// taken in turn from each class (test items by gold label, "none" first,
// so that the native false-positive rate always has items; foils by their
// source type) in the order the corpus lists them. The first n items of a
// condition could all be of one class, and an audit of them has nothing to
// say about the others.
func (s Sets) Limit(n int) Sets {
	if n <= 0 {
		return s
	}
	s.Test = roundRobin(s.Test, n, func(it Item) string { return it.Gold }, None)
	s.Matched = roundRobin(s.Matched, n, func(f Foil) string { return f.Source }, "")
	s.Wrong = roundRobin(s.Wrong, n, func(f Foil) string { return f.Source }, "")
	return s
}

// roundRobin takes up to n items, one of each class in turn (first the
// class named first, then in order of first appearance), keeping the
// items' order within a class and in the result.
func roundRobin[T any](items []T, n int, class func(T) string, first string) []T {
	if n >= len(items) {
		return items
	}
	var order []string
	by := map[string][]int{}
	if first != "" {
		order = append(order, first)
	}
	for i, it := range items {
		c := class(it)
		if _, ok := by[c]; !ok && c != first {
			order = append(order, c)
		}
		by[c] = append(by[c], i)
	}
	picked := make([]bool, len(items))
	for taken, round := 0, 0; taken < n; round++ {
		any := false
		for _, c := range order {
			if idx := by[c]; round < len(idx) && taken < n {
				picked[idx[round]], taken, any = true, taken+1, true
			}
		}
		if !any {
			break
		}
	}
	out := make([]T, 0, n)
	for i, it := range items {
		if picked[i] {
			out = append(out, it)
		}
	}
	return out
}

// Check refuses sets an audit cannot analyse — no native "none" item, no
// matched or no wrong-scheme foil — before any detector is paid to label
// them.
func (s Sets) Check() error {
	for _, c := range []struct {
		name string
		n    int
	}{{"native none", len(s.Native())}, {"matched", len(s.Matched)}, {"wrong-scheme", len(s.Wrong)}} {
		if c.n == 0 {
			return fmt.Errorf("audit: the audited %s set has no %s items: nothing to analyse (a larger --limit, or another corpus)", s.Corpus, c.name)
		}
	}
	return nil
}
