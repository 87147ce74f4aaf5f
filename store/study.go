package store

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// The stored shapes of human-validation studies (package study makes and
// analyses them; the store keeps them): a study, its questions, items and
// annotators, and the annotations people give.

// StudyKind names a kind of study: which records it samples and what it asks.
type StudyKind string

// Choice is one answer to a question.
type Choice struct {
	Key   string `json:"key"`   // what is stored: "1", "0", "V", "A"…
	Label string `json:"label"` // what the annotator reads
	Help  string `json:"help,omitempty"`
}

// Question is one thing asked of every item.
type Question struct {
	ID      string   `json:"id"`
	Text    string   `json:"text"`
	Choices []Choice `json:"choices"`
	// Positive is the choice that counts as "yes" for binary statistics
	// (positive specific agreement, precision and recall).
	Positive string `json:"positive"`
	// Type is how it is answered: "" a choice, "likert" a choice on an
	// ordered scale (its keys 1…n), "multi" one or more of its choices
	// (stored as their keys in the choices' order, joined by commas;
	// agreement is measured choice by choice), "text" free text (no
	// choices; counted in no agreement). Optional questions may be left open; one with When
	// is asked only when another question has that answer.
	Type     string `json:"type,omitempty"`
	Optional bool   `json:"optional,omitempty"`
	When     *When  `json:"when,omitempty"`
}

// When asks a question only when question Question was answered Is.
type When struct {
	Question string `json:"question"`
	Is       string `json:"is"`
}

// Question types (Question.Type).
const (
	Likert   = "likert"
	Multi    = "multi"
	FreeText = "text"
)

// Accepts reports whether v answers the question: one of its choices, or
// any text for free text.
func (q Question) Accepts(v string) bool {
	switch q.Type {
	case FreeText:
		return strings.TrimSpace(v) != ""
	case Multi:
		picks := q.Picks(v)
		return len(picks) > 0 && q.Joined(picks) == v
	}
	return q.Has(v)
}

// Has reports whether key is one of the question's choices.
func (q Question) Has(key string) bool {
	return slices.ContainsFunc(q.Choices, func(c Choice) bool { return c.Key == key })
}

// Picks are the choices a multi question's answer v holds (its keys, as
// written: Accepts checks them).
func (q Question) Picks(v string) []string {
	if strings.TrimSpace(v) == "" {
		return nil
	}
	var out []string
	for _, p := range strings.Split(v, ",") {
		out = append(out, strings.TrimSpace(p))
	}
	return out
}

// Joined is a multi question's answer picking keys: those of its choices,
// in the choices' order, joined by commas ("" when a key is not one of
// them or is picked twice).
func (q Question) Joined(keys []string) string {
	seen := map[string]int{}
	for _, k := range keys {
		seen[k]++
	}
	var out []string
	for _, c := range q.Choices {
		if seen[c.Key] > 1 {
			return ""
		}
		if seen[c.Key] == 1 {
			out = append(out, c.Key)
			delete(seen, c.Key)
		}
	}
	if len(seen) > 0 {
		return ""
	}
	return strings.Join(out, ",")
}

// Needed reports whether an answer must give the question one: it is not
// optional, and its condition (if any) holds in answers.
func (q Question) Needed(answers map[string]string) bool {
	if q.Optional {
		return false
	}
	if q.When == nil {
		return true
	}
	v := answers[q.When.Question] // a multi question's answer holds its picks joined by commas
	return v == q.When.Is || slices.Contains(strings.Split(v, ","), q.When.Is)
}

// Coded reports whether the question's answers are codes agreement is
// measured on (every type but free text).
func (q Question) Coded() bool { return q.Type != FreeText }

// StudyItem is one record put to the annotators. What they read is Context and
// Text; Hidden holds what they must not see (model, frame, condition,
// judge labels, the detector's label) for the report.
type StudyItem struct {
	Key     string            `json:"key"`
	Context string            `json:"context,omitempty"` // e.g. the claim a DeflectBench answer is about
	Text    string            `json:"text"`
	Stratum string            `json:"stratum,omitempty"`
	Hidden  map[string]string `json:"hidden,omitempty"`
	// Decoy marks a planted item with a known answer (Known: question →
	// choice): excluded from every figure, scored per annotator.
	Decoy bool              `json:"decoy,omitempty"`
	Known map[string]string `json:"known,omitempty"`
}

// Annotator is one person's queue: the items they see, in their order.
type Annotator struct {
	Name  string   `json:"name"`
	Token string   `json:"token"` // their private link's secret
	Order []string `json:"order"` // item keys
	// ReplacedBy names who took over their unanswered items (AddAnnotator):
	// their answers stay, their link opens nothing.
	ReplacedBy string `json:"replaced_by,omitempty"`
	// Participant is the crowd platform's id of the person who took this
	// place through the study's shared link (Prolific's PROLIFIC_PID;
	// Claim), "" while it is free.
	Participant string `json:"participant,omitempty"`
	// Private says the place's private link has been opened: someone uses
	// it, so the shared link never gives it to a participant.
	Private bool `json:"private,omitempty"`
}

