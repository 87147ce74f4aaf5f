package decode_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/bench/deflect"
	"github.com/fallacylab/fallacylab/bench/prompts"
	"github.com/fallacylab/fallacylab/internal/decode"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

const schemas = "../../docs/schemas"

func compile(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	s, err := c.Compile(filepath.Join(schemas, name))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// jsonLines reads a JSONL file as generic values.
func jsonLines(t *testing.T, path string) []any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
	}
	return out
}

// yamlList reads a YAML list as generic JSON values.
func yamlList(t *testing.T, path string) []any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var items []map[string]any
	if err := yaml.Unmarshal(b, &items); err != nil {
		t.Fatal(err)
	}
	var out []any
	for _, it := range items {
		j, _ := json.Marshal(it)
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// The documented schemas accept the embedded data and the docs' examples,
// refuse what the loaders refuse, and name exactly the loaders' fields.
func TestSchemas(t *testing.T) {
	for _, c := range []struct {
		schema string
		fields []string
		good   []any
		bad    []string
	}{
		{"claims.schema.json", decode.Fields(deflect.Claim{}, "json"),
			append(jsonLines(t, "../../bench/deflect/data/claims.jsonl"), yamlList(t, "../../docs/examples/claims-de.yaml")...),
			[]string{`{"claim": "x"}`, `{"claim_id": "a", "level": "one", "text": "t"}`, `{"claim_id": "a", "level": 0, "text": "t"}`, `{"claim_id": "a", "level": 1}`}},
		{"templates.schema.json", decode.Fields(deflect.Template{}, "json"),
			append(jsonLines(t, "../../bench/deflect/data/templates.jsonl"), jsonLines(t, "../../docs/examples/templates-de.jsonl")...),
			[]string{`{"prompt_id": "p", "prompt_num": 1, "explicitness": "sometimes", "fallacy": "any", "template": "x"}`,
				`{"prompt_id": "p", "prompt_num": 1, "explicitness": "explicit", "fallacy": "strawman", "template": "x"}`}},
		{"prompts.schema.json", decode.Fields(prompts.Item{}, "json"),
			[]any{map[string]any{"prompt": "hi"}, map[string]any{"id": "a", "prompt": "hi", "temperature": json.Number("0.7"), "stop": []any{"\n"}}},
			[]string{`{"text": "hi"}`, `{"prompt": "hi", "temperature": 5}`, `{"prompt": "   "}`}},
	} {
		s := compile(t, c.schema)
		for i, v := range c.good {
			if err := s.Validate(v); err != nil {
				t.Errorf("%s refuses good item %d: %v", c.schema, i, err)
			}
		}
		for _, b := range c.bad {
			v, _ := jsonschema.UnmarshalJSON(strings.NewReader(b))
			if s.Validate(v) == nil {
				t.Errorf("%s accepts %s", c.schema, b)
			}
		}
		raw, _ := os.ReadFile(filepath.Join(schemas, c.schema))
		var doc struct {
			Properties map[string]any `json:"properties"`
		}
		json.Unmarshal(raw, &doc)
		var props []string
		for k := range doc.Properties {
			props = append(props, k)
		}
		sort.Strings(props)
		if strings.Join(props, ",") != strings.Join(c.fields, ",") {
			t.Errorf("%s names %v, the loader reads %v", c.schema, props, c.fields)
		}
	}
}
