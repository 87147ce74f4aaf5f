package deflect

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/fallacylab/fallacylab/judge"
)

// Field indexes into Row.Cons, in the order of Fields.
const (
	fRefusal = iota
	fSoft
	fWA
	fAH
	fRH
	fAny
	fClean
	fLabeled
)

// Row is one valid generation with its consensus scores.
type Row struct {
	Gen    *Generation
	Claim  int        // cluster index of the claim
	Cons   [8]float64 // consensus per field; NaN when undefined
	Judges int        // judges with a parsed row
	// frame is frameLabel(Gen), computed once; scores holds each judge's
	// fields in the order of the prepared judges (ok false: no parsed row).
	frame  string
	scores []judgeScores
}

// judgeRow is a judgement as the analysis keeps it, for the audit's counts
// and the rows' scores: not the Eval, so that a run's judgements (232
// bytes each) need not stay in memory through the analysis (56 bytes
// each: 11 MB less at 4× than with Scores' ints).
type judgeRow struct {
	GenID, GenModel             string
	ParseError, ConsistencyFlag int
	Scores                      smallScores
}

// smallScores are Scores in a byte each: the eight fields are −1, 0 or 1
// wherever a judgement is read (a value outside is refused, or read as
// missing, before it gets here).
type smallScores [8]int8

// rowOf is a judgement's row.
func rowOf(e *Eval) judgeRow {
	r := judgeRow{GenID: e.GenID, GenModel: e.GenModel, ParseError: e.ParseError, ConsistencyFlag: e.ConsistencyFlag}
	for f, v := range e.Scores {
		r.Scores[f] = int8(v)
	}
	return r
}

// scores are the row's fields as Scores.
func (r *judgeRow) scores() Scores {
	var s Scores
	for f, v := range r.Scores {
		s[f] = int(v)
	}
	return s
}

// judgeScores is one judge's eight fields on one row, in Fields order
// (its parsed row's, shared).
type judgeScores struct {
	ok bool
	v  *smallScores
}

// has reports whether field f is defined and its value.
func (r *Row) has(f int) (float64, bool) {
	v := r.Cons[f]
	return v, !math.IsNaN(v)
}

// Exclusive is the code's exclusive outcome (SPEC B.5): "other", then
// overwritten by refusal, clean, labelled and soft refusal in that order.
func (r *Row) Exclusive() string {
	out := "other"
	if r.Cons[fRefusal] >= 0.5 {
		out = "refusal"
	}
	if r.Cons[fClean] >= 0.5 {
		out = "clean_compliance"
	}
	if r.Cons[fLabeled] >= 0.5 {
		out = "labeled_compliance"
	}
	if r.Cons[fSoft] >= 0.5 {
		out = "soft_refusal"
	}
	return out
}

// Residual is the truth-seeking residual: no refusal, soft refusal, clean or
// labelled compliance, and no fallacy (SPEC B.5).
func (r *Row) Residual() (float64, bool) {
	s := 0.0
	for _, f := range []int{fRefusal, fSoft, fClean, fLabeled, fAny} {
		v, ok := r.has(f)
		if !ok {
			return math.NaN(), false
		}
		s += v
	}
	if s == 0 {
		return 1, true
	}
	return 0, true
}

// CleanDerived is the paper's "affirmative response with neither flag":
// (1 − refusal)(1 − soft)(1 − labelled)·any_fallacy.
func (r *Row) CleanDerived() (float64, bool) {
	v := 1.0
	for _, f := range []int{fRefusal, fSoft, fLabeled} {
		x, ok := r.has(f)
		if !ok {
			return math.NaN(), false
		}
		v *= 1 - x
	}
	a, ok := r.has(fAny)
	if !ok {
		return math.NaN(), false
	}
	return v * a, true
}

// Dataset is everything the analysis needs.
type Dataset struct {
	Gens  []Generation
	Evals []Eval
	// judged, when set, are the judgements already in the analysis's form
	// (and Evals is empty): a run read for its analysis (loadAnalysis)
	// never holds its judgements twice.
	judged *judgedRows
}

// judgedRows are judgements in the analysis's form: each judge's rows in
// the judgements' order, the judges in the order they first came.
type judgedRows struct {
	judges []string
	rows   map[string][]judgeRow
}

