package deflect

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/judge"
	"github.com/fallacylab/fallacylab/report"
)

// printoutRuns are the synthetic runs testdata/upstream/make_printouts.sh
// analysed with upstream analysis.py; their options must match its flags
// (the synth command's defaults: soft flip 0.05, API errors 0.0005).
var printoutRuns = []struct {
	name string
	opt  SynthOptions
}{
	{"paper", SynthOptions{Models: []string{"claude-opus-4-7", "deepseek-v4-pro", "gpt-5.5", "grok-4.3"}, Samples: 2, Seed: 7, SoftFlip: 0.05, ErrorRate: 0.0005}},
	{"other", SynthOptions{Models: []string{"alpha-7b", "beta-large", "gamma-2"}, Samples: 3, Seed: 11, SoftFlip: 0.05, ErrorRate: 0.003, JudgeNoise: 0.08, ParseErrors: 0.01}},
}

// TestUpstreamPrintout reads analysis.py's whole printout of two synthetic
// runs and checks that every number it prints has a counterpart in the
// report of the same run under --compat deflectbench-code that equals it at
// the printout's precision. Each printed number must be checked or set
// aside with a stated reason (labels, record listings, quoted text); one
// left over fails the test.
func TestUpstreamPrintout(t *testing.T) {
	for _, run := range printoutRuns {
		t.Run(run.name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", "upstream", "printout_"+run.name+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			d, _, err := Synthesize(run.opt)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Analyze(d, Options{Mode: judge.Code, Resamples: 20, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			h := newHarness(t, rep, d, run.opt.Samples)
			h.parse(string(raw))
			h.checkAll()
			checked, aside := h.tally()
			t.Logf("%s: %d printed numbers checked against the report, %d set aside as labels or listings", run.name, checked, aside)
			if checked < 500 {
				t.Errorf("only %d numbers checked", checked)
			}
		})
	}
}

// ptok is one number in the printout.
type ptok struct {
	raw     string
	val     float64
	dec     int // decimals printed
	field   int // index of its whitespace-separated field on the line
	done    bool
	aside   string
	checked bool
}

type pline struct {
	no     int
	text   string
	fields []string
	nums   []*ptok
}

// block is the lines under one heading: section, or section › subsection.
type pblock struct {
	section, sub string
	lines        []*pline
}

type harness struct {
	t       *testing.T
	rep     *report.Report
	all     []*pline
	blocks  []*pblock
	frameOf map[[2]string]string // (explicitness, frame) → our frame label
	byNum   map[string]string    // prompt_num → our frame label
	samples int
}

func newHarness(t *testing.T, rep *report.Report, d Dataset, samples int) *harness {
	h := &harness{t: t, rep: rep, frameOf: map[[2]string]string{}, byNum: map[string]string{}, samples: samples}
	for i := range d.Gens {
		g := &d.Gens[i]
		h.frameOf[[2]string{g.Explicitness, g.Frame}] = frameLabel(g)
		h.byNum[strconv.Itoa(g.PromptNum)] = frameLabel(g)
	}
	return h
}

// numberOf reads one printed number: thousands separators, a sign, a
// trailing % are allowed.
func numberOf(s string) (float64, int, bool) {
	s = strings.TrimRight(s, "%")
	if s == "" || strings.ContainsAny(s, "eE") {
		return 0, 0, false
	}
	plain := strings.ReplaceAll(s, ",", "")
	if plain != s && !thousands(s) {
		return 0, 0, false
	}
	v, err := strconv.ParseFloat(plain, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, 0, false
	}
	dec := 0
	if i := strings.IndexByte(plain, '.'); i >= 0 {
		dec = len(plain) - i - 1
	}
	return v, dec, true
}

func thousands(s string) bool {
	s = strings.TrimLeft(s, "+-")
	if i := strings.IndexByte(s, '.'); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ",")
	for i, p := range parts {
		if (i == 0 && (len(p) < 1 || len(p) > 3)) || (i > 0 && len(p) != 3) {
			return false
		}
	}
	return true
}

func (h *harness) parse(text string) {
	lines := strings.Split(text, "\n")
	var cur *pblock
	section := ""
	for i := 0; i < len(lines); i++ {
		s := lines[i]
		if strings.HasPrefix(s, "═") {
			if i+2 < len(lines) && strings.HasPrefix(lines[i+2], "═") {
				section = strings.TrimSpace(lines[i+1])
				cur = &pblock{section: section}
				h.blocks = append(h.blocks, cur)
				i += 2
			}
			continue
		}
		if strings.HasPrefix(s, "── ") {
			cur = &pblock{section: section, sub: strings.TrimSuffix(strings.TrimPrefix(s, "── "), " ──")}
			h.blocks = append(h.blocks, cur)
			continue
		}
		pl := &pline{no: i + 1, text: s, fields: strings.Fields(s)}
		for fi, f := range pl.fields {
			for _, part := range strings.Split(f, "/") {
				if j := strings.LastIndexAny(part, "=("); j >= 0 {
					part = part[j+1:]
				}
				part = strings.TrimRight(part, "):,%")
				if v, dec, ok := numberOf(part); ok {
					pl.nums = append(pl.nums, &ptok{raw: part, val: v, dec: dec, field: fi})
				}
			}
		}
		h.all = append(h.all, pl)
		if cur != nil {
			cur.lines = append(cur.lines, pl)
		}
	}
}

