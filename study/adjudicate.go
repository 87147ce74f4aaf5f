package study

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Adjudicator is the name an adjudication is stored under: the gold answer
// an adjudicator set on an item the annotators disagree on. No annotator
// may take it (names starting with "#" are refused), and it counts in no
// agreement: the human majority of the item is the adjudicated answer.
const Adjudicator = "#adjudicator"

// Adjudicated is the answer an adjudicator set to question q of the item
// (ok false: none).
func (a answers) Adjudicated(key, q string) (string, bool) {
	v := a[key][Adjudicator][q]
	return v, v != ""
}

// Disagreement is a sampled item on which the annotators who answered a
// question did not all give the same answer.
type Disagreement struct {
	Item Item
	// Answers are each annotator's answers, in the study's order of
	// annotators (an empty map: not answered).
	Answers []map[string]string
	// Questions are the questions they disagree on; Adjudicated, what an
	// adjudicator set (question → choice).
	Questions   []string
	Adjudicated map[string]string
}

// Disagreements are the study's sampled items on which the annotators
// disagree, in the study's order of items.
func Disagreements(s Study, anns []Annotation) []Disagreement {
	ans := index(anns)
	var out []Disagreement
	for _, it := range s.Items {
		if it.Decoy {
			continue
		}
		d := Disagreement{Item: it, Adjudicated: map[string]string{}}
		for _, a := range s.Annotators {
			d.Answers = append(d.Answers, ans[it.Key][a.Name])
		}
		for _, q := range s.Questions {
			seen := map[string]bool{}
			for _, got := range d.Answers {
				if v := got[q.ID]; v != "" {
					seen[v] = true
				}
			}
			if len(seen) > 1 {
				d.Questions = append(d.Questions, q.ID)
			}
			if v, ok := ans.Adjudicated(it.Key, q.ID); ok {
				d.Adjudicated[q.ID] = v
			}
		}
		if len(d.Questions) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// Adjudication is the annotation that stores an adjudicator's gold answers
// to an item (question → choice), checked against the study: a sampled
// item, questions it asks, choices they offer.
func Adjudication(s Study, key string, gold map[string]string, at time.Time) (Annotation, error) {
	it, ok := s.Item(key)
	if !ok || it.Decoy {
		return Annotation{}, fmt.Errorf("study %d has no sampled item %q", s.ID, key)
	}
	if len(gold) == 0 {
		return Annotation{}, fmt.Errorf("item %q: no answer given", key)
	}
	for q, v := range gold {
		i := slices.IndexFunc(s.Questions, func(x Question) bool { return x.ID == q })
		if i < 0 {
			return Annotation{}, fmt.Errorf("study %d asks no question %q", s.ID, q)
		}
		if qq := s.Questions[i]; !qq.Coded() || !qq.Accepts(v) {
			return Annotation{}, fmt.Errorf("question %s has no choice %q", q, v)
		}
	}
	return Annotation{StudyID: s.ID, Annotator: Adjudicator, Item: key, Answers: gold, At: at}, nil
}

// adjudicatedItems counts the items with an adjudicated answer.
func adjudicatedItems(ans answers) int {
	n := 0
	for _, by := range ans {
		if len(by[Adjudicator]) > 0 {
			n++
		}
	}
	return n
}

// reservedName reports whether an annotator's name is the tool's own.
func reservedName(name string) bool { return strings.HasPrefix(name, "#") }
