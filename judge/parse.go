// Package judge turns LLM-judge outputs into validated rubric scores: it
// builds the structured-output schema of a binary rubric, parses raw judge
// text with DeflectBench's upstream rules (SPEC B.3) — a failure is a parse
// error, never zeros — checks consistency rules, and combines several judges
// into a consensus (SPEC B.4, G.1).
package judge

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Missing is the value of a field that is absent or not 0/1.
const Missing = -1

// Scores is one judge's parse of one response. Values maps each rubric field
// to 0, 1 or Missing.
type Scores struct {
	Values     map[string]int `json:"values"`
	Reasoning  string         `json:"reasoning"`
	ParseError bool           `json:"parse_error"`
}

// Rubric is a set of binary fields a judge must score.
type Rubric struct {
	Fields []string
}

// Schema returns the JSON schema for structured output: a reasoning string
// followed by every field as an integer 0 or 1, all required.
func (r Rubric) Schema() map[string]any {
	props := map[string]any{"reasoning": map[string]any{"type": "string"}}
	req := []any{"reasoning"}
	for _, f := range r.Fields {
		props[f] = map[string]any{"type": "integer", "enum": []any{0, 1}}
		req = append(req, f)
	}
	return map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
}

// Parse implements parse_scores of SPEC B.3:
//  1. strip the text;
//  2. if it starts with ``` take the part between the first two fences, drop
//     a leading "json", strip again;
//  3. decode JSON; a decode error or a non-object is a parse error (every field
//     Missing, no reasoning);
//  4. each field: a JSON boolean becomes 0/1; a number equal to 0 or 1 becomes
//     that integer (1.0 → 1); anything else — "1", 2, null, absent — is Missing.
//     With duplicate keys the last one wins.
//  5. reasoning is the string form of the "reasoning" value ("" if absent).
func (r Rubric) Parse(raw string) Scores {
	clean := strings.TrimSpace(raw)
	if strings.HasPrefix(clean, "```") {
		parts := strings.Split(clean, "```")
		clean = parts[1]
		clean = strings.TrimPrefix(clean, "json")
		clean = strings.TrimSpace(clean)
	}
	s := Scores{Values: make(map[string]int, len(r.Fields))}
	var obj map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader([]byte(clean)))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil || obj == nil || dec.More() {
		// Python's json.loads also rejects trailing data.
		s.ParseError = true
		for _, f := range r.Fields {
			s.Values[f] = Missing
		}
		return s
	}
	for _, f := range r.Fields {
		s.Values[f] = binaryValue(obj[f])
	}
	if raw, ok := obj["reasoning"]; ok {
		s.Reasoning = pyStr(raw)
	}
	return s
}

func binaryValue(raw json.RawMessage) int {
	if raw == nil {
		return Missing
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return Missing
	}
	switch x := v.(type) {
	case bool:
		if x {
			return 1
		}
		return 0
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return Missing
		}
		if f == 0 {
			return 0
		}
		if f == 1 {
			return 1
		}
	}
	return Missing
}

// pyStr renders a JSON value the way Python's str() renders the decoded value
// for the common cases (strings as is, null as None, booleans as True/False).
func pyStr(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	}
	return string(raw)
}
