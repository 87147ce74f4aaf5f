package study

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	mrand "math/rand/v2"
	"slices"
	"sort"
	"strings"
)

// Options say how a study samples and shares its items.
type Options struct {
	Name string
	// N items sampled in all, shared out over the strata in proportion to
	// their size (largest remainder); PerStratum, when > 0, takes that many
	// from every stratum instead. Neither: every candidate.
	N, PerStratum int
	// Overlap is how many sampled items every annotator sees, for
	// agreement; the rest are shared out between them. Negative: all.
	Overlap int
	// PerItem, when > 0, gives every sampled item to that many of the
	// annotators instead (k of m), in turn so that each has about as many:
	// agreement then rests on every item, each with k answers.
	PerItem int
	// Decoys planted in every annotator's queue.
	Decoys     int
	Annotators []string
	Seed       uint64
	// Token makes an annotator's secret (default: 128 random bits).
	Token func() string
	// CompletionCode is shown at the end of every queue (Study).
	CompletionCode string
	// Join gives the study a shared link that hands each participant who
	// opens it a free annotator's place (Study.JoinToken).
	Join bool
	// Codebook is the study's instructions; Practice, how many items with a
	// known answer (from the decoy pool, none of those planted) make its
	// practice round.
	Codebook string
	Practice int
}

// NewToken is 128 random bits in hex.
func NewToken() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// check refuses options no study can have: no annotator, one named twice
// or with the tool's own mark, a negative count of decoys or practice
// items, an overlap below -1 (all).
func (o Options) check() error {
	if len(o.Annotators) == 0 {
		return fmt.Errorf("a study needs at least one annotator (--annotators a,b)")
	}
	seen := map[string]bool{}
	for _, a := range o.Annotators {
		if a == "" || seen[a] {
			return fmt.Errorf("--annotators: names must be distinct and not empty (got %q)", o.Annotators)
		}
		if reservedName(a) {
			return fmt.Errorf("--annotators: %q: names starting with # are the tool's own", a)
		}
		seen[a] = true
	}
	switch {
	case o.Decoys < 0:
		return fmt.Errorf("--decoys %d: want 0 or more", o.Decoys)
	case o.Practice < 0:
		return fmt.Errorf("--practice %d: want 0 or more", o.Practice)
	case o.Overlap < -1:
		return fmt.Errorf("--overlap %d: want the number of items every annotator sees (-1: all)", o.Overlap)
	}
	return nil
}

// Plan makes a study: a stratified, seeded sample of the candidates, the
// overlap set every annotator sees, the rest shared out, the decoys in
// every queue, and a random order per annotator. The same inputs and seed
// give the same study (tokens apart).
func Plan(kind Kind, qs []Question, cands, decoys []Item, o Options) (Study, error) {
	if err := o.check(); err != nil {
		return Study{}, err
	}
	if len(cands) == 0 {
		return Study{}, fmt.Errorf("the run has no records a %s study can sample", kind)
	}
	if o.Decoys+o.Practice > len(decoys) {
		return Study{}, fmt.Errorf("--decoys %d and --practice %d: the run has only %d records with a known answer", o.Decoys, o.Practice, len(decoys))
	}
	rng := mrand.New(mrand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))
	sample := stratified(cands, o.N, o.PerStratum, rng)
	rng.Shuffle(len(sample), func(i, j int) { sample[i], sample[j] = sample[j], sample[i] })
	overlap := o.Overlap
	if overlap < 0 || overlap > len(sample) {
		overlap = len(sample)
	}
	if o.PerItem > 0 {
		if o.PerItem > len(o.Annotators) {
			return Study{}, fmt.Errorf("--per-item %d: the study has only %d annotators", o.PerItem, len(o.Annotators))
		}
		overlap = 0
		if o.PerItem == len(o.Annotators) {
			overlap = len(sample)
		}
	}
	// A kind whose decoys are records it may also sample (a records study's
	// rules) plants only those the sample left: no item is both.
	inSample := map[string]bool{}
	for _, it := range sample {
		inSample[it.Key] = true
	}
	pool := slices.DeleteFunc(slices.Clone(decoys), func(d Item) bool { return inSample[d.Key] })
	if o.Decoys+o.Practice > len(pool) {
		return Study{}, fmt.Errorf("--decoys %d and --practice %d: only %d records with a known answer are left beside the %d sampled", o.Decoys, o.Practice, len(pool), len(sample))
	}
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	planted := balanced(pool, o.Decoys)
	for i := range planted {
		planted[i].Decoy = true
	}
	var practice []Item
	if o.Practice > 0 {
		used := map[string]bool{} // never an item of the study: its answer would be told
		for _, d := range append(slices.Clone(planted), sample...) {
			used[d.Key] = true
		}
		rest := slices.DeleteFunc(slices.Clone(pool), func(d Item) bool { return used[d.Key] })
		if len(rest) < o.Practice {
			return Study{}, fmt.Errorf("--practice %d: only %d records with a known answer are neither planted nor sampled", o.Practice, len(rest))
		}
		practice = balanced(rest, o.Practice)
	}
	token := o.Token
	if token == nil {
		token = NewToken
	}
	s := Study{Kind: kind, Name: o.Name, Seed: o.Seed, Questions: qs, Overlap: overlap, PerItem: o.PerItem, CompletionCode: o.CompletionCode, Codebook: o.Codebook, Practice: practice}
	if o.Join {
		s.JoinToken = token()
	}
	s.Items = append(append(s.Items, sample...), planted...)
	// Numbered in a shuffled order, so no item's number tells a decoy.
	rng.Shuffle(len(s.Items), func(i, j int) { s.Items[i], s.Items[j] = s.Items[j], s.Items[i] })
	keys := map[string]bool{}
	for _, it := range s.Items {
		if keys[it.Key] {
			return Study{}, fmt.Errorf("item %q is sampled twice (a decoy among the sample?)", it.Key)
		}
		keys[it.Key] = true
	}
	for ai, name := range o.Annotators {
		var order []string
		for i, it := range sample {
			switch m := len(o.Annotators); {
			case o.PerItem > 0:
				// Item i goes to annotators iK … iK+K−1 (mod m): every
				// one gets ⌊nK/m⌋ or ⌈nK/m⌉ items, and the pairs vary.
				if d := (ai - i*o.PerItem%m + m) % m; d < o.PerItem {
					order = append(order, it.Key)
				}
			case i < overlap || (i-overlap)%m == ai:
				order = append(order, it.Key)
			}
		}
		for _, d := range planted {
			order = append(order, d.Key)
		}
		h := fnv.New64a()
		h.Write([]byte(name))
		arng := mrand.New(mrand.NewPCG(o.Seed, h.Sum64()))
		arng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		s.Annotators = append(s.Annotators, Annotator{Name: name, Token: token(), Order: order})
	}
	return s, nil
}

