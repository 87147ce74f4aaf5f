package study

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store"
)

// A records study puts any Task's records (those its viewer lists,
// bench.Lists: a prompt set's answers, a classification run's
// predictions) to people, with questions from a YAML file: what each
// record shows them and what it asks.
//
//	show: [answer]            # the listing's columns annotators read (default: its last)
//	questions:
//	  - id: on_topic
//	    text: Does the answer address the prompt?
//	    choices: [{key: "1", label: "yes"}, {key: "0", label: "no"}]
//	    positive: "1"
//	  - id: quality
//	    text: How good is it?
//	    type: likert           # keys 1 … scale
//	    scale: 5
//	    low: poor
//	    high: excellent
//	  - id: flaws
//	    text: Which of these does it show?
//	    type: multi            # one or more; each choice's agreement measured as a yes / no
//	    choices: [{key: hedge, label: hedging}, {key: attack, label: personal attack}]
//	  - id: why
//	    text: What is off-topic in it?
//	    type: text
//	    when: {question: on_topic, is: "0"}
//	    optional: false        # the default; a "when" question is asked only then
//	decoys:                    # the run's records whose answer is known, by a column
//	  - {column: id, like: "control-on-*", known: {on_topic: "1"}}
//	  - {column: id, is: "control-off-3", known: {on_topic: "0"}}
//
// Decoys are records of the run itself, shown as every other is (the same
// source, the same columns), so nothing on the page tells one: the control
// prompts a prompt set holds beside its real ones, say. A record a rule
// matches (its column reads is, or matches the like pattern: * any text, ?
// one character) is a decoy and never sampled; the first rule that
// matches gives its known answers.

// RecordsKind is the kind of a records study.
const RecordsKind Kind = "records"

// Custom is a records study's questions and the columns it shows.
type Custom struct {
	Show      []string
	Questions []Question
	Decoys    []DecoyRule
}

// DecoyRule makes the run's records whose Column reads Is decoys with
// the Known answers (question → choice).
type DecoyRule struct {
	Column string            `yaml:"column"`
	Is     string            `yaml:"is"`
	Like   string            `yaml:"like"`
	Known  map[string]string `yaml:"known"`
}

// Matches reports whether a record whose column reads v is the rule's.
func (r DecoyRule) Matches(v string) bool {
	if r.Like != "" {
		ok, _ := path.Match(r.Like, v)
		return ok
	}
	return v == r.Is
}

type customFile struct {
	Show      []string    `yaml:"show"`
	Questions []yaml.Node `yaml:"questions"`
	Decoys    []yaml.Node `yaml:"decoys"`
}

// customKeys are the fields a question of the YAML may have.
var customKeys = []string{"id", "text", "type", "choices", "positive", "scale", "low", "high", "optional", "when"}

type customQuestion struct {
	ID       string         `yaml:"id"`
	Text     string         `yaml:"text"`
	Type     string         `yaml:"type"`
	Choices  []customChoice `yaml:"choices"`
	Positive string         `yaml:"positive"`
	Scale    int            `yaml:"scale"`
	Low      string         `yaml:"low"`
	High     string         `yaml:"high"`
	Optional bool           `yaml:"optional"`
	When     *When          `yaml:"when"`
}

// customChoice is a choice as the YAML writes it: {key, label, help}, or
// a word alone (choices: [yes, no]), both its key and its label.
type customChoice Choice

// UnmarshalYAML implements yaml.Unmarshaler.
func (c *customChoice) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*c = customChoice{Key: n.Value, Label: n.Value}
		return nil
	}
	var full struct {
		Key   string `yaml:"key"`
		Label string `yaml:"label"`
		Help  string `yaml:"help"`
	}
	if err := n.Decode(&full); err != nil {
		return err
	}
	*c = customChoice(full)
	return nil
}

// ParseCustom reads a records study's YAML (name: the file, for errors,
// which give its line).
func ParseCustom(data []byte, name string) (Custom, error) {
	var f customFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return Custom{}, fmt.Errorf("%s: %w", name, err)
	}
	if len(f.Questions) == 0 {
		return Custom{}, fmt.Errorf("%s: no questions (a list under questions:)", name)
	}
	out := Custom{Show: f.Show}
	for _, n := range f.Questions {
		q, err := parseQuestion(n, name, out.Questions)
		if err != nil {
			return Custom{}, err
		}
		out.Questions = append(out.Questions, q)
	}
	for _, n := range f.Decoys {
		r, err := parseDecoyRule(n, name, out.Questions)
		if err != nil {
			return Custom{}, err
		}
		out.Decoys = append(out.Decoys, r)
	}
	return out, nil
}

