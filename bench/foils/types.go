// Package foils is the Scheme Foils audit (SPEC C): fallacy corpora behind one
// item model, the released matched and wrong-scheme sets, and the audit's
// measurements — native and matched false-positive rates, type-specific
// separation, the τ′ margin, where errors land, Firth regression — as typed
// tables. It parses readers it is given and does no other I/O.
package foils

import (
	"github.com/fallacylab/fallacylab/corpus"
)

// The audit's label space is CoCoLoFa's eight types and none, and its items
// are the corpora's (package corpus).
const (
	// None is the negative class.
	None = corpus.None
	// OutOfSpace is the gold label of a fallacy outside the eight types.
	OutOfSpace = corpus.OutOfSpace
)

// Types are the eight fallacy types of CoCoLoFa, the label space of the audit.
var Types = corpus.Types

// Labels are the Types plus None: what a detector may answer.
var Labels = corpus.Labels

// RedditRaw maps the Sahai et al. (2021) folder names to the audit's types.
var RedditRaw = corpus.RedditRaw

// Item is one text of a corpus.
type Item = corpus.Item

// Split selects items of one split.
func Split(items []Item, split string) []Item { return corpus.Split(items, split) }

// NormalizeLabel maps a label to the audit's label space (corpus.NormalizeLabel).
func NormalizeLabel(s string) (string, bool) { return corpus.NormalizeLabel(s) }

// RedditAnnotated restricts Reddit items to the processed annotated dataset
// (corpus.RedditAnnotated).
func RedditAnnotated(items []Item) []Item { return corpus.RedditAnnotated(items) }

// Counts summarises items by split and gold label.
func Counts(items []Item) map[string]map[string]int { return corpus.Counts(items) }

// Scheme is the Walton argumentation scheme and critical question behind a
// type (SPEC C.1; metadata only, no metric depends on it).
type Scheme struct {
	Name, Question string
}

// Schemes maps each type to its scheme.
var Schemes = map[string]Scheme{
	"appeal to authority":      {"argument from expert opinion", "Is the source a genuine expert in the relevant domain, speaking within their competence?"},
	"hasty generalization":     {"argument from a sample (generalisation)", "Is the sample adequate and representative?"},
	"false dilemma":            {"disjunctive reasoning", "Are the alternatives exhaustive?"},
	"appeal to majority":       {"argument from popular opinion", "Is general acceptance evidence in this case?"},
	"appeal to tradition":      {"argument from popular practice / tradition", "Is the past practice still justified?"},
	"slippery slope":           {"slippery-slope argument", "Is each step in the causal chain plausible?"},
	"appeal to nature":         {"appeal to naturalness / values", "Does naturalness imply goodness here?"},
	"appeal to worse problems": {"argument from comparative priority", "Does the existence of a worse problem defeat action on this one?"},
}

func sortedKeys[V any](m map[string]V) []string { return corpus.SortedKeys(m) }
