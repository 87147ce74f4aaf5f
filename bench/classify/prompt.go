package classify

import (
	"encoding/csv"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"strings"

	"github.com/fallacylab/fallacylab/corpus"
)

// Templates are the prompts a run may use.
var Templates = []string{"zero-shot", "definitions", "few-shot"}

// definitions are short definitions of the labels that are not LOGIC's
// (written for this benchmark; LOGIC's come from its mappings.csv).
var definitions = map[string]string{
	"appeal to authority":      "a claim is taken as true because an authority, often one outside their field, says so",
	"appeal to majority":       "a claim is taken as true because many people believe or do it",
	"appeal to nature":         "something is judged good or right because it is natural, or bad because it is not",
	"appeal to tradition":      "something is judged right because it has long been done or believed",
	"appeal to worse problems": "a problem is dismissed because a worse one exists",
	"false dilemma":            "only two options are offered when more exist",
	"hasty generalization":     "a general conclusion is drawn from too few or unrepresentative cases",
	"slippery slope":           "a first step is said to lead, by an unsupported chain, to an extreme outcome",
	corpus.None:                "the text commits none of these fallacies",
	"ad hominem":               "the person making an argument is attacked instead of the argument",
	"appeal to emotion":        "emotions are stirred in place of reasons",
	"irrelevant authority":     "an authority is cited on a matter outside their competence",
	"red herring":              "an irrelevant topic is brought in to divert attention from the issue",
}

// Definitions are the definitions of a label set: LOGIC's from its
// mappings.csv in the data folder, the others' from this package.
func Definitions(data fs.FS, name string, labels LabelSet) (map[string]string, error) {
	out := map[string]string{}
	if name == "logic" || name == "logicclimate" {
		if data == nil {
			return nil, fmt.Errorf("--template definitions on %s reads logic/mappings.csv from the data folder: pass --data-dir or set FALLACYLAB_DATA", name)
		}
		f, err := data.Open("logic/mappings.csv")
		if err != nil {
			return nil, fmt.Errorf("--template definitions: %w", err)
		}
		defer f.Close()
		cr := csv.NewReader(f)
		cr.FieldsPerRecord = -1
		hdr, err := cr.Read()
		if err != nil || len(hdr) < 3 || hdr[0] != "Original Name" || hdr[2] != "Description" {
			return nil, fmt.Errorf("logic/mappings.csv: header %v is not LOGIC's (Original Name, …, Description)", hdr)
		}
		for {
			rec, err := cr.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("logic/mappings.csv: %w", err)
			}
			out[strings.TrimSpace(rec[0])] = strings.TrimSpace(rec[2])
		}
	} else {
		for _, l := range labels {
			if d, ok := definitions[l]; ok {
				out[l] = d
			}
		}
	}
	for _, l := range labels {
		if out[l] == "" {
			return nil, fmt.Errorf("--template definitions: no definition of %q for corpus %s: use zero-shot or few-shot", l, name)
		}
	}
	return out, nil
}

// Shots are the few-shot examples: one text per label from the pool (the
// train split, else dev), drawn with the seed, in label order.
func Shots(pool []corpus.Item, labels LabelSet, seed uint64) []corpus.Item {
	by := map[string][]corpus.Item{}
	for _, it := range pool {
		by[it.NativeLabel()] = append(by[it.NativeLabel()], it)
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	var out []corpus.Item
	for _, l := range labels {
		if c := by[l]; len(c) > 0 {
			out = append(out, c[rng.IntN(len(c))])
		}
	}
	return out
}

// Prompt is the prompt of one text: the task and the labels, the
// definitions or examples its template adds, then the text.
func Prompt(it corpus.Item, labels LabelSet, defs map[string]string, shots []corpus.Item) string {
	var b strings.Builder
	b.WriteString("Which fallacy does the text below commit? Answer with exactly one of these labels and nothing else:\n")
	for _, l := range labels {
		if d, ok := defs[l]; ok {
			fmt.Fprintf(&b, "- %s: %s\n", l, d)
		} else {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	for _, s := range shots {
		b.WriteString("\n")
		writeText(&b, s)
		fmt.Fprintf(&b, "Label: %s\n", s.NativeLabel())
	}
	b.WriteString("\n")
	writeText(&b, it)
	b.WriteString("Label:")
	return b.String()
}

func writeText(b *strings.Builder, it corpus.Item) {
	if it.Context != "" {
		fmt.Fprintf(b, "Context: %s\n", it.Context)
	}
	fmt.Fprintf(b, "Text: %s\n", it.Text)
}
