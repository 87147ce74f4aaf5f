package classify

import (
	"regexp"
	"sort"
	"strings"

	"github.com/fallacylab/fallacylab/corpus"
	"github.com/fallacylab/fallacylab/engine"
)

// LabelSet is the labels a model may answer, in the report's order.
type LabelSet []string

// noneWords are the answers that mean "no fallacy".
var noneWords = map[string]bool{"none": true, "no fallacy": true, "no fallacy present": true, "valid": true, "not fallacious": true}

var wordEdge = regexp.MustCompile(`[^a-z0-9 ]+`)

// Parse maps an answer to one of the labels: the answer itself once
// lower-cased and stripped of quotes, a trailing full stop and a leading
// "label:" (or a word for "no fallacy" when none is a label); else the one
// label the answer names as a phrase (a label inside a longer named label
// does not count). ok is false when it names none or several.
func (ls LabelSet) Parse(answer string) (string, bool) {
	a := strings.ToLower(strings.TrimSpace(answer))
	a = strings.TrimPrefix(a, "label:")
	a = strings.Trim(a, " \t\n\"'`*.")
	has := map[string]bool{}
	for _, l := range ls {
		has[l] = true
	}
	if has[a] {
		return a, true
	}
	if has[corpus.None] && noneWords[a] {
		return corpus.None, true
	}
	flat := " " + strings.Join(strings.Fields(wordEdge.ReplaceAllString(a, " ")), " ") + " "
	var found []string
	for _, l := range ls {
		if strings.Contains(flat, " "+l+" ") {
			found = append(found, l)
		}
	}
	var kept []string
	for _, f := range found {
		inside := false
		for _, g := range found {
			if g != f && strings.Contains(" "+g+" ", " "+f+" ") {
				inside = true
			}
		}
		if !inside {
			kept = append(kept, f)
		}
	}
	if len(kept) == 1 {
		return kept[0], true
	}
	return "", false
}

// labelsOf is a corpus's label set over its items: its own (corpus.LabelsOf),
// or, for an open taxonomy (MAFALDA's), the labels its items use, sorted.
func labelsOf(name string, items []corpus.Item) LabelSet {
	if ls := corpus.LabelsOf(name); ls != nil {
		return LabelSet(ls)
	}
	seen := map[string]bool{}
	for _, it := range items {
		seen[it.NativeLabel()] = true
	}
	out := make([]string, 0, len(seen))
	for l := range seen {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

// meta is what a job carries: its item's index and the run's label set.
type meta struct {
	Index  int
	Labels LabelSet
}

func labelsOfJob(j engine.Job) LabelSet {
	if m, ok := j.Meta.(meta); ok {
		return m.Labels
	}
	return nil
}