// Study is a study as stored.
type Study struct {
	ID         int64       `json:"id"`
	RunID      int64       `json:"run_id"`
	Kind       StudyKind   `json:"kind"`
	Name       string      `json:"name"`
	Seed       uint64      `json:"seed"`
	Questions  []Question  `json:"questions"`
	Items      []StudyItem `json:"items"`
	Annotators []Annotator `json:"annotators"`
	Overlap    int         `json:"overlap"` // items every annotator sees (decoys apart)
	// PerItem: each sampled item was given to this many annotators (k of
	// m; 0: the overlap set and the rest shared out).
	PerItem int `json:"per_item,omitempty"`
	// Facts are figures of the whole run the analysis needs beside the
	// sample (a reconstruction run's P@1), as its kind's Items gave them.
	Facts   map[string]string `json:"facts,omitempty"`
	Created time.Time         `json:"created"`
	// CompletionCode is shown to an annotator who has been through their
	// queue, with Prolific's completion link (study create
	// --completion-code): what a crowd platform pays them on.
	CompletionCode string `json:"completion_code,omitempty"`
	// JoinToken is the secret of the study's one shared link (study create
	// --join), which a crowd platform sends every participant: each is given
	// a free annotator's place, by their participant id (Claim).
	JoinToken string `json:"join_token,omitempty"`
	// Codebook is the study's instructions (plain text: paragraphs split
	// by blank lines), shown before an annotator's first item beside the
	// questions' definitions, and reachable from every item.
	Codebook string `json:"codebook,omitempty"`
	// Practice are items with a known answer an annotator may try before
	// their queue, told the known answer after each; their answers are
	// kept nowhere and count in nothing.
	Practice []StudyItem `json:"practice,omitempty"`
}

// Annotation is one annotator's answer to one item.
type Annotation struct {
	StudyID   int64             `json:"study_id"`
	Annotator string            `json:"annotator"`
	Item      string            `json:"item"`
	Answers   map[string]string `json:"answers"` // question → choice key
	Comment   string            `json:"comment,omitempty"`
	Skipped   bool              `json:"skipped,omitempty"`
	At        time.Time         `json:"at"`
}

// Item returns the item with key k.
func (s *Study) Item(k string) (StudyItem, bool) {
	for _, it := range s.Items {
		if it.Key == k {
			return it, true
		}
	}
	return StudyItem{}, false
}

// Annotator returns the annotator whose token is tok.
func (s *Study) Annotator(tok string) (Annotator, bool) {
	for _, a := range s.Annotators {
		if a.Token != "" && a.Token == tok {
			return a, true
		}
	}
	return Annotator{}, false
}

// Validate checks an annotation against the study: a known annotator and
// item of their queue, and for a saved (not skipped) answer a valid choice
// for every question.
func (s *Study) Validate(a Annotation) error {
	var who *Annotator
	for i := range s.Annotators {
		if s.Annotators[i].Name == a.Annotator {
			who = &s.Annotators[i]
		}
	}
	if who == nil {
		return fmt.Errorf("study %d has no annotator %q", s.ID, a.Annotator)
	}
	if !slices.Contains(who.Order, a.Item) {
		return fmt.Errorf("item %q is not in %s's queue of study %d", a.Item, a.Annotator, s.ID)
	}
	if a.Skipped {
		return nil
	}
	for _, q := range s.Questions {
		v, ok := a.Answers[q.ID]
		switch {
		case (!ok || v == "") && q.Needed(a.Answers):
			return fmt.Errorf("item %q: question %s has no answer", a.Item, q.ID)
		case ok && v != "" && !q.Accepts(v):
			return fmt.Errorf("item %q: question %s: %q is not one of its choices", a.Item, q.ID, v)
		}
	}
	for k := range a.Answers {
		if !slices.ContainsFunc(s.Questions, func(q Question) bool { return q.ID == k }) {
			return fmt.Errorf("item %q: the study asks no question %q", a.Item, k)
		}
	}
	return nil
}

// Normalize maps what a person wrote in a sheet onto a choice key: the key
// or the label in any case ("n", "Valid"), and for a yes / no question
// also true / false, as the papers' sheets write them. Anything else is
// returned as written, for Validate to refuse.
func (q Question) Normalize(v string) string {
	v = strings.TrimSpace(v)
	if q.Type == Multi && v != "" {
		// A sheet's cell lists the picks by key or label, split by
		// commas, semicolons or bars, in any order.
		one := q
		one.Type = ""
		var keys []string
		for _, p := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ';' || r == '|' }) {
			keys = append(keys, one.Normalize(p))
		}
		if j := q.Joined(keys); j != "" {
			return j
		}
		return v
	}
	for _, c := range q.Choices {
		if strings.EqualFold(v, c.Key) || strings.EqualFold(v, c.Label) {
			return c.Key
		}
	}
	if q.Positive == "1" {
		switch strings.ToLower(v) {
		case "true", "y":
			return "1"
		case "false", "n":
			return "0"
		}
	}
	return v
}
