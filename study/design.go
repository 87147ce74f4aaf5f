package study

import (
	"fmt"
	"hash/fnv"
	mrand "math/rand/v2"
	"slices"
)

// A running study's design can change: an annotator joins, one takes over
// another's queue, a link is revoked. Each change returns the study's new
// design; the answers given so far stay as they are.

// Revoke gives the annotator a new token (token, or NewToken): the link
// they had opens nothing any more.
func Revoke(s Study, name string, token func() string) (Study, error) {
	i := slices.IndexFunc(s.Annotators, func(a Annotator) bool { return a.Name == name })
	if i < 0 {
		return s, fmt.Errorf("study %d has no annotator %q", s.ID, name)
	}
	if token == nil {
		token = NewToken
	}
	s.Annotators = slices.Clone(s.Annotators)
	s.Annotators[i].Token = token()
	return s, nil
}

// AddAnnotator adds name to a running study. Without replace, their queue
// is the items every annotator sees (the overlap set; with k of m, the
// items of the annotator with the fewest) and every decoy, so they count
// in the agreement at once. With replace, they take over the items that
// annotator has not answered (answered: that annotator's items answered
// or skipped), and every decoy; the one replaced keeps the answers given,
// their queue ends there and their link is revoked. The order is the
// study's seed's for the new name.
func AddAnnotator(s Study, name, replace string, answered map[string]bool, token func() string) (Study, error) {
	if name == "" || reservedName(name) {
		return s, fmt.Errorf("annotator name %q: give a name not starting with #", name)
	}
	if slices.ContainsFunc(s.Annotators, func(a Annotator) bool { return a.Name == name }) {
		return s, fmt.Errorf("study %d already has an annotator %q", s.ID, name)
	}
	if token == nil {
		token = NewToken
	}
	s.Annotators = slices.Clone(s.Annotators)
	var order []string
	for _, it := range s.Items {
		if it.Decoy {
			order = append(order, it.Key)
		}
	}
	switch {
	case replace != "":
		i := slices.IndexFunc(s.Annotators, func(a Annotator) bool { return a.Name == replace })
		if i < 0 {
			return s, fmt.Errorf("study %d has no annotator %q to replace", s.ID, replace)
		}
		old := s.Annotators[i]
		var kept []string
		for _, k := range old.Order {
			if answered[k] {
				kept = append(kept, k)
			} else if it, _ := s.Item(k); !it.Decoy {
				order = append(order, k)
			}
		}
		if old.ReplacedBy != "" {
			return s, fmt.Errorf("%s was replaced by %s already", replace, old.ReplacedBy)
		}
		old.Order, old.Token, old.ReplacedBy = kept, token(), name // the old link opens nothing
		s.Annotators[i] = old
	default:
		order = append(order, sharedItems(s)...)
	}
	h := fnv.New64a()
	h.Write([]byte(name))
	rng := mrand.New(mrand.NewPCG(s.Seed, h.Sum64()))
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	s.Annotators = append(s.Annotators, Annotator{Name: name, Token: token(), Order: order})
	return s, nil
}

// sharedItems are the sampled items a joining annotator answers: those in
// every queue, or (k of m, no item in every queue) the queue of the
// annotator with the fewest sampled items.
func sharedItems(s Study) []string {
	// One place per annotator not replaced, holding their queue and the
	// queues of those they took over from.
	active := slices.DeleteFunc(slices.Clone(s.Annotators), func(a Annotator) bool { return a.ReplacedBy != "" })
	for i := range active {
		active[i].Order = slotOrder(s, active[i].Name)
	}
	in := map[string]int{}
	for _, a := range active {
		for _, k := range a.Order {
			in[k]++
		}
	}
	var all []string
	for _, it := range s.Items {
		if !it.Decoy && in[it.Key] == len(active) {
			all = append(all, it.Key)
		}
	}
	if len(all) > 0 || len(active) == 0 {
		return all
	}
	var fewest []string
	for i, a := range active {
		var own []string
		for _, k := range a.Order {
			if it, _ := s.Item(k); !it.Decoy {
				own = append(own, k)
			}
		}
		if i == 0 || len(own) < len(fewest) {
			fewest = own
		}
	}
	return fewest
}

// slotOrder is name's queue with the queues of those they replaced, and of
// those these replaced, each item once.
func slotOrder(s Study, name string) []string {
	var out []string
	for _, a := range s.Annotators {
		switch {
		case a.Name == name:
			out = append(out, a.Order...)
		case a.ReplacedBy == name:
			out = append(out, slotOrder(s, a.Name)...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
