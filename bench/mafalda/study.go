package mafalda

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
	"github.com/fallacylab/fallacylab/study"
)

// SpanStudy puts a run's predicted spans to people, each in its text: is
// the span part of a fallacious argument, and is the fallacy named the
// right one? Upstream's metric credits a predicted span only where a gold
// span with its label covers it; the report sets that credit against the
// people's majority, so a gold standard that misses fallacies shows.
var SpanStudy = study.RegisterKind(study.KindSpec{
	Kind:      "mafalda-span",
	Benchmark: Name,
	Summary: "a MAFALDA level-2 run's predicted spans (sentences the model gave one fallacy), read in their text: part of a fallacious argument? " +
		"the fallacy named? (yes / no); default stratum: whether a gold span with its label covers it; decoys: a gold span with its gold label (yes, yes) " +
		"and with a fallacy of another class (yes, no)",
	Questions: []study.Question{
		study.YesNo("fallacious", "Fallacious: is the marked span part of a fallacious argument?"),
		study.YesNo("label", "Label: is it the fallacy named?"),
	},
	Strata:  []string{"gold", "label"},
	Items:   spanItems,
	Analyze: analyzeGold,
})

// spanItems are a level-2 run's predicted fallacy spans, and decoys made
// of the gold's own spans.
func spanItems(ctx context.Context, d study.Draw) (cands, decoys []study.Item, facts map[string]string, err error) {
	setup, recs, err := LoadRun(ctx, d.Records, d.Run.ID)
	if err != nil {
		return nil, nil, nil, err
	}
	if setup.Level != 2 {
		return nil, nil, nil, fmt.Errorf("run %d asked at level %d: a span study needs a level-2 run (its spans name one of the 23 fallacies)", d.Run.ID, setup.Level)
	}
	if err := study.CheckKeys(d.Stratify, []string{"gold", "label"}); err != nil {
		return nil, nil, nil, err
	}
	stratify := d.Stratify
	if len(stratify) == 0 {
		stratify = []string{"gold"}
	}
	for _, r := range recs {
		gold, err := GoldSpans(Text{Text: r.Text, Labels: r.Labels})
		if err != nil {
			return nil, nil, nil, fmt.Errorf("text %d: %w", r.Index, err)
		}
		answers := make([]Answer, len(r.Answers))
		for k, a := range r.Answers {
			answers[k] = Answer{Sentence: a.Sentence, Labels: a.Labels}
		}
		for n, s := range sentenceSpans(answers) {
			if s.Label <= Nothing || s.Label >= Unknown(2) {
				continue
			}
			var part []string
			for _, a := range r.Answers[s.From:s.To] {
				part = append(part, a.Sentence)
			}
			hit := spanPrecision([]PredSpan{s.PredSpan}, gold, Current) > 0
			it := study.Item{Key: fmt.Sprintf("t%03d/%d", r.Index, n), Context: r.Text,
				Text:   spanText(strings.Join(part, " "), Level2[s.Label]),
				Hidden: map[string]string{"text": strconv.Itoa(r.Index), "label": Level2[s.Label], "gold": map[bool]string{true: "1", false: "0"}[hit]}}
			it.Stratum = study.StratumOf(stratify, func(k string) string { return it.Hidden[k] })
			cands = append(cands, it)
		}
		// Decoys: the text's first gold fallacy span with its label, and
		// with a fallacy of another level-1 class.
		rs := []rune(r.Text)
		for _, l := range r.Labels {
			id, ok := level2ID[strings.ToLower(l.Label)]
			if !ok || id == Nothing || skipped(l.Label) || l.Start < 0 || l.End > len(rs) || l.Start >= l.End {
				continue
			}
			span := string(rs[l.Start:l.End])
			other := Level2[(id+7)%23+1]
			for ToLevel1(level2ID[other]) == ToLevel1(id) {
				other = Level2[(level2ID[other]+7)%23+1]
			}
			hidden := map[string]string{"text": strconv.Itoa(r.Index)}
			decoys = append(decoys,
				study.Item{Key: fmt.Sprintf("t%03d/gold", r.Index), Context: r.Text, Text: spanText(span, Level2[id]),
					Known: map[string]string{"fallacious": "1", "label": "1"}, Hidden: hidden},
				study.Item{Key: fmt.Sprintf("t%03d/other", r.Index), Context: r.Text, Text: spanText(span, other),
					Known: map[string]string{"fallacious": "1", "label": "0"}, Hidden: hidden})
			break
		}
	}
	return cands, decoys, nil, nil
}

// spanText is what an item shows below its text.
func spanText(span, label string) string {
	return fmt.Sprintf("Span: %s\n\nFallacy named: %s", span, label)
}

// analyzeGold sets upstream's credit of each predicted span (a gold span
// with its label covers some of it) against the people's majority on
// "label": how often the gold agrees with people, and the spans people
// accept that the gold does not credit.
func analyzeGold(rep *report.Report, s study.Study, anns []study.Annotation, o study.AnalyzeOptions) error {
	maj := study.Majorities(s, anns, "label")
	var human, gold []string
	var both, onlyPeople, onlyGold, neither int
	for _, it := range s.Items {
		h, ok := maj[it.Key]
		if it.Decoy || !ok {
			continue
		}
		g := it.Hidden["gold"]
		human, gold = append(human, h), append(gold, g)
		switch {
		case g == "1" && h == "1":
			both++
		case h == "1":
			onlyPeople++
		case g == "1":
			onlyGold++
		default:
			neither++
		}
	}
	sec := rep.AddSection("The gold against people", "Upstream's metric credits a predicted span only where a gold span with its label covers it; here the people's majority on \"label\" is the truth. Precision: of the spans the gold credits, the share people accept; recall: of those people accept, the share the gold credits (Wilson intervals).")
	t := sec.Add(&report.Table{ID: "gold_check", Title: "The gold's credit against people", Columns: report.Cols("spans with a majority", "precision", "recall", "agreement", "Cohen's κ", "accepted, not credited")})
	k := report.NA("no span with a majority")
	if len(human) > 0 {
		if kk, err := stats.CohenKappa(human, gold); err == nil {
			k = report.NA(kk.Reason)
			if kk.Reason == "" {
				k = report.F(kk.Kappa, 3)
			}
		}
	}
	t.Rows = append(t.Rows, []report.Cell{report.I(len(human)), o.Ratio(both, both+onlyGold), o.Ratio(both, both+onlyPeople), o.Ratio(both+neither, len(human)), k, report.I(onlyPeople)})
	return nil
}
