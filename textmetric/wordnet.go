package textmetric

import (
	"bytes"
	"compress/gzip"
	"embed"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

//go:embed data/wordnet.txt.gz
var wnData embed.FS

// wordNet is the compact WordNet 3.0 index built by internal/mkwordnet.
// It is read once per process, for the first METEOR score: flat, so that
// reading it makes a few allocations per line rather than a map per lemma
// and a slice per synset (0.4 s of every `missci report` before).
type wordNet struct {
	names []string             // synset id → lemma names without "_", space-separated
	index map[string]lemmaSets // lemma → its synsets per part of speech
	ids   []int32              // every lemma's synset ids, each list in one run
	exc   map[byte]map[string][]string
}

// lemmaSets are where a lemma's synset ids are in wordNet.ids, per part of
// speech (posSlot): from at, n of them.
type lemmaSets [4]struct{ at, n int32 }

// posSlot is the slot of a part of speech in lemmaSets (-1: none of them).
func posSlot(pos byte) int {
	switch pos {
	case 'n':
		return 0
	case 'v':
		return 1
	case 'a':
		return 2
	case 'r':
		return 3
	}
	return -1
}

// synsets are the ids of the synsets of lemma as pos (nil: none).
func (w *wordNet) synsets(lemma string, pos byte) []int32 {
	m, ok := w.index[lemma]
	i := posSlot(pos)
	if !ok || i < 0 {
		return nil
	}
	return w.ids[m[i].at : m[i].at+m[i].n]
}

var (
	wnOnce sync.Once
	wn     *wordNet
	wnErr  error
)

// loadWordNet reads the index once per process.
func loadWordNet() (*wordNet, error) {
	wnOnce.Do(func() { wn, wnErr = readWordNet() })
	return wn, wnErr
}

// readWordNet reads the embedded index.
func readWordNet() (*wordNet, error) {
	f, err := wnData.Open("data/wordnet.txt.gz")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("wordnet index: %w", err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("wordnet index: %w", err)
	}
	w := &wordNet{names: make([]string, 0, 120000), index: make(map[string]lemmaSets, 150000), ids: make([]int32, 0, 210000),
		exc: map[byte]map[string][]string{}}
	for len(data) > 0 {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		data = rest
		if len(line) < 2 || line[1] != '\t' {
			continue
		}
		switch line[0] {
		case 'S':
			w.names = append(w.names, string(line[2:]))
		case 'I': // I pos lemma id,id,…
			pos, rest, _ := bytes.Cut(line[2:], []byte("\t"))
			lemma, ids, _ := bytes.Cut(rest, []byte("\t"))
			slot := -1
			if len(pos) > 0 {
				slot = posSlot(pos[0])
			}
			if slot < 0 {
				continue
			}
			at := len(w.ids)
			for {
				one, more, found := bytes.Cut(ids, []byte(","))
				id, _ := strconv.Atoi(string(one)) // the conversion only lives in the call: no allocation
				w.ids = append(w.ids, int32(id))
				if !found {
					break
				}
				ids = more
			}
			m := w.index[string(lemma)] // a lookup by bytes: no allocation
			if m[slot].n > 0 {
				// A second line of the lemma as pos (the index has none):
				// its ids follow the first ones' in a run of their own.
				prev := w.ids[m[slot].at : m[slot].at+m[slot].n]
				w.ids = append(w.ids[:at], append(append([]int32(nil), prev...), w.ids[at:]...)...)
			}
			m[slot].at, m[slot].n = int32(at), int32(len(w.ids)-at)
			w.index[string(lemma)] = m
		case 'E':
			f := strings.SplitN(string(line), "\t", 4)
			if len(f) < 4 || f[1] == "" {
				continue
			}
			pos := f[1][0]
			if w.exc[pos] == nil {
				w.exc[pos] = map[string][]string{}
			}
			w.exc[pos][f[2]] = strings.Fields(f[3])
		}
	}
	return w, nil
}

var substitutions = map[byte][][2]string{
	'n': {{"s", ""}, {"ses", "s"}, {"ves", "f"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"}},
	'v': {{"s", ""}, {"ies", "y"}, {"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""}},
	'a': {{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"}},
	'r': {},
}

// morphy returns the base forms of form for a part of speech, as nltk's
// WordNetCorpusReader._morphy: exceptions first, then the detachment rules
// applied once (keeping the form itself), then repeatedly until a form exists.
func (w *wordNet) morphy(form string, pos byte) []string {
	filter := func(forms []string) []string {
		var out []string
		seen := map[string]bool{}
		for _, f := range forms {
			if len(w.synsets(f, pos)) > 0 {
				if !seen[f] {
					out = append(out, f)
					seen[f] = true
				}
			}
		}
		return out
	}
	apply := func(forms []string) []string {
		var out []string
		for _, f := range forms {
			for _, s := range substitutions[pos] {
				if strings.HasSuffix(f, s[0]) {
					out = append(out, f[:len(f)-len(s[0])]+s[1])
				}
			}
		}
		return out
	}
	if e, ok := w.exc[pos][form]; ok {
		return filter(append([]string{form}, e...))
	}
	forms := apply([]string{form})
	if r := filter(append([]string{form}, forms...)); len(r) > 0 {
		return r
	}
	for len(forms) > 0 {
		forms = apply(forms)
		if r := filter(forms); len(r) > 0 {
			return r
		}
	}
	return nil
}

var synCache sync.Map // word → map[string]bool (read-only once stored)

// Synonyms returns {lemma names without "_" of every synset of word, over
// all parts of speech} ∪ {word}: the set METEOR's WordNet stage matches
// against (nltk's wordnet.synsets, with morphy). Results are cached; callers
// must not modify the returned set.
func Synonyms(word string) (map[string]bool, error) {
	if v, ok := synCache.Load(word); ok {
		return v.(map[string]bool), nil
	}
	w, err := loadWordNet()
	if err != nil {
		return nil, err
	}
	out := map[string]bool{word: true}
	lemma := strings.ToLower(word)
	for _, pos := range []byte{'n', 'v', 'a', 'r'} {
		for _, form := range w.morphy(lemma, pos) {
			for _, id := range w.synsets(form, pos) {
				for _, n := range strings.Fields(w.names[id]) {
					out[n] = true
				}
			}
		}
	}
	synCache.Store(word, out)
	return out, nil
}
