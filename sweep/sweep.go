// Package sweep reads a run described in a file (fallacylab run FILE.yaml,
// inspect_ai's eval-set and promptfoo's config are its models): the
// benchmarks to run, each with its command's options and the options it
// sweeps, expanded into one command line per run. It does no I/O: the
// caller reads the file and runs the commands.
package sweep

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Plan is a parsed plan file.
type Plan struct {
	// Store is the store every run goes to (--db; "" : the default).
	Store string
	// Flags are global flags every run gets (concurrency, budget, …).
	Flags []Option
	// Runs are the file's entries, in order.
	Runs []Entry
}

// Entry is one entry of the file: a benchmark's command with its options,
// and the options it sweeps.
type Entry struct {
	Benchmark string
	// Command is the benchmark's verb ("run"; Scheme Foils' "audit").
	Command string
	// Args are the command's arguments after its flags (a prompt set's
	// file).
	Args    []string
	Options []Option
	// Sweep are options with several values: one run per combination.
	Sweep []Swept
	// Line is where the entry starts in the file.
	Line int
}

// Option is one flag and its value as the command line writes it.
type Option struct {
	Name, Value string
	Line        int
}

// Swept is one swept flag and its values.
type Swept struct {
	Name   string
	Values []string
	Line   int
}

// Run is one expanded run: its entry, the values of its swept options,
// and its command line (global flags first).
type Run struct {
	Entry   int
	Swept   []Option
	Command []string
}

// Error is a plan file's error at a line and field.
type Error struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *Error) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.Msg)
}

// Parse reads a plan file's bytes; file names it in errors.
func Parse(file string, data []byte) (Plan, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Plan{}, fmt.Errorf("%s: %w", file, err)
	}
	if len(doc.Content) == 0 {
		return Plan{}, &Error{File: file, Line: 1, Msg: "the file is empty: it needs runs: (see docs/plan-file.md)"}
	}
	root := doc.Content[0]
	fail := func(n *yaml.Node, field, f string, a ...any) error {
		return &Error{File: file, Line: n.Line, Field: field, Msg: fmt.Sprintf(f, a...)}
	}
	if root.Kind != yaml.MappingNode {
		return Plan{}, fail(root, "", "the file must be a mapping with runs: (see docs/plan-file.md)")
	}
	var p Plan
	var runs *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "store":
			if v.Kind != yaml.ScalarNode {
				return Plan{}, fail(v, "store", "a store is a path or a postgres:// URL")
			}
			p.Store = v.Value
		case "flags":
			opts, err := options(file, "flags", v)
			if err != nil {
				return Plan{}, err
			}
			p.Flags = opts
		case "runs":
			runs = v
		default:
			return Plan{}, fail(k, k.Value, "unknown key: use store, flags or runs")
		}
	}
	if runs == nil || runs.Kind != yaml.SequenceNode || len(runs.Content) == 0 {
		at := root
		if runs != nil {
			at = runs
		}
		return Plan{}, fail(at, "runs", "a list of at least one run is needed")
	}
	for i, n := range runs.Content {
		e, err := entry(file, fmt.Sprintf("runs[%d]", i), n)
		if err != nil {
			return Plan{}, err
		}
		p.Runs = append(p.Runs, e)
	}
	return p, nil
}

// entry reads one entry of runs:.
func entry(file, field string, n *yaml.Node) (Entry, error) {
	fail := func(n *yaml.Node, f, msg string, a ...any) error {
		return &Error{File: file, Line: n.Line, Field: f, Msg: fmt.Sprintf(msg, a...)}
	}
	if n.Kind != yaml.MappingNode {
		return Entry{}, fail(n, field, "a run is a mapping with benchmark: and its options")
	}
	e := Entry{Command: "run", Line: n.Line}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		f := field + "." + k.Value
		var err error
		switch k.Value {
		case "benchmark", "command":
			if v.Kind != yaml.ScalarNode || v.Value == "" {
				return Entry{}, fail(v, f, "a name is needed")
			}
			if k.Value == "benchmark" {
				e.Benchmark = v.Value
			} else {
				e.Command = v.Value
			}
		case "args":
			e.Args, err = scalars(file, f, v)
		case "options":
			e.Options, err = options(file, f, v)
		case "sweep":
			e.Sweep, err = sweeps(file, f, v)
		default:
			return Entry{}, fail(k, f, "unknown key: use benchmark, command, args, options or sweep")
		}
		if err != nil {
			return Entry{}, err
		}
	}
	if e.Benchmark == "" {
		return Entry{}, fail(n, field+".benchmark", "missing: name the benchmark (classify, deflect, foils, …)")
	}
	for _, s := range e.Sweep {
		for _, o := range e.Options {
			if o.Name == s.Name {
				return Entry{}, &Error{File: file, Line: s.Line, Field: field + ".sweep." + s.Name, Msg: "also given under options: give it once"}
			}
		}
	}
	return e, nil
}