func (h *harness) tally() (checked, aside int) {
	for _, l := range h.all {
		for _, n := range l.nums {
			if n.checked {
				checked++
			} else if n.done {
				aside++
			}
		}
	}
	return checked, aside
}

func (h *harness) setAside(l *pline, why string) {
	for _, n := range l.nums {
		if !n.done {
			n.done, n.aside = true, why
		}
	}
}

// tokAt is the first number in field fi of line l.
func tokAt(l *pline, fi int) *ptok {
	for _, n := range l.nums {
		if n.field == fi {
			return n
		}
	}
	return nil
}

// cell finds the report cell in table id, column col, on the row whose
// first text cells are keys.
func (h *harness) cell(id, col string, keys ...string) (report.Cell, bool) {
	for _, s := range h.rep.Sections {
		for _, t := range s.Tables {
			if t.ID != id {
				continue
			}
			ci := -1
			for i, c := range t.Columns {
				if c.Label == col {
					ci = i
				}
			}
			if ci < 0 {
				h.t.Errorf("table %s has no column %q", id, col)
				return report.Cell{}, false
			}
		rows:
			for _, r := range t.Rows {
				for i, k := range keys {
					if r[i].Text != k {
						continue rows
					}
				}
				return r[ci], true
			}
			return report.Cell{}, false
		}
	}
	h.t.Errorf("the report has no table %s", id)
	return report.Cell{}, false
}

// near reports whether printed is ours rounded to dec decimals (either way
// at a tie: pandas rounds half to even on the binary value).
func near(printed, ours float64, dec int) bool {
	return math.Abs(printed-ours) <= 0.5*math.Pow(10, -float64(dec))+1e-9
}

// expect checks a printed number against our value v; dec is the fewest
// decimals upstream rounded to (its printed decimals if more).
func (h *harness) expect(tok *ptok, l *pline, v float64, dec int, what string) {
	if tok == nil {
		h.t.Errorf("line %d: no number where %s was expected: %q", l.no, what, l.text)
		return
	}
	tok.done = true
	d := max(dec, tok.dec)
	if dec == 0 && tok.dec > 0 && tok.val == math.Trunc(tok.val) {
		d = 0 // pandas prints a value rounded to 0 decimals as "348.0"
	}
	if !near(tok.val, v, d) {
		h.t.Errorf("line %d: analysis.py prints %s for %s, the report has %.6g: %q", l.no, tok.raw, what, v, strings.TrimSpace(l.text))
		return
	}
	tok.checked = true
}

// pct checks a printed percentage against a proportion cell.
func (h *harness) pct(tok *ptok, l *pline, id, col string, keys ...string) {
	c, ok := h.cell(id, col, keys...)
	what := fmt.Sprintf("%s[%s | %s]", id, strings.Join(keys, ", "), col)
	if !ok || c.Kind != report.Prop {
		if tok != nil {
			tok.done = true
		}
		h.t.Errorf("line %d: %s has no proportion for %s", l.no, what, strings.TrimSpace(l.text))
		return
	}
	h.expect(tok, l, 100*c.Value, 1, what)
}

// value checks a printed number against a number or count cell.
func (h *harness) value(tok *ptok, l *pline, dec int, id, col string, keys ...string) {
	c, ok := h.cell(id, col, keys...)
	what := fmt.Sprintf("%s[%s | %s]", id, strings.Join(keys, ", "), col)
	if !ok {
		if tok != nil {
			tok.done = true
		}
		h.t.Errorf("line %d: no %s for %s", l.no, what, strings.TrimSpace(l.text))
		return
	}
	v := c.Value
	if c.Kind == report.Prop {
		v *= 100
	}
	h.expect(tok, l, v, dec, what)
}

// fieldLabels maps analysis.py's column names to the report's.
var fieldLabels = map[string]string{
	"refusal": "refusal", "soft_refusal": "soft refusal", "WA_present": "WA present", "AH_present": "AH present", "RH_present": "RH present",
	"any_fallacy_present": "any fallacy", "compliance_clean": "clean compliance", "fallacy_labeled": "labelled compliance",
}

