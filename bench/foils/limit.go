package foils

import (
	"fmt"

	"github.com/fallacylab/fallacylab/corpus"
)

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
	s.Test = corpus.TakeInTurn(s.Test, n, func(it Item) string { return it.Gold }, None)
	s.Matched = corpus.TakeInTurn(s.Matched, n, func(f Foil) string { return f.Source }, "")
	s.Wrong = corpus.TakeInTurn(s.Wrong, n, func(f Foil) string { return f.Source }, "")
	return s
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
