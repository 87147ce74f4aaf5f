// Package missci is the Missci benchmark (SPEC A): reconstructing the
// fallacious premise behind a misrepresented-science claim. It holds the
// dataset and the 49 prompt templates (Apache-2.0, embedded), template
// filling, the upstream output parsers, the metrics, CPython-exact random
// baselines and the report. It parses readers it is given and does no other I/O.
package missci

import (
	"bufio"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

//go:embed data/*.jsonl data/prompt_templates data/human-eval.csv
var data embed.FS

// Interchangeable is one gold (premise, class) pair of a reasoning line.
type Interchangeable struct {
	ID      string `json:"id"`
	Premise string `json:"premise"`
	Class   string `json:"class"`
}

// Line is one fallacious reasoning line R_i of an argument.
type Line struct {
	ID        string            `json:"id"`
	Context   string            `json:"fallacy_context"` // s_i; may be ""
	Fallacies []Interchangeable `json:"interchangeable_fallacies"`
}

// Classes returns the line's gold classes in file order.
func (l Line) Classes() []string {
	out := make([]string, len(l.Fallacies))
	for i, f := range l.Fallacies {
		out[i] = f.Class
	}
	return out
}

// Argument is one Missci argument.
type Argument struct {
	ID    string
	Claim string
	P0    string
	Lines []Line
}

// Load reads the embedded "dev" or "test" split.
func Load(split string) ([]Argument, error) {
	f, err := data.Open("data/" + split + ".missci.jsonl")
	if err != nil {
		return nil, fmt.Errorf("missci split %q: use dev or test", split)
	}
	defer f.Close()
	return Parse(f, split+".missci.jsonl")
}

// Parse reads Missci JSONL; errors name the file, line and field.
func Parse(r io.Reader, name string) ([]Argument, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 32<<20)
	var out []Argument
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var row struct {
			ID       string `json:"id"`
			Argument struct {
				Claim string `json:"claim"`
				P0    struct {
					Premise string `json:"premise"`
				} `json:"accurate_premise_p0"`
				Fallacies []Line `json:"fallacies"`
			} `json:"argument"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, n, err)
		}
		if row.ID == "" || row.Argument.Claim == "" {
			return nil, fmt.Errorf("%s line %d: fields id and argument.claim are required", name, n)
		}
		if len(row.Argument.Fallacies) == 0 {
			return nil, fmt.Errorf("%s line %d: field argument.fallacies: empty", name, n)
		}
		for _, l := range row.Argument.Fallacies {
			if len(l.Fallacies) == 0 {
				return nil, fmt.Errorf("%s line %d: reasoning line %s has no interchangeable_fallacies", name, n, l.ID)
			}
			for _, f := range l.Fallacies {
				if !isClass(f.Class) {
					return nil, fmt.Errorf("%s line %d: fallacy %s: field class: %q is not a Missci class", name, n, f.ID, f.Class)
				}
			}
		}
		out = append(out, Argument{ID: row.ID, Claim: row.Argument.Claim, P0: row.Argument.P0.Premise, Lines: row.Argument.Fallacies})
	}
	return out, sc.Err()
}
