// Package decode makes the errors of decoding a user's file (JSON lines,
// YAML) say what is wrong in the file's terms — the field, what it should
// be, the fields there are — never a Go type, and accepts a UTF-8 byte-order
// mark. encoding/json and yaml.v3 have no hook for this: their messages are
// rewritten here.
package decode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
)

// BOM is the UTF-8 byte-order mark some editors write first.
var BOM = []byte{0xEF, 0xBB, 0xBF}

// StripBOM removes a leading UTF-8 byte-order mark.
func StripBOM(b []byte) []byte { return bytes.TrimPrefix(b, BOM) }

var (
	unknownJSON = regexp.MustCompile(`^json: unknown field "([^"]*)"`)
	unknownYAML = regexp.MustCompile(`field (\S+) not found in type \S+`)
	typeJSON    = regexp.MustCompile(`cannot unmarshal (\w+)(?: (\S+))? into Go (?:struct field \S*?\.|value of type )(\S*?)(?: of type (\S+))?$`)
	listYAML    = regexp.MustCompile(`cannot unmarshal !!(\w+)(?: .*)? into \[\]`)
	typeYAML    = regexp.MustCompile("cannot unmarshal !!(\\w+) `([^`]*)` into (\\S+)")
)

// Fields are the names a struct's JSON (or YAML) tags give its fields.
func Fields(v any, tag string) []string {
	t := reflect.TypeOf(v)
	if t == nil {
		return nil
	}
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get(tag), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Explain rewrites a decoding error of one item of type like v.
func Explain(err error, v any) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("not valid JSON (%s at byte %d): each line must be one JSON object", strings.TrimPrefix(syn.Error(), "json: "), syn.Offset)
	case unknownJSON.MatchString(msg):
		m := unknownJSON.FindStringSubmatch(msg)
		return fmt.Errorf("unknown field %q: the fields are %s", m[1], strings.Join(Fields(v, "json"), ", "))
	case unknownYAML.MatchString(msg):
		m := unknownYAML.FindStringSubmatch(msg)
		return fmt.Errorf("unknown field %q: the fields are %s", m[1], strings.Join(Fields(v, "yaml"), ", "))
	case typeJSON.MatchString(msg):
		m := typeJSON.FindStringSubmatch(msg)
		got, literal, field, goType := jsonKind(m[1]), m[2], m[3], m[4]
		if goType == "" { // the whole line
			return fmt.Errorf("want a JSON object with fields %s, got %s", strings.Join(Fields(v, "json"), ", "), got)
		}
		if m[1] == "number" && literal != "" { // 1.5 for a whole number, -1 for an unsigned one, or too large
			return fmt.Errorf("field %s: want %s, got %s", field, kindWord(goType), literal)
		}
		return fmt.Errorf("field %s: want %s, got %s", field, kindWord(goType), got)
	case listYAML.MatchString(msg):
		m := listYAML.FindStringSubmatch(msg)
		return fmt.Errorf("want a list of items (each starting with \"- \"), got a %s", yamlKind(m[1]))
	case typeYAML.MatchString(msg):
		m := typeYAML.FindStringSubmatch(msg)
		return fmt.Errorf("value %q: want %s, got a %s", m[2], kindWord(m[3]), yamlKind(m[1]))
	}
	return err
}

// kindWord is what a Go type takes, in a file's terms ("a whole number",
// "a list of strings").
func kindWord(goType string) string {
	goType = strings.TrimLeft(goType, "*")
	if elem, ok := strings.CutPrefix(goType, "[]"); ok {
		switch strings.TrimLeft(elem, "*") {
		case "string":
			return "a list of strings"
		case "int", "int64", "int32", "uint64", "uint", "float64", "float32":
			return "a list of numbers"
		}
		return "a list"
	}
	switch goType {
	case "int", "int64", "int32":
		return "a whole number"
	case "uint64", "uint", "uint32":
		return "a whole number, 0 or more"
	case "float64", "float32":
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	}
	return "an object"
}

// jsonKind is a JSON value's kind as encoding/json names it ("array",
// "object", "number", "string", "bool"), with its article, in a file's
// terms.
func jsonKind(kind string) string {
	switch kind {
	case "array":
		return "a list"
	case "object":
		return "an object"
	case "bool":
		return "true or false"
	}
	return "a " + kind
}

func yamlKind(tag string) string {
	switch tag {
	case "map":
		return "mapping"
	case "seq":
		return "list"
	case "str":
		return "string"
	case "int", "float":
		return "number"
	}
	return tag
}
