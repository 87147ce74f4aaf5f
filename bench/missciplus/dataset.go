// Package missciplus is MissciPlus (Glockner et al., NAACL 2025,
// "Grounding Fallacies Misrepresenting Scientific Publications in
// Evidence"): Missci's arguments tied to the passages of the PubMed
// Central study each misrepresents. Subtask 1 ranks a study's passages so
// that one stating the accurate premise p0 comes first; subtask 2 ranks
// them so that the passages the fallacies rest on come first; subtask 3
// reconstructs the fallacious argument from passages. The dataset and its
// 36 prompt templates (Apache-2.0, UKPLab/naacl2025-missciplus) are
// embedded; the metrics are upstream's (missci/eval/ranking_metrics.py,
// evaluator_subtask1.py, evaluator_subtask2_open.py), written again here
// and checked against upstream's own Python on the same rankings.
package missciplus

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

//go:embed data/*.jsonl.gz data/prompt_templates data/fallacy_mapper.json
var data embed.FS

// Mapping ties a premise or a fallacy to a passage of the study: the
// passage and the sentences of it the annotators marked.
type Mapping struct {
	Passage   string `json:"passage"`
	Sentences []int  `json:"sentences"`
}

// Fallacy is one fallacious reasoning line of an argument: its context
// (s_i, "" when it rests on p0 itself), the passages it rests on, and its
// interchangeable (premise, class) pairs.
type Fallacy struct {
	ID              string    `json:"id"`
	Context         string    `json:"fallacy_context"`
	Mapping         []Mapping `json:"mapping"`
	Interchangeable []struct {
		ID      string `json:"id"`
		Premise string `json:"premise"`
		Class   string `json:"class"`
	} `json:"interchangeable_fallacies"`
}

// Passage is one passage of a study: its section and sentences.
type Passage struct {
	ID        string   `json:"passage_id"`
	Section   string   `json:"section"`
	Sentences []string `json:"sentences"`
}

// Text is the passage's sentences joined by spaces, with its section
// before them when addSection (upstream's get_passage_text).
func (p Passage) Text(addSection bool) string {
	t := strings.Join(p.Sentences, " ")
	if addSection && p.Section != "" {
		t = "(Section: " + p.Section + ") " + t
	}
	return t
}

// Argument is one MissciPlus argument with its study.
type Argument struct {
	ID       string `json:"id"`
	Argument struct {
		Claim    string `json:"claim"`
		Accurate struct {
			Premise string    `json:"premise"`
			Mapping []Mapping `json:"mapping"`
		} `json:"accurate_premise_p0"`
		Fallacies []Fallacy `json:"fallacies"`
	} `json:"argument"`
	Study struct {
		PMCID    string   `json:"pmc_id"`
		All      Passages `json:"all_passages"`
		Selected Passages `json:"selected_passages"`
	} `json:"study"`
}

// Passages are a study's passages by id, and the ids in the file's order
// (the order upstream's Python dict keeps, which its stable sorts keep on
// ties).
type Passages struct {
	byID  map[string]Passage
	order []string
}

// UnmarshalJSON reads a JSON object of passages, keeping its keys' order.
func (ps *Passages) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("passages: want an object")
	}
	ps.byID = map[string]Passage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		id, _ := t.(string)
		var p Passage
		if err := dec.Decode(&p); err != nil {
			return fmt.Errorf("passage %s: %w", id, err)
		}
		if _, dup := ps.byID[id]; dup {
			return fmt.Errorf("passage %s: twice", id)
		}
		ps.byID[id] = p
		ps.order = append(ps.order, id)
	}
	return nil
}

// Get is the passage of that id.
func (ps Passages) Get(id string) (Passage, bool) {
	p, ok := ps.byID[id]
	return p, ok
}

// Len is how many passages there are.
func (ps Passages) Len() int { return len(ps.order) }

// IDs are the passages' ids in the file's order.
func (ps Passages) IDs() []string { return append([]string(nil), ps.order...) }