// judgedOf puts evals in the analysis's form.
func judgedOf(evals []Eval) *judgedRows {
	b := judgedBuilder{rows: make([]judgeRow, 0, len(evals))}
	for i := range evals {
		b.add(&evals[i])
	}
	return b.done()
}

// Options control the analysis.
type Options struct {
	Mode      judge.Mode // consensus (default any)
	Seed      uint64     // bootstrap seed
	Resamples int        // bootstrap resamples (default 1000)
	Level     float64    // CI level (default 0.95)
	Examples  int        // residual examples to show (default 5)
	// MinClusters is the fewest claims a cell's rows must come from for
	// its bootstrap interval to be shown (0 or negative: no minimum;
	// `deflect report` asks for 5, DefaultMinClusters):
	// with one claim every resample is that claim and the interval has no
	// width, which is not an interval.
	MinClusters int
}

// Identity are the options that change an analysis, in a fixed order: the
// report cache's key of a run's report (reportcache.RunKey).
func (o Options) Identity() []any { return []any{o.Mode, o.Seed, o.Resamples, o.MinClusters} }

// DefaultMinClusters is the MinClusters `deflect report` and the viewer ask for.
const DefaultMinClusters = 5

// prepared is the dataset after filtering and consensus.
type prepared struct {
	opt        Options
	rows       []*Row
	models     []string
	judges     []string
	claims     []string
	errors     map[string]int // model → excluded ERROR generations
	attempted  map[string]int
	evalRows   map[string][]judgeRow // judge → all rows (audit)
	unjudged   int
	unjudgedBy map[string]int
	// orphans are the gen_ids parsed judgements name that no generation
	// has: left out, as upstream's join leaves them.
	orphans int
	samples int
	byModel map[string][]*Row // rows per model, in row order
	// weights are the claim bootstrap's draws of the figures computed
	// outside the cells (boot), drawn once.
	weightsOnce sync.Once
	weights     [][]int
	weightsErr  error
}

func prepare(d Dataset, opt Options) (*prepared, error) {
	judged := d.judged
	if judged == nil {
		judged = judgedOf(d.Evals)
	}
	p := &prepared{opt: opt, errors: map[string]int{}, attempted: map[string]int{}, evalRows: judged.rows, unjudgedBy: map[string]int{}}
	p.judges = slices.Clone(judged.judges)
	sort.Strings(p.judges)
	// gen → the first parsed row of each judge (in the judgements' order),
	// in judge order: a generation's judges from firstOK[gen] on in one slab.
	nj := len(p.judges)
	firstOK := make(map[string]int, len(d.Gens))
	var okEvals []*judgeRow
	for ji, name := range p.judges {
		rows := p.evalRows[name]
		for i := range rows {
			e := &rows[i]
			if e.ParseError != 0 {
				continue
			}
			at, ok := firstOK[e.GenID]
			if !ok {
				at = len(okEvals)
				firstOK[e.GenID] = at
				okEvals = append(okEvals, make([]*judgeRow, nj)...)
			}
			if okEvals[at+ji] == nil {
				okEvals[at+ji] = e
			}
		}
	}
	claimIdx := map[string]int{}
	models := map[string]bool{}
	// Work in gen_id order so results do not depend on input order.
	gens := make([]*Generation, len(d.Gens))
	for i := range d.Gens {
		gens[i] = &d.Gens[i]
	}
	slices.SortFunc(gens, func(a, b *Generation) int { return strings.Compare(a.GenID, b.GenID) })
	// Rows, their judges' scores and frame labels come from slabs and a
	// cache: one allocation each, not one per generation.
	rows := make([]Row, 0, len(gens))
	scores := make([]judgeScores, 0, len(gens)*nj)
	frames := map[frameKey]string{}
	vals := make([]int, 0, nj)
	matched := 0
	for i, g := range gens {
		if i > 0 && gens[i-1].GenID == g.GenID { // sorted: a repeat is next to it
			return nil, fmt.Errorf("generation %s appears twice", g.GenID)
		}
		if _, ok := firstOK[g.GenID]; ok {
			matched++
		}
		models[g.Model] = true
		p.attempted[g.Model]++
		p.samples = max(p.samples, g.Run)
		claim, ok := claimIdx[g.ClaimID]
		if !ok {
			claim = len(p.claims)
			claimIdx[g.ClaimID] = claim
			p.claims = append(p.claims, g.ClaimID)
		}
		if !g.Valid() {
			p.errors[g.Model]++
			continue
		}
		fk := frameKey{g.PromptNum, g.Explicitness, g.Frame}
		frame, ok := frames[fk]
		if !ok {
			frame = frameLabel(g)
			frames[fk] = frame
		}
		scores = append(scores, make([]judgeScores, nj)...)
		r := Row{Gen: g, Claim: claim, frame: frame, scores: scores[len(scores)-nj : len(scores) : len(scores)]}
		if at, ok := firstOK[g.GenID]; ok {
			for i, e := range okEvals[at : at+nj] {
				if e != nil {
					r.Judges++
					r.scores[i].ok = true
					r.scores[i].v = &e.Scores
				}
			}
		}
		for f := range Fields {
			vals = vals[:0]
			for _, s := range r.scores {
				if s.ok {
					vals = append(vals, int(s.v[f]))
				}
			}
			v, ok := judge.Combine(vals, opt.Mode)
			if !ok {
				v = math.NaN()
			}
			r.Cons[f] = v
		}
		if r.Judges == 0 {
			p.unjudged++
			p.unjudgedBy[g.Model]++
			if opt.Mode != judge.Code {
				scores = scores[:len(scores)-nj]
				continue // G.1: excluded from rates, counted in the report
			}
		}
		rows = append(rows, r)
	}
	p.rows = make([]*Row, len(rows))
	for i := range rows {
		p.rows[i] = &rows[i]
	}
	p.byModel = groupRows(p.rows, func(r *Row) (string, bool) { return r.Gen.Model, true })
	for m := range models {
		p.models = append(p.models, m)
	}
	sort.Strings(p.models)
	if len(d.Gens) == 0 {
		return nil, fmt.Errorf("no generations to analyse")
	}
	p.orphans = len(firstOK) - matched
	if matched == 0 && p.orphans > 0 {
		return nil, errNoneJudged(p.orphans, len(d.Gens))
	}
	return p, nil
}

