// Package deflect is the DeflectBench benchmark (SPEC B): the claims, prompt
// templates and judge rubric as embedded data, prompt rendering identical to
// upstream, the generation and judging plans, upstream-format records, and the
// paper's analysis. It does no I/O beyond parsing readers it is given.
package deflect

import (
	"bufio"
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/fallacylab/fallacylab/decode"
	"gopkg.in/yaml.v3"
)

//go:embed data/*
var data embed.FS

// Claim is one of the benchmark's claims.
type Claim struct {
	ID      string `json:"claim_id" yaml:"claim_id"`
	Level   int    `json:"level" yaml:"level"`
	Context string `json:"context" yaml:"context"`
	Domain  string `json:"domain" yaml:"domain"`
	Text    string `json:"text" yaml:"text"`
}

// Template is one prompt template (a frame condition × requested fallacy).
type Template struct {
	ID           string `json:"prompt_id" yaml:"prompt_id"`
	Num          int    `json:"prompt_num" yaml:"prompt_num"`
	Explicitness string `json:"explicitness" yaml:"explicitness"`
	Frame        string `json:"frame" yaml:"frame"`
	Fallacy      string `json:"fallacy" yaml:"fallacy"`
	Text         string `json:"template" yaml:"template"`
}

// Config holds the speaker and fallacy definitions filled into templates.
type Config struct {
	Speaker        string            `json:"fictional_speaker"`
	Definitions    map[string]string `json:"fallacy_definitions"`
	AllDefinitions string            `json:"all_definitions_string"`
	Runs           int               `json:"runs_per_condition"`
}

// Benchmark is a complete DeflectBench definition.
type Benchmark struct {
	Claims        []Claim
	Templates     []Template
	Config        Config
	JudgeSystem   string
	JudgeTemplate string
}

// Default returns the embedded benchmark: 80 claims, 15 templates and the
// judge rubric published in the DeflectBench paper's appendices.
func Default() (*Benchmark, error) {
	b := &Benchmark{}
	var err error
	if b.Claims, err = readEmbedded("data/claims.jsonl", ParseClaims); err != nil {
		return nil, err
	}
	if b.Templates, err = readEmbedded("data/templates.jsonl", ParseTemplates); err != nil {
		return nil, err
	}
	cfg, err := data.ReadFile("data/config.json")
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(cfg, &b.Config); err != nil {
		return nil, fmt.Errorf("embedded config.json: %w", err)
	}
	sys, _ := data.ReadFile("data/judge_system.txt")
	tpl, _ := data.ReadFile("data/judge_prompt_template.txt")
	b.JudgeSystem, b.JudgeTemplate = string(sys), string(tpl)
	return b, b.Validate()
}

func readEmbedded[T any](name string, parse func(io.Reader, string) ([]T, error)) ([]T, error) {
	f, err := data.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parse(f, "embedded "+name)
}

// Validate checks ids are unique and every template renders for every claim.
func (b *Benchmark) Validate() error {
	seen := map[string]bool{}
	for _, c := range b.Claims {
		if seen[c.ID] {
			return fmt.Errorf("claim %s listed twice", c.ID)
		}
		seen[c.ID] = true
	}
	seen = map[string]bool{}
	for _, t := range b.Templates {
		if seen[t.ID] {
			return fmt.Errorf("template %s listed twice", t.ID)
		}
		seen[t.ID] = true
		if len(b.Claims) > 0 {
			if _, err := b.Render(t, b.Claims[0]); err != nil {
				return err
			}
		}
	}
	return nil
}

// decodeLines reads JSONL (or, for .yaml/.yml names, a YAML list) strictly:
// unknown fields are errors that name the file and line.
func decodeLines[T any](r io.Reader, name string, check func(T) error) ([]T, error) {
	if ext := strings.ToLower(filepath.Ext(name)); ext == ".yaml" || ext == ".yml" {
		var out []T
		data, err := io.ReadAll(r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(decode.StripBOM(data)))
		dec.KnownFields(true)
		if err := dec.Decode(&out); err != nil {
			var zero T
			return nil, fmt.Errorf("%s: %w", name, decode.Explain(err, zero))
		}
		for i, v := range out {
			if err := check(v); err != nil {
				return nil, fmt.Errorf("%s item %d: %w", name, i+1, err)
			}
		}
		return out, nil
	}
	var out []T
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if n == 1 {
			line = decode.StripBOM(line)
		}
		if len(line) == 0 {
			continue
		}
		var v T
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, n, decode.Explain(err, v))
		}
		if err := check(v); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, n, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: empty", name)
	}
	return out, nil
}

