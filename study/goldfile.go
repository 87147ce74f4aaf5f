package study

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// ParseDecoyFile reads decoys a researcher wrote (study create
// --decoy-file): a CSV with a header — text, optionally context, and a
// column per question whose known answer the row gives (by key or label;
// empty: not known). Each row is a decoy of the pool the study plants
// from, beside its kind's own: items in the register of the real ones
// with the answers a kind's records cannot know (a valid argument in an
// LLM's words among LLM-written foils, say). name is the file, for
// errors, which give its line and column.
func ParseDecoyFile(data []byte, name string, qs []Question) ([]Item, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("%s: not UTF-8 text (save it as CSV UTF-8)", name)
	}
	r := csv.NewReader(bytes.NewReader(data))
	if first, _, _ := bytes.Cut(data, []byte("\n")); bytes.Count(first, []byte(";")) > bytes.Count(first, []byte(",")) {
		r.Comma = ';'
	}
	rows, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(rows) < 2 {
		return nil, fmt.Errorf("%s: no decoys (a header, then a row per decoy)", name)
	}
	hdr := rows[0]
	textCol, ctxCol := -1, -1
	qcol := map[int]Question{}
	for j, h := range hdr {
		h = strings.TrimSpace(h)
		switch h {
		case "text":
			textCol = j
		case "context":
			ctxCol = j
		default:
			i := slices.IndexFunc(qs, func(q Question) bool { return q.ID == h })
			if i < 0 || !qs[i].Coded() {
				var ids []string
				for _, q := range qs {
					if q.Coded() {
						ids = append(ids, q.ID)
					}
				}
				return nil, fmt.Errorf("%s line 1 column %d: %q is not text, context or a question of the study (%s)", name, j+1, h, strings.Join(ids, ", "))
			}
			qcol[j] = qs[i]
		}
	}
	if textCol < 0 || len(qcol) == 0 {
		return nil, fmt.Errorf("%s line 1: want a text column and a column per question whose answer is known", name)
	}
	var out []Item
	for n, row := range rows[1:] {
		line := n + 2
		it := Item{Key: fmt.Sprintf("gold:%d", n+1), Text: strings.TrimSpace(row[textCol]), Known: map[string]string{}}
		if ctxCol >= 0 {
			it.Context = strings.TrimSpace(row[ctxCol])
		}
		if it.Text == "" {
			return nil, fmt.Errorf("%s line %d column %d (text): empty", name, line, textCol+1)
		}
		for j, q := range qcol {
			v := strings.TrimSpace(row[j])
			if v == "" {
				continue
			}
			if k := q.Normalize(v); q.Accepts(k) {
				it.Known[q.ID] = k
				continue
			}
			return nil, fmt.Errorf("%s line %d column %d (%s): %q is not one of its answers", name, line, j+1, q.ID, v)
		}
		if len(it.Known) == 0 {
			return nil, fmt.Errorf("%s line %d: no known answer", name, line)
		}
		out = append(out, it)
	}
	return out, nil
}
