package textmetric

import (
	"bufio"
	"compress/gzip"
	"embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

//go:embed data/wordnet.txt.gz
var wnData embed.FS

// wordNet is the compact WordNet 3.0 index built by internal/mkwordnet.
type wordNet struct {
	names [][]string                  // synset id → lemma names without "_"
	index map[string]map[byte][]int32 // lemma → pos → synset ids
	exc   map[byte]map[string][]string
}

var (
	wnOnce sync.Once
	wn     *wordNet
	wnErr  error
)

func loadWordNet() (*wordNet, error) {
	wnOnce.Do(func() {
		f, err := wnData.Open("data/wordnet.txt.gz")
		if err != nil {
			wnErr = err
			return
		}
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			wnErr = fmt.Errorf("wordnet index: %w", err)
			return
		}
		w := &wordNet{index: map[string]map[byte][]int32{}, exc: map[byte]map[string][]string{}}
		sc := bufio.NewScanner(zr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "S\t"):
				w.names = append(w.names, strings.Fields(line[2:]))
			case strings.HasPrefix(line, "I\t"):
				f := strings.SplitN(line, "\t", 4)
				pos := f[1][0]
				m := w.index[f[2]]
				if m == nil {
					m = map[byte][]int32{}
					w.index[f[2]] = m
				}
				for _, s := range strings.Split(f[3], ",") {
					id, _ := strconv.Atoi(s)
					m[pos] = append(m[pos], int32(id))
				}
			case strings.HasPrefix(line, "E\t"):
				f := strings.SplitN(line, "\t", 4)
				pos := f[1][0]
				if w.exc[pos] == nil {
					w.exc[pos] = map[string][]string{}
				}
				w.exc[pos][f[2]] = strings.Fields(f[3])
			}
		}
		wn, wnErr = w, sc.Err()
	})
	return wn, wnErr
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
			if m, ok := w.index[f]; ok {
				if _, ok := m[pos]; ok && !seen[f] {
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
			for _, id := range w.index[form][pos] {
				for _, n := range w.names[id] {
					out[n] = true
				}
			}
		}
	}
	synCache.Store(word, out)
	return out, nil
}