// parseQuestion reads one question of the file; earlier are the questions
// before it (a question's when names one of them).
func parseQuestion(n yaml.Node, name string, earlier []Question) (Question, error) {
	if n.Kind == yaml.MappingNode {
		for i := 0; i < len(n.Content); i += 2 {
			if k := n.Content[i]; !slices.Contains(customKeys, k.Value) {
				return Question{}, fmt.Errorf("%s line %d: field %s not found (a question has %s)", name, k.Line, k.Value, strings.Join(customKeys, ", "))
			}
		}
	}
	var c customQuestion
	if err := n.Decode(&c); err != nil {
		return Question{}, fmt.Errorf("%s: %w", name, err)
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s line %d: question %q: %s", name, n.Line, c.ID, fmt.Sprintf(format, a...))
	}
	switch {
	case c.ID == "" || strings.ContainsAny(c.ID, " ,\t\n"):
		return Question{}, bad("id: give one word")
	case slices.ContainsFunc(earlier, func(o Question) bool { return o.ID == c.ID }):
		return Question{}, bad("id: asked twice")
	case c.Text == "":
		return Question{}, bad("text: say what is asked")
	}
	q, why := c.typed()
	if why != "" {
		return Question{}, bad("%s", why)
	}
	keys := map[string]bool{}
	for _, ch := range q.Choices {
		if ch.Key == "" || ch.Label == "" || keys[ch.Key] {
			return Question{}, bad("choices: each needs a key of its own and a label")
		}
		keys[ch.Key] = true
	}
	if c.Positive != "" && !keys[c.Positive] {
		return Question{}, bad("positive %q is not one of its choices", c.Positive)
	}
	if c.When != nil {
		i := slices.IndexFunc(earlier, func(o Question) bool { return o.ID == c.When.Question })
		if i < 0 || !earlier[i].Has(c.When.Is) || earlier[i].Type == FreeText {
			return Question{}, bad("when: name an earlier choice question and one of its choices")
		}
	}
	return q, nil
}

// typed is the question its type makes (a likert question's choices are
// its scale's points), or why the file's question is not one.
func (c customQuestion) typed() (Question, string) {
	q := Question{ID: c.ID, Text: c.Text, Positive: c.Positive, Optional: c.Optional, When: c.When}
	for _, ch := range c.Choices {
		q.Choices = append(q.Choices, Choice(ch))
	}
	switch c.Type {
	case "", "choice":
		if len(c.Choices) < 2 {
			return q, "choices: give two or more"
		}
	case Likert:
		if c.Scale < 2 || c.Scale > 11 || len(c.Choices) > 0 {
			return q, "a likert question has a scale of 2 to 11 points and no choices"
		}
		q.Type, q.Choices = Likert, nil
		for i := 1; i <= c.Scale; i++ {
			label := strconv.Itoa(i)
			switch {
			case i == 1 && c.Low != "":
				label += " — " + c.Low
			case i == c.Scale && c.High != "":
				label += " — " + c.High
			}
			q.Choices = append(q.Choices, Choice{Key: strconv.Itoa(i), Label: label})
		}
	case Multi:
		if len(c.Choices) < 2 || c.Positive != "" {
			return q, "a multi question has two or more choices and no positive one (each choice is counted as a yes / no of its own)"
		}
		if slices.ContainsFunc(q.Choices, func(ch Choice) bool { return strings.Contains(ch.Key, ",") }) {
			return q, "choices: a multi question's keys hold no comma (its answers are keys joined by commas)"
		}
		q.Type = Multi
	case FreeText:
		if len(c.Choices) > 0 || c.Positive != "" {
			return q, "a text question has no choices"
		}
		q.Type = FreeText
	default:
		return q, fmt.Sprintf("type %q: want choice, multi, likert or text", c.Type)
	}
	return q, ""
}

// parseDecoyRule reads one decoy rule of the file: its known answers must
// be choices of the file's questions.
func parseDecoyRule(n yaml.Node, name string, questions []Question) (DecoyRule, error) {
	var r DecoyRule
	dec := func() error { // unknown fields refused, as the file's
		var b bytes.Buffer
		enc := yaml.NewEncoder(&b)
		if err := enc.Encode(&n); err != nil {
			return err
		}
		d := yaml.NewDecoder(&b)
		d.KnownFields(true)
		return d.Decode(&r)
	}
	if err := dec(); err != nil {
		return r, fmt.Errorf("%s line %d: decoy: %w", name, n.Line, err)
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s line %d: decoy: %s", name, n.Line, fmt.Sprintf(format, a...))
	}
	if r.Column == "" || len(r.Known) == 0 || (r.Is == "") == (r.Like == "") {
		return r, bad("give a column, the value it reads (is) or a pattern (like), and the known answers (known: {question: choice})")
	}
	if _, err := path.Match(r.Like, ""); err != nil {
		return r, bad("like %q: %v", r.Like, err)
	}
	for qid, v := range r.Known {
		i := slices.IndexFunc(questions, func(o Question) bool { return o.ID == qid })
		if i < 0 || !questions[i].Coded() || !questions[i].Accepts(v) {
			return r, bad("known: %s=%q is not a choice of a question of the file", qid, v)
		}
	}
	return r, nil
}

