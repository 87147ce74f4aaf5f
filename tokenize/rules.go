// Package tokenize splits text into tokens as the tools whose numbers
// fallacylab reproduces split it. Its one tokenizer so far is spaCy's
// rule-based Tokenizer (spaCy 3.7), with the English rules en_core_web_sm
// ships, for MissciPlus's BM25 ranker.
package tokenize

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"
)

// Rules are a spaCy tokenizer's rules as spaCy serialises them
// (Tokenizer.to_bytes): three Python expressions for prefixes, suffixes
// and infixes, one for URLs, and the special cases (exceptions), each a
// string and the token texts it splits into.
type Rules struct {
	// Source says where the rules were taken from.
	Source string `json:"source"`
	// Prefix is prefix_search's expression (alternatives each anchored ^).
	Prefix string `json:"prefix"`
	// Suffix is suffix_search's expression (alternatives each ending $).
	Suffix string `json:"suffix"`
	// Infix is infix_finditer's expression.
	Infix string `json:"infix"`
	// URL is url_match's expression.
	URL string `json:"url"`
	// FasterHeuristics limits the final special-case pass to special cases
	// that contain an affix or a space, as spaCy's default does.
	FasterHeuristics bool `json:"faster_heuristics"`
	// Exceptions maps a special case to the token texts it splits into.
	Exceptions map[string][]string `json:"exceptions"`
}

// spacyEnglish is written by testdata/spacy/dump.py from spaCy
// release-v3.7.6 (MIT licence; see NOTICE).
//
//go:embed data/spacy_en.json
var spacyEnglish []byte

// ParseRules reads rules written as spacy_en.json is.
func ParseRules(data []byte) (Rules, error) {
	var r Rules
	if err := json.Unmarshal(data, &r); err != nil {
		return Rules{}, fmt.Errorf("tokenize: spaCy rules: %w", err)
	}
	return r, nil
}

var english = sync.OnceValues(func() (*Spacy, error) {
	r, err := ParseRules(spacyEnglish)
	if err != nil {
		return nil, err
	}
	return NewSpacy(r)
})

// SpacyEnglish is the tokenizer of spaCy's en_core_web_sm 3.7 pipeline,
// built once. Only the tokenizer: the pipeline's later components do not
// change token boundaries.
func SpacyEnglish() *Spacy {
	t, err := english()
	if err != nil {
		panic(err) // embedded data, checked by the tests
	}
	return t
}
