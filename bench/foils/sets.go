package foils

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fallacylab/fallacylab/corpus"
)

// Foil conditions.
const (
	Matched     = "matched"      // valid argument in the source's scheme (M)
	WrongScheme = "wrong_scheme" // valid argument switched to another scheme (WS)
	Native      = "native"       // the corpus' own "none" test items (N)
)

// Foil is one item of the released Scheme Foils sets (SPEC C.2).
type Foil struct {
	Condition string // Matched or WrongScheme
	Corpus    string // cocolofa or reddit
	Source    string // τ: the source item's type
	Target    string // τ′: the scheme the WS item was switched to ("" for M)
	ID        int    // per-type index; (Source, ID) pairs M and WS items
	Text      string // the generated argument
	Span      string // the source fallacious span (Reddit sets)
}

// Key identifies a foil's source item: (type, id).
func (f Foil) Key() string { return f.Source + "#" + strconv.Itoa(f.ID) }

// ParseFoils reads one released CSV. condition and corpus say which of the
// four files it is; the header is checked against the expected columns. Type
// labels in Reddit's raw vocabulary (target_type of reddit_task6) are mapped.
func ParseFoils(r io.Reader, name, condition, corpusName string) ([]Foil, error) {
	pr := corpus.NewPandasReader(r, ',')
	hdr, _, err := pr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", name, err)
	}
	col := map[string]int{}
	for i, h := range hdr {
		col[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
	}
	typeCol := "fallacy_type"
	need := []string{"id", "generated"}
	if condition == WrongScheme {
		typeCol = "source_fallacy"
		need = append(need, "target_type")
	}
	need = append(need, typeCol)
	for _, c := range need {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("%s: header has no %q column (got %v): is this a %s %s file?", name, c, hdr, corpusName, condition)
		}
	}
	var out []Foil
	seen := map[string]int{}
	err = pr.Rows(name, len(hdr), func(rec []string, line int) error {
		f := Foil{Condition: condition, Corpus: corpusName, Text: rec[col["generated"]]}
		var ok bool
		if f.Source, ok = NormalizeLabel(rec[col[typeCol]]); !ok || f.Source == None {
			return corpus.LineErr(name, line, "field %s: unknown type %q", typeCol, rec[col[typeCol]])
		}
		if condition == WrongScheme {
			if f.Target, ok = NormalizeLabel(rec[col["target_type"]]); !ok || f.Target == None {
				return corpus.LineErr(name, line, "field target_type: unknown type %q", rec[col["target_type"]])
			}
			if f.Target == f.Source {
				return corpus.LineErr(name, line, "field target_type: equals the source type %q", f.Source)
			}
		}
		id, err := strconv.Atoi(strings.TrimSpace(rec[col["id"]]))
		if err != nil {
			return corpus.LineErr(name, line, "field id: %q is not an integer", rec[col["id"]])
		}
		f.ID = id
		if i, ok := col["span"]; ok {
			f.Span = rec[i]
		}
		if strings.TrimSpace(f.Text) == "" {
			return corpus.LineErr(name, line, "field generated: empty")
		}
		if prev, dup := seen[f.Key()]; dup {
			return corpus.LineErr(name, line, "key (%s, %d) already on line %d", f.Source, f.ID, prev)
		}
		seen[f.Key()] = line
		out = append(out, f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no rows", name)
	}
	return out, nil
}