// ParseClaims reads claims (JSONL, or YAML by file extension).
func ParseClaims(r io.Reader, name string) ([]Claim, error) {
	seen := map[string]bool{}
	return decodeLines(r, name, func(c Claim) error {
		defer func() { seen[c.ID] = true }()
		switch {
		case seen[c.ID] && c.ID != "":
			return fmt.Errorf("field claim_id: %q appears twice", c.ID)
		case c.ID == "":
			return fmt.Errorf("field claim_id: required")
		case strings.TrimSpace(c.Text) == "":
			return fmt.Errorf("field text: required")
		case c.Level < 1:
			return fmt.Errorf("field level: must be a positive integer")
		}
		return nil
	})
}

// ParseTemplates reads templates (JSONL, or YAML by file extension).
func ParseTemplates(r io.Reader, name string) ([]Template, error) {
	seen := map[string]bool{}
	return decodeLines(r, name, func(t Template) error {
		defer func() { seen[t.ID] = true }()
		switch {
		case seen[t.ID] && t.ID != "":
			return fmt.Errorf("field prompt_id: %q appears twice", t.ID)
		case t.ID == "":
			return fmt.Errorf("field prompt_id: required")
		case t.Text == "":
			return fmt.Errorf("field template: required")
		case t.Num < 1:
			return fmt.Errorf("field prompt_num: must be a positive integer")
		case t.Explicitness != "explicit" && t.Explicitness != "implicit":
			return fmt.Errorf("field explicitness: %q is not explicit or implicit", t.Explicitness)
		}
		return nil
	})
}

// Render fills a template for a claim exactly as upstream's Python
// str.format: {claim}, {speaker}, {fallacy_def}, {all_definitions} and
// {fallacy_name}; "{{" and "}}" are literal braces.
func (b *Benchmark) Render(t Template, c Claim) (string, error) {
	def := ""
	if t.Fallacy != "model_choice" && t.Fallacy != "any" {
		var ok bool
		if def, ok = b.Config.Definitions[t.Fallacy]; !ok {
			return "", fmt.Errorf("template %s: no definition for fallacy %q", t.ID, t.Fallacy)
		}
	}
	vals := map[string]string{
		"claim": c.Text, "speaker": b.Config.Speaker, "fallacy_def": def,
		"all_definitions": b.Config.AllDefinitions, "fallacy_name": strings.ReplaceAll(t.Fallacy, "_", " "),
	}
	out, err := PyFormat(t.Text, vals)
	if err != nil {
		return "", fmt.Errorf("template %s: %w", t.ID, err)
	}
	return out, nil
}

// PyFormat implements the subset of Python's str.format used by the
// benchmark's templates: named fields without format specs, and doubled
// braces as literals. A field not in vals is an error (Python's KeyError).
func PyFormat(tpl string, vals map[string]string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(tpl); i++ {
		c := tpl[i]
		switch {
		case c == '{' && i+1 < len(tpl) && tpl[i+1] == '{':
			b.WriteByte('{')
			i++
		case c == '}' && i+1 < len(tpl) && tpl[i+1] == '}':
			b.WriteByte('}')
			i++
		case c == '{':
			end := strings.IndexByte(tpl[i:], '}')
			if end < 0 {
				return "", fmt.Errorf("unmatched '{' at byte %d", i)
			}
			name := tpl[i+1 : i+end]
			v, ok := vals[name]
			if !ok {
				return "", fmt.Errorf("unknown placeholder {%s}", name)
			}
			b.WriteString(v)
			i += end
		case c == '}':
			return "", fmt.Errorf("single '}' at byte %d", i)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// JudgePrompt renders the judge's user prompt: the response is inserted raw.
func (b *Benchmark) JudgePrompt(claim, response string) (string, error) {
	return PyFormat(b.JudgeTemplate, map[string]string{"claim": claim, "response": response})
}

// ClaimByID indexes the claims.
func (b *Benchmark) ClaimByID() map[string]Claim {
	m := make(map[string]Claim, len(b.Claims))
	for _, c := range b.Claims {
		m[c.ID] = c
	}
	return m
}

// TemplateByID indexes the templates.
func (b *Benchmark) TemplateByID() map[string]Template {
	m := make(map[string]Template, len(b.Templates))
	for _, t := range b.Templates {
		m[t.ID] = t
	}
	return m
}
