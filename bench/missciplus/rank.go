package missciplus

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fallacylab/fallacylab/bench/missci"
)

// Ranking is one argument's passages, best first, as a ranker left them.
type Ranking struct {
	ID     string   `json:"id"`
	Ranked []string `json:"ranked_passages"`
}

// Ordered is upstream's ordered baseline: each study's passages in the
// order of their number.
func Ordered(args []Argument, full bool) []Ranking {
	out := make([]Ranking, len(args))
	for i, a := range args {
		out[i] = Ranking{ID: a.ID, Ranked: a.Passages(full)}
	}
	return out
}

// Random is upstream's random baseline for one seed: random.seed(seed),
// then random.shuffle of each argument's numbered passages in turn, one
// generator through the whole split — CPython's Mersenne Twister and
// shuffle (missci.PyRandom), so the rankings are the very ones upstream
// draws.
func Random(args []Argument, full bool, seed uint64) []Ranking {
	r := missci.NewPyRandom(seed)
	out := make([]Ranking, len(args))
	for i, a := range args {
		p := a.Passages(full)
		pyShuffle(r, p)
		out[i] = Ranking{ID: a.ID, Ranked: p}
	}
	return out
}

// pyShuffle is CPython's random.shuffle: from the last element down, swap
// with one drawn below i+1.
func pyShuffle[T any](r *missci.PyRandom, x []T) {
	for i := len(x) - 1; i > 0; i-- {
		j := r.Below(i + 1)
		x[i], x[j] = x[j], x[i]
	}
}

// Rankers are the rankers that need no model, by name.
var Rankers = []string{"ordered", "random", "bm25"}

// Rank ranks every argument's passages with a ranker that needs no model
// (one ranking per seed for random; one for the others).
func Rank(ranker string, args []Argument, full bool, seeds []uint64) ([][]Ranking, error) {
	switch ranker {
	case "ordered":
		return [][]Ranking{Ordered(args, full)}, nil
	case "bm25":
		return [][]Ranking{BM25(args, full)}, nil
	case "random":
		if len(seeds) == 0 {
			return nil, fmt.Errorf("--seeds: the random ranker needs at least one seed")
		}
		var out [][]Ranking
		for _, s := range seeds {
			out = append(out, Random(args, full, s))
		}
		return out, nil
	}
	return nil, fmt.Errorf("--ranker %q: want %s", ranker, strings.Join(slices.Concat(Rankers, []string{"embedding", "prp"}), ", "))
}

// WithP0 is subtask 2's --p0 (upstream's add_p0_passage_to_claim): each
// argument's claim becomes the text of a passage that states p0 — one of
// its p0 passages drawn by CPython's shuffle after random.seed(seed), one
// generator through the split; the premise itself when no passage states
// it — then " Therefore: " and the claim.
func WithP0(args []Argument, seed uint64) []Argument {
	r := missci.NewPyRandom(seed)
	out := make([]Argument, len(args))
	for i, a := range args {
		p0 := a.P0()
		if ids := a.P0Passages(); len(ids) > 0 {
			pyShuffle(r, ids)
			p, _ := a.Study.Selected.Get(ids[0])
			p0 = p.Text(false)
		}
		a.Argument.Claim = p0 + " Therefore: " + a.Argument.Claim
		out[i] = a
	}
	return out
}
