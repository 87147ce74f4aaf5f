package deflect

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fallacylab/fallacylab/report"
)

// The breakdowns below are the rest of upstream analysis.py's tables, each
// with the same bootstrap intervals as the other outcome rates: every rubric
// field by prompt subset (RQ4, RQ1), the frame field (which pools prompts 2
// and 7 as "political"), frame × claim level, the coach frame × fallacy, and
// claim level × context (RQ3, its L3_US table included).

// rubricColumns labels the eight rubric fields, in Fields order.
var rubricColumns = []string{"refusal", "soft refusal", "WA present", "AH present", "RH present", "any fallacy", "clean compliance", "labelled compliance"}

// allFields are the eight fields' indexes, in Fields order.
var allFields = []int{fRefusal, fSoft, fWA, fAH, fRH, fAny, fClean, fLabeled}

// allModels labels a row pooled over every model.
const allModels = "all models"

// breakdown is a table of outcome rates over rows grouped by model and keys.
type breakdown struct {
	id, title string
	labels    []string // the key columns after "model"
	// keys calls add with each key tuple a row counts under, one value per
	// label (a row it does not call add for is left out).
	keys    func(r *Row, add func(key ...string))
	values  [][]string     // the key tuples shown, in order
	fields  []int          // rates shown (default outcomeFields)
	columns []string       // their labels (default the outcomes')
	pooled  bool           // add rows over all models
	charts  []report.Chart // heatmaps in HTML
}

func (p *prepared) breakdowns() []breakdown {
	level := func(r *Row) string { return strconv.Itoa(r.Gen.Level) }
	levels := distinct(p.rows, func(r *Row) (string, bool) { return level(r), true }, func(s string) string { return fmt.Sprintf("%08s", s) })
	frames := distinct(p.rows, func(r *Row) (string, bool) { return r.Gen.Frame, true }, nil)
	contexts := distinct(p.rows, func(r *Row) (string, bool) { return r.Gen.Context, true }, nil)
	fallacies := distinct(p.rows, func(r *Row) (string, bool) { _, ok := requested(r); return r.Gen.Fallacy, ok }, nil)
	product := func(lists ...[]string) [][]string {
		out := [][]string{nil}
		for _, l := range lists {
			var next [][]string
			for _, prefix := range out {
				for _, v := range l {
					next = append(next, append(append([]string(nil), prefix...), v))
				}
			}
			out = next
		}
		return out
	}
	byFrame := func(r *Row, add func(...string)) { add(r.Gen.Frame) }
	return []breakdown{
		{id: "rubric_fields", title: "Every rubric field by model × prompt subset (model_choice: prompt 5; implicit: prompts 6–7)",
			labels: []string{"prompts"}, fields: allFields, columns: rubricColumns, pooled: true,
			keys: func(r *Row, add func(...string)) { // every row is in "all", some in one more
				add("all")
				if r.Gen.Fallacy == "model_choice" {
					add("model_choice")
				}
				if r.Gen.Explicitness == "implicit" {
					add("implicit")
				}
			},
			values: product([]string{"all", "model_choice", "implicit"})},
		{id: "by_frame_field", title: "Outcomes by model × frame field (political pools prompts 2 and 7)", labels: []string{"frame field"},
			keys: byFrame, values: product(frames), fields: allFields, columns: rubricColumns,
			charts: []report.Chart{{Kind: "heatmap", Title: "Refusal: model × frame field", Label: []int{0, 1}, Value: 2},
				{Kind: "heatmap", Title: "Soft refusal: model × frame field", Label: []int{0, 1}, Value: 3}}},
		{id: "by_frame_level", title: "Outcomes by model × frame field × claim level (coach, political, manipulation)", labels: []string{"frame field", "level"},
			keys: func(r *Row, add func(...string)) {
				if f := r.Gen.Frame; f == "coach" || f == "political" || f == "manipulation" {
					add(f, level(r))
				}
			},
			values: product(occurring(frames, "coach", "political", "manipulation"), levels)},
		{id: "coach_by_fallacy", title: "Outcomes by model × requested fallacy under the coach frame (single-fallacy prompts)", labels: []string{"requested fallacy"},
			keys: func(r *Row, add func(...string)) {
				if _, ok := requested(r); ok && r.Gen.Frame == "coach" {
					add(r.Gen.Fallacy)
				}
			},
			values: product(fallacies)},
		{id: "by_level_context", title: "Outcomes by model × claim level × context", labels: []string{"level", "context"},
			keys:   func(r *Row, add func(...string)) { add(level(r), r.Gen.Context) },
			values: product(levels, contexts)},
		{id: "ah_by_frame", title: "Ad hominem present by model × frame field, over prompts that allow it (ad_hominem, model_choice, implicit)", labels: []string{"frame field"},
			keys: func(r *Row, add func(...string)) {
				if f := r.Gen.Fallacy; f == "ad_hominem" || f == "model_choice" || f == "any" {
					add(r.Gen.Frame)
				}
			},
			values: product(frames), fields: []int{fAH}, columns: []string{"AH present"}},
	}
}

// occurring keeps the wanted values that occur in have, in the wanted order.
func occurring(have []string, want ...string) []string {
	var out []string
	for _, w := range want {
		if slices.Contains(have, w) {
			out = append(out, w)
		}
	}
	return out
}

// breakdownTables registers the breakdowns' cells in sec and returns the
// functions that fill their tables once the bootstrap has run.
func (p *prepared) breakdownTables(sec *report.Section, c *cells) []func() {
	var out []func()
	for _, b := range p.breakdowns() {
		fields, cols := b.fields, b.columns
		if fields == nil {
			fields = outcomeFields
			for _, o := range outcomes {
				cols = append(cols, o.label)
			}
		}
		labels := append(append([]string{"model"}, b.labels...), cols...)
		t := sec.Add(&report.Table{ID: b.id, Title: b.title, Columns: report.Cols(labels...), Charts: b.charts})
		type reg struct {
			labels []string
			idx    []int
		}
		var regs []reg
		models := p.models
		if b.pooled {
			models = append(append([]string(nil), p.models...), allModels)
		}
		for _, m := range models {
			rows := p.rows
			if m != allModels {
				rows = p.byModel[m]
			}
			buckets := map[string][]*Row{}
			for _, r := range rows {
				b.keys(r, func(k ...string) {
					key := strings.Join(k, "\x00")
					buckets[key] = append(buckets[key], r)
				})
			}
			for _, v := range b.values {
				in := buckets[strings.Join(v, "\x00")]
				if len(in) == 0 {
					continue
				}
				regs = append(regs, reg{append([]string{m}, v...), c.addFields(in, fields)})
			}
		}
		out = append(out, func() {
			for _, rg := range regs {
				row := make([]report.Cell, 0, len(labels))
				for _, l := range rg.labels {
					row = append(row, report.T(l))
				}
				for _, i := range rg.idx {
					row = append(row, c.cell(i))
				}
				t.Rows = append(t.Rows, row)
			}
		})
	}
	return out
}
