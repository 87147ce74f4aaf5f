package corpus

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
)

// LogicLabels are LOGIC's 13 classes (Jin et al. 2022), LogicClimate's too;
// neither has a valid class.
var LogicLabels = []string{"ad hominem", "ad populum", "appeal to emotion", "circular reasoning", "equivocation",
	"fallacy of credibility", "fallacy of extension", "fallacy of logic", "fallacy of relevance", "false causality",
	"false dilemma", "faulty generalization", "intentional"}

// ParseLogic reads one split file of LOGIC (edu_*.csv: the text is
// source_article, the label updated_label) or LogicClimate (climate_*.csv:
// logical_fallacies), as corpus ("logic" or "logicclimate"). Fields run over
// lines (standard CSV quoting). The label is kept as Label; Gold is the
// audit's type where LOGIC's class is one (false dilemma), else
// OutOfSpace: LOGIC has no valid class. Rows with no text (LogicClimate
// has 24 / 7 / 8 in train / dev / test) are skipped: there is nothing to
// classify. Item ids number the file's rows, so they stay stable.
func ParseLogic(r io.Reader, name, corpus, split string) ([]Item, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	hdr, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", name, err)
	}
	text, label := -1, -1
	for i, h := range hdr {
		switch h {
		case "source_article":
			text = i
		case "updated_label", "logical_fallacies":
			label = i
		}
	}
	if text < 0 || label < 0 {
		return nil, fmt.Errorf("%s: header %v has no source_article and updated_label (or logical_fallacies) columns: is this a LOGIC file?", name, hdr)
	}
	known := map[string]bool{}
	for _, l := range LogicLabels {
		known[l] = true
	}
	var out []Item
	for n := 1; ; n++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(hdr) {
			return nil, LineErr(name, line, "%d fields, the header has %d", len(rec), len(hdr))
		}
		lab := strings.ToLower(strings.TrimSpace(rec[label]))
		if !known[lab] {
			return nil, LineErr(name, line, "field %s: unknown label %q", hdr[label], rec[label])
		}
		if strings.TrimSpace(rec[text]) == "" {
			continue // LogicClimate has rows with no text (39): nothing to classify
		}
		gold := OutOfSpace
		if t, ok := NormalizeLabel(lab); ok {
			gold = t
		}
		out = append(out, Item{ID: fmt.Sprintf("%s/%s/%d", corpus, split, n), Corpus: corpus, Text: rec[text], Gold: gold, Label: lab, Split: split, Source: name})
	}
	return out, nil
}
