package textmetric

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// MeteorParams are METEOR's weights (nltk defaults: α 0.9, β 3, γ 0.5).
type MeteorParams struct{ Alpha, Beta, Gamma float64 }

// DefaultMeteor are the weights Missci uses.
var DefaultMeteor = MeteorParams{Alpha: 0.9, Beta: 3, Gamma: 0.5}

type enumTok struct {
	idx int
	w   string
}

// matchEnums is nltk's _match_enums: for each hypothesis word from the last,
// the last equal reference word still unmatched.
func matchEnums(hyp, ref []enumTok, equal func(h enumTok, r enumTok) bool) ([][2]int, []enumTok, []enumTok) {
	var m [][2]int
	usedH := make([]bool, len(hyp))
	usedR := make([]bool, len(ref))
	for i := len(hyp) - 1; i >= 0; i-- {
		for j := len(ref) - 1; j >= 0; j-- {
			if !usedR[j] && equal(hyp[i], ref[j]) {
				m = append(m, [2]int{hyp[i].idx, ref[j].idx})
				usedH[i], usedR[j] = true, true
				break
			}
		}
	}
	return m, keep(hyp, usedH), keep(ref, usedR)
}

// keep returns the unused entries in order (what remains after nltk pops).
func keep(list []enumTok, used []bool) []enumTok {
	out := list[:0:0]
	for i, t := range list {
		if !used[i] {
			out = append(out, t)
		}
	}
	return out
}

// SingleMeteor is nltk 3.8's single_meteor_score(reference, hypothesis) on
// token lists: lower-casing, then exact, Porter-stem (NLTK_EXTENSIONS) and
// WordNet-synonym matching — the synonym stage works on the stems left by
// the stem stage, as nltk does — then Fmean with the fragmentation penalty.
func SingleMeteor(reference, hypothesis []string, p MeteorParams) (float64, error) {
	hyp := make([]enumTok, len(hypothesis))
	for i, w := range hypothesis {
		hyp[i] = enumTok{i, strings.ToLower(w)}
	}
	ref := make([]enumTok, len(reference))
	for i, w := range reference {
		ref[i] = enumTok{i, strings.ToLower(w)}
	}
	hypLen, refLen := len(hyp), len(ref)
	same := func(h, r enumTok) bool { return h.w == r.w }
	exact, hyp, ref := matchEnums(hyp, ref, same)
	for i := range hyp {
		hyp[i].w = PorterStem(hyp[i].w)
	}
	for i := range ref {
		ref[i].w = PorterStem(ref[i].w)
	}
	stem, hyp, ref := matchEnums(hyp, ref, same)
	// Synonym stage: each hypothesis stem's WordNet synonyms.
	var syn [][2]int
	usedR := make([]bool, len(ref))
	for i := len(hyp) - 1; i >= 0; i-- {
		set, err := Synonyms(hyp[i].w)
		if err != nil {
			return 0, err
		}
		for j := len(ref) - 1; j >= 0; j-- {
			if !usedR[j] && set[ref[j].w] {
				syn = append(syn, [2]int{hyp[i].idx, ref[j].idx})
				usedR[j] = true
				break
			}
		}
	}
	matches := append(append(exact, stem...), syn...)
	sort.SliceStable(matches, func(a, b int) bool { return matches[a][0] < matches[b][0] })
	m := float64(len(matches))
	if m == 0 || hypLen == 0 || refLen == 0 {
		return 0, nil
	}
	prec, rec := m/float64(hypLen), m/float64(refLen)
	fmean := prec * rec / (p.Alpha*prec + (1-p.Alpha)*rec)
	chunks := 1
	for i := 0; i < len(matches)-1; i++ {
		if !(matches[i+1][0] == matches[i][0]+1 && matches[i+1][1] == matches[i][1]+1) {
			chunks++
		}
	}
	frag := float64(chunks) / m
	penalty := p.Gamma * math.Pow(frag, p.Beta)
	return (1 - penalty) * fmean, nil
}

// Meteor scores a (reference, prediction) pair of strings as Missci does:
// word_tokenize both, then SingleMeteor with the default weights.
func Meteor(reference, prediction string) (float64, error) {
	return SingleMeteor(WordTokenize(reference), WordTokenize(prediction), DefaultMeteor)
}

// MeteorBatch scores pairs (references[i], predictions[i]) on all cores.
// Results are in input order and identical to Meteor's.
func MeteorBatch(references, predictions []string) ([]float64, error) {
	if len(references) != len(predictions) {
		return nil, fmt.Errorf("meteor: %d references, %d predictions", len(references), len(predictions))
	}
	out := make([]float64, len(references))
	errs := make([]error, len(references))
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	next := make(chan int, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = Meteor(references[i], predictions[i])
			}
		}()
	}
	for i := range references {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
