// Package corpus reads the fallacy corpora behind one item model — Sahai et
// al.'s Reddit corpus, CoCoLoFa, Argotario, MAFALDA, Touché 2026 and LOGIC —
// with their label sets, for every benchmark that uses them (the Scheme
// Foils audit, fallacy classification). It parses the readers and file
// systems it is given and does no other I/O.
package corpus

import (
	"fmt"
	"sort"
	"strings"
)

// None is the negative class.
const None = "none"

// Types are the eight fallacy types of CoCoLoFa, the label space of the audit.
var Types = []string{"appeal to authority", "appeal to majority", "appeal to nature", "appeal to tradition",
	"appeal to worse problems", "false dilemma", "hasty generalization", "slippery slope"}

// Labels are the Types plus None: what a detector may answer.
var Labels = append(append([]string(nil), Types...), None)

// RedditRaw maps the Sahai et al. (2021) folder names to the audit's types (SPEC C.1).
var RedditRaw = map[string]string{
	"authority": "appeal to authority", "population": "appeal to majority", "natural": "appeal to nature",
	"tradition": "appeal to tradition", "worse_problems": "appeal to worse problems", "blackwhite": "false dilemma",
	"hasty_generalization": "hasty generalization", "slippery_slope": "slippery slope",
}

// NormalizeLabel maps a label from any supported vocabulary to the audit's
// label space: the eight types, their Reddit raw names, "none" (and common
// spellings of it). ok is false for an unknown label.
func NormalizeLabel(s string) (string, bool) {
	l := strings.ToLower(strings.TrimSpace(s))
	l = strings.ReplaceAll(l, "_", " ")
	for _, t := range Types {
		if l == t {
			return t, true
		}
	}
	if t, ok := RedditRaw[strings.ReplaceAll(l, " ", "_")]; ok {
		return t, true
	}
	switch l {
	case "none", "no fallacy", "nofallacy", "valid", "0":
		return None, true
	}
	return "", false
}

// Item is one text of a corpus.
type Item struct {
	ID      string `json:"id"`
	Corpus  string `json:"corpus"`
	Text    string `json:"text"`
	Context string `json:"context,omitempty"` // e.g. the thread title
	Gold    string `json:"gold"`              // a Type or None
	// Label is the corpus's own label where its label set is not the
	// eight types and none (Argotario's, MAFALDA's, LOGIC's): "" when it
	// is Gold. See NativeLabel.
	Label  string `json:"label,omitempty"`
	Split  string `json:"split"`            // train, dev or test
	Source string `json:"source,omitempty"` // file or sub-corpus it came from
	// AnnotatedSplit is the split in Sahai et al.'s processed annotated
	// dataset (annotated rows only; "" for negative samples).
	AnnotatedSplit string `json:"annotated_split,omitempty"`
}

// NativeLabel is the item's label in its corpus's own label set.
func (it Item) NativeLabel() string {
	if it.Label != "" {
		return it.Label
	}
	return it.Gold
}

// Split selects items of one split.
func Split(items []Item, split string) []Item {
	var out []Item
	for _, it := range items {
		if it.Split == split {
			out = append(out, it)
		}
	}
	return out
}

// RedditAnnotated restricts Reddit items to the processed annotated dataset
// (the annotated rows, with its own train/dev/test split): balanced between
// fallacious and valid comments, unlike the full dataset whose 6,400 random
// negative samples make "none" four times as frequent.
func RedditAnnotated(items []Item) []Item {
	var out []Item
	for _, it := range items {
		if it.AnnotatedSplit != "" {
			it.Split = it.AnnotatedSplit
			out = append(out, it)
		}
	}
	return out
}

// Counts summarises items by split and gold label.
func Counts(items []Item) map[string]map[string]int {
	out := map[string]map[string]int{}
	for _, it := range items {
		if out[it.Split] == nil {
			out[it.Split] = map[string]int{}
		}
		out[it.Split][it.Gold]++
	}
	return out
}

// LineErr is an error in a data file that names the file and the line
// (and, in format, the field): how every reader of corpora and data files
// reports bad input.
func LineErr(file string, line int, format string, a ...any) error {
	return fmt.Errorf("%s line %d: %s", file, line, fmt.Sprintf(format, a...))
}

// SortedKeys are a map's keys in order.
func SortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TakeInTurn takes up to n items, one of each class in turn (first the
// class named first, then in order of first appearance), keeping the
// items' order within a class and in the result: a quick look (--limit)
// at a corpus that has something to say of every class.
func TakeInTurn[T any](items []T, n int, class func(T) string, first string) []T {
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
