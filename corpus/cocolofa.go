package corpus

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// ParseCoCoLoFa reads one CoCoLoFa split file (a JSON array of articles, each
// with its comments). Each comment is an item; its context is the article
// title; its gold label is the comment's fallacy (or none).
func ParseCoCoLoFa(r io.Reader, name, split string) ([]Item, error) {
	var articles []struct {
		ID       json.Number `json:"id"`
		Title    string      `json:"title"`
		Comments []struct {
			ID      json.Number `json:"id"`
			Fallacy string      `json:"fallacy"`
			Comment string      `json:"comment"`
		} `json:"comments"`
	}
	dec := json.NewDecoder(r)
	dec.UseNumber()
	if err := dec.Decode(&articles); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var out []Item
	for ai, a := range articles {
		for ci, c := range a.Comments {
			gold, ok := NormalizeLabel(c.Fallacy)
			if !ok {
				return nil, fmt.Errorf("%s: article %d (id %s) comment %d: field fallacy: unknown label %q", name, ai+1, a.ID, ci+1, c.Fallacy)
			}
			if strings.TrimSpace(c.Comment) == "" {
				return nil, fmt.Errorf("%s: article %d comment %d: field comment: empty", name, ai+1, ci+1)
			}
			out = append(out, Item{ID: "cocolofa/" + c.ID.String(), Corpus: "cocolofa", Text: c.Comment, Context: a.Title,
				Gold: gold, Split: split, Source: name})
		}
	}
	return out, nil
}