// options reads a mapping of flag names to values.
func options(file, field string, n *yaml.Node) ([]Option, error) {
	if n.Kind != yaml.MappingNode {
		return nil, &Error{File: file, Line: n.Line, Field: field, Msg: "a mapping of flag names to values is needed"}
	}
	var out []Option
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		val, err := value(file, field+"."+k.Value, v)
		if err != nil {
			return nil, err
		}
		out = append(out, Option{Name: k.Value, Value: val, Line: k.Line})
	}
	return out, nil
}

// sweeps reads a mapping of flag names to lists of values.
func sweeps(file, field string, n *yaml.Node) ([]Swept, error) {
	if n.Kind != yaml.MappingNode {
		return nil, &Error{File: file, Line: n.Line, Field: field, Msg: "a mapping of flag names to lists of values is needed"}
	}
	var out []Swept
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		f := field + "." + k.Value
		if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
			return nil, &Error{File: file, Line: v.Line, Field: f, Msg: "a list of the values to sweep is needed"}
		}
		s := Swept{Name: k.Value, Line: k.Line}
		for j, x := range v.Content {
			val, err := value(file, fmt.Sprintf("%s[%d]", f, j), x)
			if err != nil {
				return nil, err
			}
			s.Values = append(s.Values, val)
		}
		out = append(out, s)
	}
	return out, nil
}

// value is a flag's value as the command line writes it: a scalar as is,
// a list joined by commas (--models a,b).
func value(file, field string, n *yaml.Node) (string, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Value, nil
	case yaml.SequenceNode:
		vals, err := scalars(file, field, n)
		return strings.Join(vals, ","), err
	}
	return "", &Error{File: file, Line: n.Line, Field: field, Msg: "a value, or a list of values, is needed"}
}

// scalars reads a list of scalars.
func scalars(file, field string, n *yaml.Node) ([]string, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, &Error{File: file, Line: n.Line, Field: field, Msg: "a list is needed"}
	}
	var out []string
	for _, x := range n.Content {
		if x.Kind != yaml.ScalarNode {
			return nil, &Error{File: file, Line: x.Line, Field: field, Msg: "a list of plain values is needed"}
		}
		out = append(out, x.Value)
	}
	return out, nil
}

// Expand is the plan's runs: each entry once per combination of its swept
// values, in the file's order (the first swept option varies slowest).
func (p Plan) Expand() []Run {
	var global []string
	if p.Store != "" {
		global = append(global, "--db", p.Store)
	}
	for _, o := range p.Flags {
		global = append(global, flag(o.Name, o.Value))
	}
	var out []Run
	for i, e := range p.Runs {
		combos := [][]Option{nil}
		for _, s := range e.Sweep {
			var next [][]Option
			for _, c := range combos {
				for _, v := range s.Values {
					next = append(next, append(slices.Clone(c), Option{Name: s.Name, Value: v}))
				}
			}
			combos = next
		}
		for _, c := range combos {
			cmd := append(slices.Clone(global), e.Benchmark, e.Command)
			for _, o := range append(slices.Clone(e.Options), c...) {
				cmd = append(cmd, flag(o.Name, o.Value))
			}
			cmd = append(cmd, e.Args...)
			out = append(out, Run{Entry: i, Swept: c, Command: cmd})
		}
	}
	return out
}

// flag is one flag as the command line writes it: --name=value.
func flag(name, value string) string { return "--" + name + "=" + value }

// Write is a plan file for these command lines: what reproduces stored
// runs (runs show --as-plan). Each is split by split into its global
// flags, its benchmark, verb, options and arguments.
func Write(store string, flags map[string]string, runs []Entry) []byte {
	var b bytes.Buffer
	b.WriteString("# fallacylab run FILE.yaml: the runs below (see docs/plan-file.md)\n")
	if store != "" {
		fmt.Fprintf(&b, "store: %s\n", quote(store))
	}
	if len(flags) > 0 {
		b.WriteString("flags:\n")
		for _, k := range slices.Sorted(maps.Keys(flags)) {
			fmt.Fprintf(&b, "  %s: %s\n", k, quote(flags[k]))
		}
	}
	b.WriteString("runs:\n")
	for _, e := range runs {
		fmt.Fprintf(&b, "  - benchmark: %s\n", quote(e.Benchmark))
		if e.Command != "run" {
			fmt.Fprintf(&b, "    command: %s\n", quote(e.Command))
		}
		if len(e.Args) > 0 {
			b.WriteString("    args:\n")
			for _, a := range e.Args {
				fmt.Fprintf(&b, "      - %s\n", quote(a))
			}
		}
		if len(e.Options) > 0 {
			b.WriteString("    options:\n")
			for _, o := range e.Options {
				fmt.Fprintf(&b, "      %s: %s\n", o.Name, quote(o.Value))
			}
		}
	}
	return b.Bytes()
}

// quote writes a value YAML reads back as the same string.
func quote(s string) string {
	return strconv.Quote(s) // a JSON string is a YAML string
}
