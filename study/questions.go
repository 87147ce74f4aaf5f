package study

import (
	"fmt"
	"slices"
	"strings"
)

// YesNo is a binary question whose stored choices match the judges' 1 / 0.
func YesNo(id, text string) Question {
	return Question{ID: id, Text: text, Positive: "1", Choices: []Choice{{Key: "1", Label: "yes"}, {Key: "0", Label: "no"}}}
}

// Questions is what a kind of study asks; fields choose them for a kind
// that asks what --fields names (KindSpec.Fields).
func Questions(k Kind, fields []string) ([]Question, error) {
	switch k {
	}
	if spec, ok := SpecOf(k); ok {
		if spec.Fields != nil {
			return spec.Fields(fields)
		}
		if len(fields) > 0 {
			return nil, fmt.Errorf("--fields: a %s study asks what its benchmark declares", k)
		}
		return slices.Clone(spec.Questions), nil
	}
	return nil, fmt.Errorf("study kind %q: use %s", k, kindList())
}

func kindList() string {
	var s []string
	for _, k := range registeredKinds() {
		s = append(s, string(k))
	}
	return strings.Join(s, ", ")
}

// ParseKind validates a kind name.
func ParseKind(s string) (Kind, error) {
	if _, ok := SpecOf(Kind(s)); ok {
		return Kind(s), nil
	}
	return "", fmt.Errorf("study kind %q: use %s", s, kindList())
}

// Normalize maps what a person wrote in a sheet onto a choice key: the key
// or the label in any case ("n", "Valid"), and for a yes / no question
// also true / false, as the papers' sheets write them. Anything else is
// returned as written, for Validate to refuse.
func (q Question) Normalize(v string) string {
	v = strings.TrimSpace(v)
	if q.Type == Multi && v != "" {
		// A sheet's cell lists the picks by key or label, split by
		// commas, semicolons or bars, in any order.
		one := q
		one.Type = ""
		var keys []string
		for _, p := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ';' || r == '|' }) {
			keys = append(keys, one.Normalize(p))
		}
		if j := q.Joined(keys); j != "" {
			return j
		}
		return v
	}
	for _, c := range q.Choices {
		if strings.EqualFold(v, c.Key) || strings.EqualFold(v, c.Label) {
			return c.Key
		}
	}
	if q.Positive == "1" {
		switch strings.ToLower(v) {
		case "true", "y":
			return "1"
		case "false", "n":
			return "0"
		}
	}
	return v
}
