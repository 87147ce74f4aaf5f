package decode

import (
	"encoding/json"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

type item struct {
	ID    string   `json:"claim_id" yaml:"claim_id"`
	Level int      `json:"level" yaml:"level"`
	Text  string   `json:"text" yaml:"text"`
	Tags  []string `json:"tags" yaml:"tags"`
}

func TestExplain(t *testing.T) {
	jsonErr := func(s string) error {
		var v item
		dec := json.NewDecoder(strings.NewReader(s))
		dec.DisallowUnknownFields()
		return Explain(dec.Decode(&v), v)
	}
	for in, want := range map[string]string{
		`{"claim":"x"}`:      `unknown field "claim": the fields are claim_id, level, tags, text`,
		`{"level":"two"}`:    `field level: want a whole number, got a string`,
		`["a"]`:              `want a JSON object with fields claim_id, level, tags, text, got a list`,
		`{"level": 1.5}`:     `field level: want a whole number, got 1.5`,
		`{"tags": "x"}`:      `field tags: want a list of strings, got a string`,
		`{"text": [1]}`:      `field text: want a string, got a list`,
		`{"level": true}`:    `field level: want a whole number, got true or false`,
		`{"claim_id": "a",}`: `not valid JSON`,
		`{"text": 3}`:        `field text: want a string, got a number`,
	} {
		if got := jsonErr(in); got == nil || !strings.Contains(got.Error(), want) || strings.Contains(got.Error(), "Go ") || strings.Contains(got.Error(), "decode.item") {
			t.Errorf("%s: %v, want %q", in, got, want)
		}
	}
	yamlErr := func(s string) error {
		var v []item
		dec := yaml.NewDecoder(strings.NewReader(s))
		dec.KnownFields(true)
		return Explain(dec.Decode(&v), item{})
	}
	for in, want := range map[string]string{
		"claim_id: a\ntext: b\n":        "want a list of items",
		"- claim_id: a\n  claim: b\n":   `unknown field "claim": the fields are claim_id, level, tags, text`,
		"- claim_id: a\n  level: two\n": `value "two": want a whole number, got a string`,
	} {
		if got := yamlErr(in); got == nil || !strings.Contains(got.Error(), want) || strings.Contains(got.Error(), "decode.item") {
			t.Errorf("%q: %v, want %q", in, got, want)
		}
	}
	if string(StripBOM([]byte("\xEF\xBB\xBF{}"))) != "{}" {
		t.Fatal("BOM")
	}
}