// Claim is the argument's claim; P0 its accurate premise.
func (a Argument) Claim() string { return a.Argument.Claim }

// P0 is the argument's accurate premise.
func (a Argument) P0() string { return a.Argument.Accurate.Premise }

// Load reads the embedded "dev" (30 arguments) or "test" (84) split.
func Load(split string) ([]Argument, error) {
	f, err := data.Open("data/" + split + ".missciplus.jsonl.gz")
	if err != nil {
		return nil, fmt.Errorf("MissciPlus split %q: use dev or test", split)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s.missciplus.jsonl: %w", split, err)
	}
	return Parse(z, split+".missciplus.jsonl")
}

// Parse reads arguments, one JSON object per line; name is the file, for
// errors.
func Parse(r io.Reader, name string) ([]Argument, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var out []Argument
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var a Argument
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, line, err)
		}
		if a.ID == "" || a.Study.All.Len() == 0 {
			return nil, fmt.Errorf("%s line %d: field id or study.all_passages: missing", name, line)
		}
		for _, m := range a.Argument.Accurate.Mapping {
			if _, ok := a.Study.Selected.Get(m.Passage); !ok {
				return nil, fmt.Errorf("%s line %d (%s): p0 is mapped to %s, not a selected passage", name, line, a.ID, m.Passage)
			}
		}
		out = append(out, a)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// Passages are the ids of the study's selected passages (all of them when
// full), in the order of their number (upstream's get_sorted_passages: by
// the integer after the last "-", a stable sort of the file's order).
func (a Argument) Passages(full bool) []string {
	src := a.Study.Selected
	if full {
		src = a.Study.All
	}
	ids := src.IDs()
	num := func(id string) int {
		n, _ := strconv.Atoi(id[strings.LastIndex(id, "-")+1:])
		return n
	}
	sort.SliceStable(ids, func(i, j int) bool { return num(ids[i]) < num(ids[j]) }) // ties keep the file's order, as Python's sorted

	return ids
}

// HasMappedP0 reports whether a passage states the argument's p0 (the
// arguments subtask 1 is evaluated on).
func (a Argument) HasMappedP0() bool { return len(a.Argument.Accurate.Mapping) > 0 }

// P0Passages are the passages that state p0 (the gold of subtask 1).
func (a Argument) P0Passages() []string {
	var out []string
	for _, m := range a.Argument.Accurate.Mapping {
		out = append(out, m.Passage)
	}
	return out
}

// FallacyPassages are, for every passage of the whole study, whether a
// fallacy rests on it: mapped to one, or stating p0 when a fallacy has no
// context of its own (upstream's get_passage_mapping_dict_for_fallacies,
// the gold of subtask 2's mAP).
func (a Argument) FallacyPassages() map[string]bool {
	out := make(map[string]bool, a.Study.All.Len())
	for _, id := range a.Study.All.order {
		out[id] = false
	}
	for _, f := range a.Argument.Fallacies {
		for _, m := range f.Mapping {
			out[m.Passage] = true
		}
	}
	for _, f := range a.Argument.Fallacies {
		if f.Context == "" { // upstream: len(fallacy_context) == 0, not stripped
			for _, m := range a.Argument.Accurate.Mapping {
				out[m.Passage] = true
			}
			break
		}
	}
	return out
}

// SelectedFallacyPassages are the selected passages a fallacy is mapped
// to, and those stating p0 when a fallacy has no context (upstream's
// get_gold_fallacy_mapping_dict: the gold of subtask 2's P@k).
func (a Argument) SelectedFallacyPassages() map[string]bool {
	out := map[string]bool{}
	for _, f := range a.Argument.Fallacies {
		for _, m := range f.Mapping {
			out[m.Passage] = true
		}
	}
	for _, f := range a.Argument.Fallacies {
		if f.Context == "" {
			for _, m := range a.Argument.Accurate.Mapping {
				out[m.Passage] = true
			}
			break
		}
	}
	return out
}
