package classify

import (
	"context"
	"fmt"
	"slices"

	"github.com/fallacylab/fallacylab/corpus"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
	"github.com/fallacylab/fallacylab/study"
)

// LabelStudy is the study kind of a classification run: people read a text
// with the label the model gave it (never the model, nor the corpus's
// label) and say whether the label fits. Decoys of both answers: "none" on
// texts the corpus labels with a fallacy (known no), where none is a
// label, and the corpus's own fallacy label on such texts (known yes).
var LabelStudy = study.RegisterKind(study.KindSpec{
	Kind: "classify-label", Benchmark: Name, Summary: "people judge whether the label the model gave each text fits it",
	Strata: stratifyKeys,
	Questions: []study.Question{{ID: "label_right", Text: "Does the label given fit the text?", Positive: "1", Choices: []study.Choice{
		{Key: "1", Label: "yes", Help: "The text commits the fallacy the label names (or, for none, commits none)."},
		{Key: "0", Label: "no", Help: "It does not: another fallacy, or none, fits better."}}}},
	Items:   studyItems,
	Analyze: analyzeStudy,
})

// stratifyKeys are what a label study may be stratified by.
var stratifyKeys = []string{"gold", "pred"}

func studyItems(ctx context.Context, d study.Draw) (cands, decoys []study.Item, facts map[string]string, err error) {
	rs, data, run, stratify := d.Records, d.Data, d.Run, d.Stratify
	if err := study.CheckKeys(stratify, stratifyKeys); err != nil {
		return nil, nil, nil, err
	}
	setup, preds, err := Load(ctx, rs, run.ID)
	if err != nil {
		return nil, nil, nil, err
	}
	items, err := corpus.Load(data, setup.Corpus, corpus.LoadOptions{})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("the study shows the texts of corpus %s: %w", setup.Corpus, err)
	}
	texts := limitTexts(corpus.Split(items, setup.Split), setup.Limit)
	byID := map[string]corpus.Item{}
	for i, id := range uniqueIDs(texts) {
		byID[id] = texts[i]
	}
	hasNone := slices.Contains(setup.Labels, corpus.None)
	for _, p := range preds {
		it, ok := byID[p.ID]
		if !ok || p.Pred == "" || p.Failed != "" {
			continue // an answer that named no label has nothing to check
		}
		text := it.Text
		if it.Context != "" {
			text = "(" + it.Context + ")\n\n" + it.Text
		}
		hidden := map[string]string{"gold": p.Gold, "pred": p.Pred, "model": setup.Model, "template": setup.Template}
		c := study.Item{Key: p.ID, Context: "Label given: " + p.Pred, Text: text, Hidden: hidden}
		c.Stratum = study.StratumOf(stratify, func(k string) string { return hidden[k] })
		cands = append(cands, c)
		if hasNone && p.Gold != corpus.None {
			decoys = append(decoys, study.Item{Key: "decoy:" + p.ID, Context: "Label given: " + corpus.None, Text: text, Decoy: true,
				Known: map[string]string{"label_right": "0"}, Hidden: map[string]string{"gold": p.Gold, "pred": corpus.None}})
		}
		if p.Gold != "" && p.Gold != corpus.None && p.Pred != p.Gold {
			// The other answer planted too: the corpus's own label on a
			// text it labels with a fallacy fits (known yes) — shown only
			// where the model gave another label, so no text comes twice
			// with one label. An annotator who says "no" to everything
			// fails these as one who says "yes" fails the others.
			decoys = append(decoys, study.Item{Key: "decoy-fits:" + p.ID, Context: "Label given: " + p.Gold, Text: text, Decoy: true,
				Known: map[string]string{"label_right": "1"}, Hidden: map[string]string{"gold": p.Gold, "pred": p.Gold}})
		}
	}
	return cands, decoys, nil, nil
}

// analyzeStudy sets the people's verdict on the model's labels beside the
// corpus's: how often the human majority says a label fits, how often it
// is the corpus's gold label, and how often the two agree.
func analyzeStudy(rep *report.Report, s study.Study, anns []study.Annotation, o study.AnalyzeOptions) error {
	maj := study.Majorities(s, anns, "label_right")
	var n, humanRight, goldRight, agree int
	for _, it := range s.Items {
		h, ok := maj[it.Key]
		if it.Decoy || !ok {
			continue
		}
		n++
		corpusSays := it.Hidden["pred"] == it.Hidden["gold"]
		if h == "1" {
			humanRight++
		}
		if corpusSays {
			goldRight++
		}
		if (h == "1") == corpusSays {
			agree++
		}
	}
	sec := rep.AddSection("The model's labels, checked by people", "On the sampled items with a human majority (more than half of an item's annotators; ties left out). Intervals: Wilson.")
	t := sec.Add(&report.Table{ID: "label_check", Title: "People and the corpus on the model's labels",
		Columns: []report.Column{{Key: "measure", Label: "measure"}, {Key: "share", Label: "share"}}})
	for _, r := range []struct {
		what string
		k    int
	}{{"people: the label fits", humanRight}, {"corpus: the label is its gold label", goldRight}, {"people and corpus agree", agree}} {
		cell := report.NA("no item has a human majority")
		if n > 0 {
			p, err := stats.Prop(r.k, n, o.Level, stats.Wilson)
			if err != nil {
				return err
			}
			cell = report.PCI(p.Estimate, p.Lo, p.Hi, n)
		}
		t.Rows = append(t.Rows, []report.Cell{report.T(r.what), cell})
	}
	return nil
}
