package deflect

import (
	"fmt"
	"strconv"

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
	labels    []string                     // the key columns after "model"
	keep      func(*Row) bool              // rows it covers (nil: all)
	keys      func(*Row) []string          // the row's keys, one per label
	values    func(p *prepared) [][]string // the key tuples shown, in order
	fields    []int                        // rates shown (default outcomeFields)
	columns   []string                     // their labels (default the outcomes')
	pooled    bool                         // add rows over all models
	charts    []report.Chart               // heatmaps in HTML
}

func (p *prepared) breakdowns() []breakdown {
	frameField := func(r *Row) string { return r.Gen.Frame }
	level := func(r *Row) string { return strconv.Itoa(r.Gen.Level) }
	levels := distinct(p.rows, func(r *Row) (string, bool) { return level(r), true }, func(s string) string { return fmt.Sprintf("%08s", s) })
	frames := distinct(p.rows, func(r *Row) (string, bool) { return frameField(r), true }, nil)
	contexts := distinct(p.rows, func(r *Row) (string, bool) { return r.Gen.Context, true }, nil)
	single := func(r *Row) bool { _, ok := requested(r); return ok }
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
	// Subsets of prompts: every row is in "all"; rows can be in one more.
	subsets := []string{"all", "model_choice", "implicit"}
	return []breakdown{
		{id: "rubric_fields", title: "Every rubric field by model × prompt subset (model_choice: prompt 5; implicit: prompts 6–7)",
			labels: []string{"prompts"}, keys: func(r *Row) []string { return nil },
			values: func(*prepared) [][]string { return product(subsets) }, fields: allFields, columns: rubricColumns, pooled: true},
		{id: "by_frame_field", title: "Outcomes by model × frame field (political pools prompts 2 and 7)", labels: []string{"frame field"},
			keys:   func(r *Row) []string { return []string{frameField(r)} },
			values: func(*prepared) [][]string { return product(frames) }, fields: allFields, columns: rubricColumns,
			charts: []report.Chart{{Kind: "heatmap", Title: "Refusal: model × frame field", Label: []int{0, 1}, Value: 2},
				{Kind: "heatmap", Title: "Soft refusal: model × frame field", Label: []int{0, 1}, Value: 3}}},
		{id: "by_frame_level", title: "Outcomes by model × frame field × claim level (coach, political, manipulation)", labels: []string{"frame field", "level"},
			keep: func(r *Row) bool { f := r.Gen.Frame; return f == "coach" || f == "political" || f == "manipulation" },
			keys: func(r *Row) []string { return []string{frameField(r), level(r)} },
			values: func(*prepared) [][]string {
				return product(present3(frames, "coach", "political", "manipulation"), levels)
			}},
		{id: "coach_by_fallacy", title: "Outcomes by model × requested fallacy under the coach frame (single-fallacy prompts)", labels: []string{"requested fallacy"},
			keep: func(r *Row) bool { return r.Gen.Frame == "coach" && single(r) },
			keys: func(r *Row) []string { return []string{r.Gen.Fallacy} },
			values: func(p *prepared) [][]string {
				return product(distinct(p.rows, func(r *Row) (string, bool) { return r.Gen.Fallacy, single(r) }, nil))
			}},
		{id: "by_level_context", title: "Outcomes by model × claim level × context", labels: []string{"level", "context"},
			keys:   func(r *Row) []string { return []string{level(r), r.Gen.Context} },
			values: func(*prepared) [][]string { return product(levels, contexts) }},
		{id: "ah_by_frame", title: "Ad hominem present by model × frame field, over prompts that allow it (ad_hominem, model_choice, implicit)", labels: []string{"frame field"},
			keep: func(r *Row) bool {
				f := r.Gen.Fallacy
				return f == "ad_hominem" || f == "model_choice" || f == "any"
			},
			keys:   func(r *Row) []string { return []string{frameField(r)} },
			values: func(*prepared) [][]string { return product(frames) }, fields: []int{fAH}, columns: []string{"AH present"}},
	}
}

// present3 keeps the wanted values that occur, in the wanted order.
func present3(have []string, want ...string) []string {
	var out []string
	for _, w := range want {
		for _, h := range have {
			if h == w {
				out = append(out, w)
				break
			}
		}
	}
	return out
}

// inSubset reports whether a row is in a prompt subset of rubric_fields.
func inSubset(r *Row, s string) bool {
	switch s {
	case "model_choice":
		return r.Gen.Fallacy == "model_choice"
	case "implicit":
		return r.Gen.Explicitness == "implicit"
	}
	return true
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
		values := b.values(p)
		for _, m := range models {
			rows := p.rows
			if m != allModels {
				rows = p.byModel[m]
			}
			buckets := map[string][]*Row{}
			if b.id == "rubric_fields" {
				for _, s := range subsets(values) {
					for _, r := range rows {
						if inSubset(r, s) {
							buckets[s] = append(buckets[s], r)
						}
					}
				}
			} else {
				for _, r := range rows {
					if b.keep != nil && !b.keep(r) {
						continue
					}
					k := joinKey(b.keys(r))
					buckets[k] = append(buckets[k], r)
				}
			}
			for _, v := range values {
				in := buckets[joinKey(v)]
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

func subsets(values [][]string) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = v[0]
	}
	return out
}

func joinKey(k []string) string {
	s := ""
	for i, v := range k {
		if i > 0 {
			s += "\x00"
		}
		s += v
	}
	return s
}
