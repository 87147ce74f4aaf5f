package corpus

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"unicode/utf8"
)

// Names are the corpora Load reads.
var Names = []string{"reddit", "cocolofa", "argotario", "mafalda", "touche", "logic", "logicclimate"}

// LabelsOf is a corpus's own label set (NativeLabel's), in a fixed order.
func LabelsOf(name string) []string {
	switch name {
	case "logic", "logicclimate":
		return LogicLabels
	case "argotario":
		return []string{"ad hominem", "appeal to emotion", "hasty generalization", "irrelevant authority", None, "red herring"}
	case "mafalda":
		return nil // MAFALDA's taxonomy is open: the labels its spans use
	}
	return Labels
}

// Load returns a corpus's items. Reddit and Argotario are embedded (Reddit
// is read from data instead when it holds reddit_fallacy/); the others, whose
// licences do not allow copies, are read from data, the user's data folder
// (nil: none).
func Load(data fs.FS, name string, o LoadOptions) ([]Item, error) {
	items, err := load(data, name, o)
	if err != nil {
		return nil, err
	}
	return checkTexts(name, items, o)
}

// checkTexts refuses an item whose text no model should be sent: empty
// (or only spaces), not UTF-8, or holding a NUL byte — or, with
// SkipBadRows, leaves it out and counts it.
func checkTexts(name string, items []Item, o LoadOptions) ([]Item, error) {
	out := items[:0:0]
	for _, it := range items {
		why := ""
		switch {
		case strings.TrimSpace(it.Text) == "":
			why = "its text is empty"
		case !utf8.ValidString(it.Text):
			why = "its text is not UTF-8"
		case strings.IndexByte(it.Text, 0) >= 0:
			why = "its text holds a NUL byte"
		}
		if why == "" {
			out = append(out, it)
			continue
		}
		where := it.ID
		if it.Source != "" {
			where += " (" + it.Source + ")"
		}
		if err := o.bad(fmt.Errorf("corpus %s: item %s: %s: fix the file, or pass --skip-bad-rows to leave such items out", name, where, why)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func load(data fs.FS, name string, o LoadOptions) ([]Item, error) {
	switch name {
	case "reddit":
		if data != nil {
			if st, err := fs.Stat(data, "reddit_fallacy"); err == nil && st.IsDir() {
				return LoadReddit(data, "reddit_fallacy", o)
			}
		}
		return EmbeddedReddit()
	case "argotario":
		return EmbeddedArgotario()
	case "cocolofa":
		if data == nil {
			return nil, fmt.Errorf("corpus cocolofa is not embedded (no licence stated): pass --data-dir or set FALLACYLAB_DATA to a folder with cocolofa/test.json")
		}
		var items []Item
		for _, split := range []string{"train", "dev", "test"} {
			p := path.Join("cocolofa", split+".json")
			f, err := data.Open(p)
			if err != nil {
				if split == "test" {
					return nil, fmt.Errorf("cocolofa: %w", err)
				}
				continue // train.json is not public
			}
			got, err := ParseCoCoLoFa(f, p, split)
			f.Close()
			if err != nil {
				return nil, err
			}
			items = append(items, got...)
		}
		return items, nil
	case "mafalda", "touche":
		if data == nil {
			return nil, fmt.Errorf("corpus %s is not embedded: pass --data-dir or set FALLACYLAB_DATA (see fallacylab data list)", name)
		}
		p := map[string]string{"mafalda": "mafalda/gold_standard_dataset.jsonl", "touche": "touche2026_fallacy/touchefallacy_2026_train.jsonl"}[name]
		f, err := data.Open(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w (see fallacylab data list)", name, err)
		}
		defer f.Close()
		if name == "mafalda" {
			return ParseMAFALDA(f, p)
		}
		return ParseTouche(f, p)
	case "logic", "logicclimate":
		if data == nil {
			return nil, fmt.Errorf("corpus %s is not embedded (no licence stated): pass --data-dir or set FALLACYLAB_DATA (see fallacylab data list)", name)
		}
		prefix := map[string]string{"logic": "edu", "logicclimate": "climate"}[name]
		var items []Item
		for _, split := range []string{"train", "dev", "test"} {
			p := path.Join("logic", prefix+"_"+split+".csv")
			f, err := data.Open(p)
			if errors.Is(err, fs.ErrNotExist) && split != "test" {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w (see fallacylab data list)", name, err)
			}
			got, err := ParseLogic(f, p, name, split)
			f.Close()
			if err != nil {
				return nil, err
			}
			items = append(items, got...)
		}
		return items, nil
	}
	return nil, fmt.Errorf("corpus %q: use reddit, cocolofa, argotario, mafalda, touche, logic or logicclimate", name)
}
