package mafalda

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/dlclark/regexp2"

	"github.com/fallacylab/fallacylab/pyre"
)

// Text is one text of the gold standard (gold_standard_dataset.jsonl).
type Text struct {
	Text string `json:"text"`
	// Labels are the annotated spans: [start, end, label], offsets in code
	// points.
	Labels []SpanLabel `json:"labels"`
}

// SpanLabel is one annotated span: [start, end, label].
type SpanLabel struct {
	Start, End int
	Label      string
}

// UnmarshalJSON reads [start, end, "label"].
func (s *SpanLabel) UnmarshalJSON(b []byte) error {
	var raw []any
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if len(raw) != 3 {
		return fmt.Errorf("a span label is [start, end, label], not %s", b)
	}
	a, ok1 := raw[0].(float64)
	e, ok2 := raw[1].(float64)
	l, ok3 := raw[2].(string)
	if !ok1 || !ok2 || !ok3 {
		return fmt.Errorf("a span label is [start, end, label], not %s", b)
	}
	s.Start, s.End, s.Label = int(a), int(e), l
	return nil
}

// MarshalJSON writes [start, end, "label"].
func (s SpanLabel) MarshalJSON() ([]byte, error) {
	return json.Marshal([]any{s.Start, s.End, s.Label})
}

// skipped is upstream's test for the spans its evaluator skips.
func skipped(label string) bool { return strings.Contains(strings.ToLower(label), "to clean") }

// GoldSpans is upstream's build_ground_truth_spans: the text's labelled
// spans, each with the set of its labels (spans annotated alike are one),
// then the stretches between them, labelled None — computed as upstream
// computes them, in the annotations' order.
func GoldSpans(t Text) ([]GoldSpan, error) {
	type key struct{ a, b int }
	var order []key
	labels := map[key][]int{}
	for _, l := range t.Labels {
		if skipped(l.Label) {
			continue
		}
		id, ok := level2ID[strings.ToLower(l.Label)]
		if !ok {
			return nil, fmt.Errorf("span [%d, %d]: label %q is none of MAFALDA's", l.Start, l.End, l.Label)
		}
		k := key{l.Start, l.End}
		if _, seen := labels[k]; !seen {
			order = append(order, k)
		}
		if !slices.Contains(labels[k], id) {
			labels[k] = append(labels[k], id)
		}
	}
	current, end := 0, utf8.RuneCountInString(t.Text)
	var uncovered []key
	for _, k := range order {
		if current < k.a {
			uncovered = append(uncovered, key{current, k.a - 1})
		}
		current = max(current, k.b+1)
	}
	if current < end {
		uncovered = append(uncovered, key{current, end})
	}
	if len(order) == 0 {
		uncovered = append(uncovered, key{0, end})
	}
	for _, k := range uncovered {
		if _, seen := labels[k]; !seen {
			order = append(order, k)
		}
		labels[k] = []int{None}
	}
	out := make([]GoldSpan, len(order))
	for i, k := range order {
		out[i] = GoldSpan{Labels: labels[k], Start: k.a, End: k.b}
	}
	return out, nil
}

// sentenceEnd is upstream's split_paragraph_into_sentences pattern.
var sentenceEnd = mustBacktrack(`(?<!\w\.\w.)(?<![A-Z][a-z]\.)(?<=\.|\?|\!)\s`)

func mustBacktrack(p string) *regexp2.Regexp {
	re, err := pyre.CompileBacktracking(p)
	if err != nil {
		panic(err)
	}
	return re
}

// splitSentences is upstream's split_paragraph_into_sentences (re.split).
func splitSentences(s string) []string {
	rs := []rune(s)
	var out []string
	from := 0
	m, _ := sentenceEnd.FindRunesMatch(rs)
	for m != nil {
		out = append(out, string(rs[from:m.Index]))
		from = m.Index + m.Length
		m, _ = sentenceEnd.FindNextMatch(m)
	}
	return append(out, string(rs[from:]))
}

// Sentences is upstream's process_data for one text: the sentences a model
// is asked about, in order, each once. The text is cut at its annotated
// spans and at the stretches between them longer than 10 characters
// (labelled nothing), and each piece split into sentences.
func Sentences(t Text) []string {
	type region struct{ a, b int }
	n := utf8.RuneCountInString(t.Text)
	var regions []region
	// find_non_fallacies_indexes (every annotation counts here, "to clean"
	// ones too).
	sorted := append([]SpanLabel(nil), t.Labels...)
	stableSortByStart(sorted)
	if len(sorted) == 0 {
		regions = append(regions, region{0, n})
	} else {
		var gaps []region
		if sorted[0].Start > 0 {
			gaps = append(gaps, region{0, sorted[0].Start - 1})
		}
		cur := sorted[0].End
		for _, l := range sorted[1:] {
			if l.Start > cur+1 {
				gaps = append(gaps, region{cur + 1, l.Start - 1})
			}
			cur = max(cur, l.End)
		}
		if cur < n {
			gaps = append(gaps, region{cur + 1, n})
		}
		for _, g := range gaps {
			if g.b-g.a > 10 {
				regions = append(regions, g)
			}
		}
	}
	// merge_all_labels: the gaps, then the annotated spans (a span at a
	// gap's place keeps the gap's position), sorted by start.
	seen := map[region]bool{}
	for _, r := range regions {
		seen[r] = true
	}
	for _, l := range t.Labels {
		r := region{l.Start, l.End}
		if !skipped(l.Label) && !seen[r] {
			seen[r] = true
			regions = append(regions, r)
		}
	}
	stableSort(regions, func(x region) int { return x.a })
	rs := []rune(t.Text)
	var out []string
	have := map[string]bool{}
	for _, r := range regions {
		a, b := clamp(r.a, len(rs)), clamp(r.b, len(rs))
		if a > b {
			a = b // Python's empty slice
		}
		for _, s := range splitSentences(string(rs[a:b])) {
			if s != "" && !have[s] {
				have[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// clamp is a Python slice bound: at most n, and a negative one counts from
// the end.
func clamp(i, n int) int {
	if i < 0 {
		i = max(0, n+i)
	}
	return min(i, n)
}

func stableSortByStart(ls []SpanLabel) {
	sort.SliceStable(ls, func(i, k int) bool { return ls[i].Start < ls[k].Start })
}

func stableSort[T any](xs []T, by func(T) int) {
	sort.SliceStable(xs, func(i, k int) bool { return by(xs[i]) < by(xs[k]) })
}