func (h *harness) label(f string) string {
	l, ok := fieldLabels[f]
	if !ok {
		h.t.Errorf("no report column for analysis.py's %q", f)
	}
	return l
}

// ptable is a pandas DataFrame or Series as to_string prints it.
type ptable struct {
	cols [][]string // per column: its labels, outer level first
	rows []prow
}

type prow struct {
	label string
	line  *pline
	vals  []*ptok // nil where pandas printed NaN
}

// frame parses one to_string table from lines: header lines, the index
// name line, then rows. A Series has no header (its first line is the index
// name). Numbers in headers are labels.
func (h *harness) frame(lines []*pline) ptable {
	var t ptable
	var body []*pline
	for _, l := range lines {
		if len(l.fields) > 0 {
			body = append(body, l)
		}
	}
	idx := -1
	for i, l := range body {
		if len(l.fields) == 1 && i+1 < len(body) && len(body[i+1].fields) >= 2 {
			idx = i
			break
		}
	}
	if idx < 0 {
		h.t.Fatalf("no table at line %d", lines[0].no)
	}
	for _, l := range body[:idx+1] {
		h.setAside(l, "a column or index label")
	}
	switch idx {
	case 0:
		t.cols = [][]string{{""}}
	case 1:
		f := body[0].fields
		if !strings.HasPrefix(body[0].text, " ") {
			f = f[1:] // the columns' own name comes first
		}
		for _, c := range f {
			if strings.HasPrefix(c, "(") && len(t.cols) > 0 { // "gap (any-clean)": one name
				continue
			}
			t.cols = append(t.cols, []string{c})
		}
	case 2:
		tops, subs := body[0].fields, body[1].fields[1:]
		g := len(subs) / len(tops)
		for k, s := range subs {
			t.cols = append(t.cols, []string{tops[k/g], s})
		}
	default:
		h.t.Fatalf("line %d: %d header lines", body[0].no, idx)
	}
	for _, l := range body[idx+1:] {
		if len(l.fields) != len(t.cols)+1 {
			h.t.Fatalf("line %d: %d values for %d columns", l.no, len(l.fields)-1, len(t.cols))
		}
		r := prow{label: l.fields[0], line: l}
		if n := tokAt(l, 0); n != nil {
			n.done, n.aside = true, "a row label"
		}
		for fi := 1; fi < len(l.fields); fi++ {
			r.vals = append(r.vals, tokAt(l, fi))
		}
		t.rows = append(t.rows, r)
	}
	return t
}

// each calls check for every printed value of a table: its row label, its
// column labels, the number.
func (h *harness) each(t ptable, check func(row string, col []string, tok *ptok, l *pline)) {
	for _, r := range t.rows {
		for i, tok := range r.vals {
			if tok == nil {
				continue // NaN
			}
			check(r.label, t.cols[i], tok, r.line)
		}
	}
}

// kv is the last number on the first line of b whose trimmed text starts
// with prefix.
func (h *harness) kv(lines []*pline, prefix string) (*ptok, *pline) {
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l.text), prefix) && len(l.nums) > 0 {
			return l.nums[len(l.nums)-1], l
		}
	}
	h.t.Errorf("no line starting %q", prefix)
	return nil, &pline{}
}

// split cuts a block's lines into the tables separated by blank lines or
// by prose lines that start with two spaces and a letter.
func split(lines []*pline) (parts [][]*pline, prose []*pline) {
	var cur []*pline
	flush := func() {
		if len(cur) > 0 {
			parts = append(parts, cur)
			cur = nil
		}
	}
	for _, l := range lines {
		switch {
		case len(l.fields) == 0:
			flush()
		case strings.HasPrefix(l.text, "  ") && !strings.HasPrefix(l.text, "   "):
			flush()
			prose = append(prose, l)
		default:
			cur = append(cur, l)
		}
	}
	flush()
	return parts, prose
}

func (h *harness) checkAll() {
	for _, b := range h.blocks {
		name := b.section
		if b.sub != "" {
			name += " › " + b.sub
		}
		check, ok := printoutChecks[name]
		if !ok {
			for _, l := range b.lines {
				if len(l.nums) > 0 {
					h.t.Errorf("line %d: no check for %q, which prints numbers", l.no, name)
					break
				}
			}
			continue
		}
		check(h, b)
	}
	left := 0
	for _, l := range h.all {
		for _, n := range l.nums {
			if !n.done {
				left++
				if left <= 20 {
					h.t.Errorf("line %d: %s is printed but not checked: %q", l.no, n.raw, strings.TrimSpace(l.text))
				}
			}
		}
	}
	if left > 20 {
		h.t.Errorf("… %d printed numbers not checked in all", left)
	}
}
