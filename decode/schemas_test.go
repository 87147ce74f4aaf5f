package decode_test

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/bench/deflect"
	"github.com/fallacylab/fallacylab/bench/foils"
	"github.com/fallacylab/fallacylab/bench/missci"
	"github.com/fallacylab/fallacylab/bench/prompts"
	"github.com/fallacylab/fallacylab/decode"
	"github.com/fallacylab/fallacylab/detect"
	"github.com/fallacylab/fallacylab/internal/config"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

const schemas = "../docs/schemas"

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

// csvRows reads a CSV as one object per row, header to value.
func csvRows(t *testing.T, path string) []any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []any
	for _, r := range recs[1:] {
		row := map[string]any{}
		for i, h := range recs[0] {
			row[h] = r[i]
		}
		out = append(out, row)
	}
	return out
}

// yamlDoc reads one YAML document as a generic JSON value.
func yamlDoc(t *testing.T, path string) any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	j, _ := json.Marshal(doc)
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// configFields are the config's top-level keys as its loader reads them.
func configFields() []string { return decode.Fields(config.Config{}, "yaml") }

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
			append(jsonLines(t, "../bench/deflect/data/claims.jsonl"), yamlList(t, "../docs/examples/claims-de.yaml")...),
			[]string{`{"claim": "x"}`, `{"claim_id": "a", "level": "one", "text": "t"}`, `{"claim_id": "a", "level": 0, "text": "t"}`, `{"claim_id": "a", "level": 1}`}},
		{"templates.schema.json", decode.Fields(deflect.Template{}, "json"),
			append(jsonLines(t, "../bench/deflect/data/templates.jsonl"), jsonLines(t, "../docs/examples/templates-de.jsonl")...),
			[]string{`{"prompt_id": "p", "prompt_num": 1, "explicitness": "sometimes", "fallacy": "any", "template": "x"}`,
				`{"prompt_id": "p", "prompt_num": 1, "explicitness": "explicit", "fallacy": "strawman", "template": "x"}`}},
		{"missci-predictions.schema.json", decode.Fields(missci.PredictionLine{}, "json"),
			jsonLines(t, "../docs/examples/missci-predictions.jsonl"),
			[]string{`{"id": "arg-70:1"}`, `{"id": "70", "answer": "x"}`, `{"id": "arg-70:1", "predictions": [{"premise": "p"}]}`, `{"id": "arg-70:1", "predictions": []}`}},
		{"detector-predictions.schema.json", []string{"id", "label", "seed"},
			csvRows(t, "../docs/examples/detector-predictions.csv"),
			[]string{`{"id": "a"}`, `{"id": "", "label": "none"}`}},
		{"config.schema.json", configFields(),
			[]any{yamlDoc(t, "../docs/examples/fallacylab.yaml")},
			[]string{`{"endpoint": {}}`, `{"endpoints": {"x": {"type": "grpc"}}}`, `{"limits": {"x": {"rpm": -1}}}`, `{"prices": {"gpt-4": {"input": 1, "output": 2}}}`,
				`{"prices": {"openai:m": {"input": 1}}}`}},
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

// The docs' examples load with the real loaders too, and the config
// schema's nested objects name the loader's fields.
func TestExamplesLoad(t *testing.T) {
	cfg, err := config.Load("../docs/examples/fallacylab.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Endpoints["mylab"].BaseURL != "http://gpu-box:8000/v1" || cfg.Limits["anthropic"].RPM != 1000 {
		t.Fatalf("config example: %+v", cfg)
	}
	for _, seed := range []string{"1", "2"} {
		f, err := os.Open("../docs/examples/detector-predictions.csv")
		if err != nil {
			t.Fatal(err)
		}
		_, err = detect.LoadFileSeed(f, "detector-predictions.csv", seed)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	// #41 item 20: the example speaks the detector protocol (its ids, its
	// labels: docs/detector-protocol.md).
	for _, row := range csvRows(t, "../docs/examples/detector-predictions.csv") {
		r := row.(map[string]any)
		id, label := r["id"].(string), r["label"].(string)
		if !strings.HasPrefix(id, "T:") && !strings.HasPrefix(id, "M:") && !strings.HasPrefix(id, "W:") {
			t.Errorf("example id %q is not a protocol id (T:, M: or W:)", id)
		}
		if _, ok := foils.NormalizeLabel(label); !ok {
			t.Errorf("example label %q of %s is not one of the audit's labels", label, id)
		}
	}
	raw, _ := os.ReadFile(filepath.Join(schemas, "config.schema.json"))
	var doc struct {
		Properties map[string]struct {
			AdditionalProperties struct {
				Properties map[string]any `json:"properties"`
			} `json:"additionalProperties"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for key, fields := range map[string][]string{"endpoints": decode.Fields(config.Endpoint{}, "yaml"),
		"limits": decode.Fields(config.Limits{}, "yaml"), "prices": decode.Fields(llm.Price{}, "yaml")} {
		var props []string
		for k := range doc.Properties[key].AdditionalProperties.Properties {
			props = append(props, k)
		}
		sort.Strings(props)
		if strings.Join(props, ",") != strings.Join(fields, ",") {
			t.Errorf("config.schema.json %s names %v, the loader reads %v", key, props, fields)
		}
	}
}