// RecordsStudy is the records kind: any Task's listed records, the YAML's
// questions.
var RecordsStudy = RegisterKind(KindSpec{
	Kind:    RecordsKind,
	Summary: "any run's records its viewer lists (a prompt set's answers, a classification's predictions), with the questions of a YAML file (--questions: choice, multi, likert, text; optional; asked when another question has an answer; decoys: the records a column marks, with known answers)",
	Items:   recordItems,
	Analyze: humanAnswers,
})

// humanAnswers is what a records study finds: each coded question's human
// answers over the sampled items — the answer more than half of an item's
// counted annotators gave, or an adjudicator's where one was set — as
// shares with Wilson intervals, the items without one counted apart. A
// multi question's choices are each a yes / no.
func humanAnswers(rep *report.Report, s Study, anns []Annotation, o AnalyzeOptions) error {
	es, ans := expandMulti(s, index(anns))
	sec := rep.AddSection("Human answers", "Each sampled item's human answer: the answer more than half of its counted annotators gave, or the adjudicator's where one was set. Shares are of the items with a human answer (Wilson intervals); items without one (a tie, or nobody answered) are counted apart. A multi question's choices are each a yes / no.")
	t := sec.Add(&report.Table{ID: "human_answers", Title: "Human answers by question", Columns: report.Cols("question", "answer", "items", "share")})
	for _, q := range es.Questions {
		if !q.Coded() {
			continue
		}
		count := map[string]int{}
		decided, open, adjudicated := 0, 0, 0
		for _, it := range es.Items {
			if it.Decoy {
				continue
			}
			v, n := majority(ans, it.Key, q.ID)
			if _, ok := ans.Adjudicated(it.Key, q.ID); ok {
				adjudicated++
			}
			switch {
			case v != "":
				count[v]++
				decided++
			case n > 0:
				open++
			}
		}
		for _, c := range q.Choices {
			t.Rows = append(t.Rows, []report.Cell{report.T(q.ID), report.T(c.Label), report.I(count[c.Key]), o.Prop(count[c.Key], decided)})
		}
		note := "no majority (a tie)"
		if adjudicated > 0 {
			note = fmt.Sprintf("no majority (a tie); %d items adjudicated are counted above", adjudicated)
		}
		t.Rows = append(t.Rows, []report.Cell{report.T(q.ID), report.T(note), report.I(open), report.NA("")})
	}
	return nil
}

// recordItems are a run's listed records: each shows the columns the
// YAML names (every column hidden), keyed by the record's key.
func recordItems(ctx context.Context, d Draw) (cands, decoys []Item, facts map[string]string, err error) {
	t, ok := bench.TaskOf(d.Run.Benchmark)
	lists, isList := t.(bench.Lists)
	if !ok || !isList {
		return nil, nil, nil, fmt.Errorf("run %d is a %s run, whose records no list shows: a records study needs a run whose viewer lists them", d.Run.ID, d.Run.Benchmark)
	}
	l := lists.Listing()
	show := d.Show
	if len(show) == 0 {
		show = l.Columns[len(l.Columns)-1:]
	}
	var idx []int
	for _, c := range show {
		i := slices.Index(l.Columns, c)
		if i < 0 {
			return nil, nil, nil, fmt.Errorf("show: %s lists no column %q (its columns: %s)", d.Run.Benchmark, c, strings.Join(l.Columns, ", "))
		}
		idx = append(idx, i)
	}
	for _, rule := range d.Decoys {
		if !slices.Contains(l.Columns, rule.Column) {
			return nil, nil, nil, fmt.Errorf("decoys: %s lists no column %q (its columns: %s)", d.Run.Benchmark, rule.Column, strings.Join(l.Columns, ", "))
		}
	}
	err = d.Records.Records(ctx, d.Run.ID, l.Kind, func(r store.Record) error {
		row, err := l.Row(r)
		if err != nil {
			return fmt.Errorf("record %s: %w", r.Key, err)
		}
		it := Item{Key: r.Key, Hidden: map[string]string{}}
		var parts []string
		for _, i := range idx {
			if len(idx) == 1 {
				parts = append(parts, row[i])
			} else {
				parts = append(parts, l.Columns[i]+": "+row[i])
			}
		}
		it.Text = strings.Join(parts, "\n")
		for i, c := range l.Columns {
			it.Hidden[c] = row[i]
		}
		it.Stratum = StratumOf(d.Stratify, func(k string) string { return it.Hidden[k] })
		for _, rule := range d.Decoys {
			if rule.Matches(it.Hidden[rule.Column]) {
				it.Known = rule.Known
				decoys = append(decoys, it)
				return nil
			}
		}
		cands = append(cands, it)
		return nil
	})
	return cands, decoys, nil, err
}