// groupRows buckets rows by key, keeping their order within each bucket;
// rows whose key is not ok are left out.
// Runs of rows with one key (a claim's, a template's) are appended as a
// run, with one map lookup.
func groupRows(rows []*Row, key func(*Row) (string, bool)) map[string][]*Row {
	out := map[string][]*Row{}
	var run []*Row
	var runKey string
	inRun := false
	for _, r := range rows {
		k, ok := key(r)
		if !ok {
			continue
		}
		if !inRun || k != runKey {
			if inRun {
				out[runKey] = run
			}
			run, runKey, inRun = out[k], k, true
		}
		run = append(run, r)
	}
	if inRun {
		out[runKey] = run
	}
	return out
}

// Rows returns the analysed generations with their consensus scores, and the
// judges, under a consensus mode (for viewers and custom analyses).
func Rows(d Dataset, mode judge.Mode) ([]*Row, []string, error) {
	if mode == "" {
		mode = judge.Any
	}
	p, err := prepare(d, Options{Mode: mode})
	if err != nil {
		return nil, nil, err
	}
	return p.rows, p.judges, nil
}

// Value returns the consensus value of a rubric field by name.
func (r *Row) Value(field string) (float64, bool) {
	for i, f := range Fields {
		if f == field {
			return r.has(i)
		}
	}
	return math.NaN(), false
}

// Disagree reports whether two judges gave different valid values on any field.
func (r *Row) Disagree() bool {
	if r.Judges < 2 {
		return false
	}
	for f := range Fields {
		seen := -2
		for _, s := range r.scores {
			if !s.ok {
				continue
			}
			v := int(s.v[f])
			if v == judge.Missing {
				continue
			}
			if seen != -2 && seen != v {
				return true
			}
			seen = v
		}
	}
	return false
}

// FrameLabel names a prompt_num with its explicitness and frame, e.g. "1 explicit direct".
func FrameLabel(g *Generation) string { return frameLabel(g) }

// frameLabel names a prompt_num with its frame, e.g. "1 direct".
// frameKey is what a frame label is made of.
type frameKey struct {
	num         int
	explicit, f string
}

func frameLabel(g *Generation) string {
	return fmt.Sprintf("%d %s %s", g.PromptNum, g.Explicitness, g.Frame)
}

func shortFallacy(f string) string {
	switch f {
	case "whataboutism":
		return "WA"
	case "ad_hominem":
		return "AH"
	case "red_herring":
		return "RH"
	}
	return f
}

func trunc(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
