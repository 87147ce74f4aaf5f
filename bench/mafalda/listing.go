package mafalda

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/store"
)

// Listing implements bench.Lists: one row per text.
func (Task) Listing() bench.Listing {
	return bench.Listing{Kind: KindText, Title: "texts",
		Columns:  []string{"text", "sentences", "predicted", "gold", "span F1"},
		Compared: "predicted", Gold: "gold",
		Row: func(r store.Record) ([]string, error) {
			var rec Record
			if err := json.Unmarshal(r.Body, &rec); err != nil {
				return nil, fmt.Errorf("text record %s: %w", r.Key, err)
			}
			gold, err := GoldSpans(Text{Text: rec.Text, Labels: rec.Labels})
			if err != nil {
				return nil, err
			}
			answers := make([]Answer, len(rec.Answers))
			var pred []int
			for k, a := range rec.Answers {
				answers[k] = Answer{Sentence: a.Sentence, Labels: a.Labels}
				pred = append(pred, a.Labels...)
			}
			var goldLabels []int
			for _, g := range gold {
				goldLabels = append(goldLabels, g.Labels...)
			}
			res := Evaluate(answers, gold, rec.Level, Current)
			return []string{rec.Text, fmt.Sprint(len(rec.Answers)), names(pred, rec.Level), names(goldLabels, 2),
				fmt.Sprintf("%.3f", res.Span[rec.Level].F1)}, nil
		}}
}

// names lists the fallacies among labels (nothing, None and unknown left
// out), sorted: "none" when there is none.
func names(labels []int, level int) string {
	seen := map[string]bool{}
	for _, l := range labels {
		switch {
		case l <= Nothing:
		case level == 1 && l < len(Level1):
			seen[Level1[l]] = true
		case level == 2 && l < len(Level2):
			seen[Level2[l]] = true
		}
	}
	if len(seen) == 0 {
		return "none"
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}
