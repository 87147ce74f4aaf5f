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
