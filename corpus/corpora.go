package corpus

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// OutOfSpace is the gold label of a fallacy outside the audit's eight types
// (e.g. Argotario's ad hominem). Such items are neither valid (none) nor one
// of the types.
const OutOfSpace = "other fallacy"

// ParseArgotario reads an Argotario TSV (Habernal et al. 2017; CC0). Quirk:
// some rows hold raw newlines inside Text, so a line that does not start with
// a row number and a tab continues the previous row's text. Labels: "No
// Fallacy" → none, "Irrelevant Authority" → appeal to authority, "Hasty
// Generalization" → hasty generalization, anything else → OutOfSpace. The
// intended fallacy is the gold label. There are no splits: every item is "test".
func ParseArgotario(r io.Reader, name string) ([]Item, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	if !sc.Scan() {
		return nil, fmt.Errorf("%s: empty", name)
	}
	hdr := strings.Split(sc.Text(), "\t")
	if len(hdr) != 9 || hdr[0] != "Row number" || hdr[8] != "Text" {
		return nil, fmt.Errorf("%s: header %v is not Argotario's", name, hdr)
	}
	var out []Item
	line := 1
	for sc.Scan() {
		line++
		l := sc.Text()
		f := strings.SplitN(l, "\t", 9)
		if len(f) < 9 || !isNumber(f[0]) {
			if len(out) == 0 {
				return nil, LineErr(name, line, "continuation line before any row")
			}
			out[len(out)-1].Text += "\n" + l
			continue
		}
		gold, label := OutOfSpace, strings.ToLower(strings.TrimSpace(f[5]))
		if label == "no fallacy" {
			label = None
		}
		switch strings.TrimSpace(f[5]) {
		case "No Fallacy":
			gold = None
		case "Irrelevant Authority":
			gold = "appeal to authority"
		case "Hasty Generalization":
			gold = "hasty generalization"
		case "":
			return nil, LineErr(name, line, "field Intended Fallacy: empty")
		}
		out = append(out, Item{ID: "argotario/" + f[0], Corpus: "argotario", Text: f[8], Context: f[3], Gold: gold, Label: label, Split: "test", Source: name})
	}
	return out, sc.Err()
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// mafaldaToType maps MAFALDA level-2 labels onto the audit's types.
var mafaldaToType = map[string]string{
	"appeal to (false) authority": "appeal to authority", "ad populum": "appeal to majority",
	"appeal to nature": "appeal to nature", "appeal to tradition": "appeal to tradition",
	"appeal to worse problems": "appeal to worse problems", "false dilemma": "false dilemma",
	"hasty generalization": "hasty generalization", "slippery slope": "slippery slope",
}

// ParseMAFALDA reads MAFALDA's gold standard (JSONL with span labels). Labels
// are lower-cased; spans labelled "to clean" are skipped (as the upstream
// evaluator does) and "nothing" marks a non-fallacious span. A text with no
// fallacious span is none; otherwise its gold is the first span's type mapped
// onto the audit's space (MAFALDA's taxonomy is only partly the same: other
// types become OutOfSpace). Every item is "test".
func ParseMAFALDA(r io.Reader, name string) ([]Item, error) {
	var out []Item
	err := eachJSONLine(r, name, func(line int, raw []byte) error {
		var row struct {
			Text   string  `json:"text"`
			Labels [][]any `json:"labels"`
		}
		if err := json.Unmarshal(raw, &row); err != nil {
			return LineErr(name, line, "%v", err)
		}
		gold, label := None, ""
		for _, sp := range row.Labels {
			if len(sp) != 3 {
				return LineErr(name, line, "field labels: span %v is not [start, end, label]", sp)
			}
			lab, ok := sp[2].(string)
			if !ok {
				return LineErr(name, line, "field labels: span label %v is not a string", sp[2])
			}
			lab = strings.ToLower(strings.TrimSpace(lab))
			if lab == "to clean" || lab == "nothing" {
				continue
			}
			if t, ok := mafaldaToType[lab]; ok {
				gold = t
			} else {
				gold = OutOfSpace
			}
			label = lab
			break
		}
		out = append(out, Item{ID: fmt.Sprintf("mafalda/%d", line), Corpus: "mafalda", Text: row.Text, Gold: gold, Label: label, Split: "test", Source: name})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ParseTouche reads the Touché 2026 fallacy-detection train file. The text is
// text_raw (the base track's raw comment), the context the thread title;
// gold is fallacy_type mapped from Sahai's vocabulary (the evaluator writes
// black-white for blackwhite) or none. Every item is "train": the test set is
// not public. Its items are Sahai annotated items (see TouchOverlap).
func ParseTouche(r io.Reader, name string) ([]Item, error) {
	var out []Item
	err := eachJSONLine(r, name, func(line int, raw []byte) error {
		var row struct {
			ID          string  `json:"id"`
			TextRaw     string  `json:"text_raw"`
			Title       string  `json:"text_raw_title"`
			Exists      int     `json:"fallacy_exists"`
			FallacyType *string `json:"fallacy_type"`
		}
		if err := json.Unmarshal(raw, &row); err != nil {
			return LineErr(name, line, "%v", err)
		}
		gold := None
		if row.Exists == 1 {
			if row.FallacyType == nil {
				return LineErr(name, line, "field fallacy_type: null on a fallacious item")
			}
			t, ok := NormalizeLabel(strings.ReplaceAll(*row.FallacyType, "black-white", "blackwhite"))
			if !ok {
				return LineErr(name, line, "field fallacy_type: unknown %q", *row.FallacyType)
			}
			gold = t
		}
		out = append(out, Item{ID: row.ID, Corpus: "touche", Text: row.TextRaw, Context: row.Title, Gold: gold, Split: "train", Source: name})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachJSONLine hands every non-blank line of a JSON-lines file to fn with its
// 1-based line number.
func eachJSONLine(r io.Reader, name string, fn func(line int, raw []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		if err := fn(line, sc.Bytes()); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s line %d: %w", name, line+1, err)
	}
	return nil
}

// Overlap counts items of a whose text also occurs in b (after trimming),
// e.g. Touché train items that are Sahai test items.
func Overlap(a, b []Item) int {
	set := map[string]bool{}
	for _, it := range b {
		set[strings.TrimSpace(it.Text)] = true
	}
	n := 0
	for _, it := range a {
		if set[strings.TrimSpace(it.Text)] {
			n++
		}
	}
	return n
}
