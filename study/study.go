// Package study is human validation of a run: a study samples a run's
// records (stratified, seeded), plants decoys with a known answer, gives
// every annotator an overlap set and a share of the rest in an order of
// their own, and turns the answers into the papers' statistics —
// agreement, decoy accuracy, judge validity. It does no I/O: the store
// keeps studies and annotations, the viewer shows items, the CLI wires.
package study

import "github.com/fallacylab/fallacylab/store"

// The stored shapes live in the store (store.Study…); these names are
// theirs.
type (
	// Kind names a kind of study: which records it samples and what it asks.
	Kind = store.StudyKind
	// Choice is one answer to a question.
	Choice = store.Choice
	// Question is one thing asked of every item.
	Question = store.Question
	// When asks a question only when another was given an answer.
	When = store.When
	// Item is one record put to the annotators.
	Item = store.StudyItem
	// Annotator is one person's queue.
	Annotator = store.Annotator
	// Study is a study as stored.
	Study = store.Study
	// Annotation is one annotator's answer to one item.
	Annotation = store.Annotation
)

// Question types (Question.Type).
const (
	Likert   = store.Likert
	Multi    = store.Multi
	FreeText = store.FreeText
)

// Done counts, per annotator, the items they have answered or skipped.
func Done(anns []Annotation) map[string]int {
	out := map[string]int{}
	for _, a := range anns {
		out[a.Annotator]++
	}
	return out
}