// balanced takes n decoys from the shuffled pool, in turn from each known
// answer (the first decoy of each answer, then the second…), so that decoys
// whose answers differ are planted together and an annotator who gives
// one answer to everything cannot pass them all. A pool of one answer is
// taken in its order.
func balanced(pool []Item, n int) []Item {
	var sigs []string
	by := map[string][]Item{}
	for _, d := range pool {
		sig := knownSignature(d.Known)
		if _, ok := by[sig]; !ok {
			sigs = append(sigs, sig)
		}
		by[sig] = append(by[sig], d)
	}
	out := make([]Item, 0, n)
	for round := 0; len(out) < n; round++ {
		for _, sig := range sigs {
			if round < len(by[sig]) && len(out) < n {
				out = append(out, by[sig][round])
			}
		}
	}
	return out
}

// knownSignature is a decoy's known answers as one string (question=choice,
// by question).
func knownSignature(known map[string]string) string {
	qs := make([]string, 0, len(known))
	for q, v := range known {
		qs = append(qs, q+"="+v)
	}
	sort.Strings(qs)
	return strings.Join(qs, "&")
}

// stratified draws n items over the strata in proportion to their size
// (largest remainder, ties to the larger stratum, then by name), or per
// from each stratum; with neither, all of them. Within a stratum the draw
// is a seeded shuffle.
func stratified(cands []Item, n, per int, rng *mrand.Rand) []Item {
	by := map[string][]Item{}
	var strata []string
	for _, c := range cands {
		if _, ok := by[c.Stratum]; !ok {
			strata = append(strata, c.Stratum)
		}
		by[c.Stratum] = append(by[c.Stratum], c)
	}
	sort.Strings(strata)
	for _, st := range strata {
		g := by[st]
		rng.Shuffle(len(g), func(i, j int) { g[i], g[j] = g[j], g[i] })
	}
	take := map[string]int{}
	switch {
	case per > 0:
		for _, st := range strata {
			take[st] = min(per, len(by[st]))
		}
	case n > 0 && n < len(cands):
		type rem struct {
			st   string
			frac float64
		}
		var rems []rem
		left := n
		for _, st := range strata {
			exact := float64(n) * float64(len(by[st])) / float64(len(cands))
			take[st] = int(exact)
			left -= take[st]
			rems = append(rems, rem{st, exact - float64(take[st])})
		}
		sort.SliceStable(rems, func(i, j int) bool {
			if rems[i].frac != rems[j].frac {
				return rems[i].frac > rems[j].frac
			}
			return len(by[rems[i].st]) > len(by[rems[j].st])
		})
		for i := 0; left > 0; i = (i + 1) % len(rems) {
			if take[rems[i].st] < len(by[rems[i].st]) {
				take[rems[i].st]++
				left--
			}
		}
	default:
		for _, st := range strata {
			take[st] = len(by[st])
		}
	}
	var out []Item
	for _, st := range strata {
		out = append(out, by[st][:take[st]]...)
	}
	return out
}
