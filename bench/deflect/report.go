package deflect

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/fallacylab/fallacylab/judge"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
)

// outcome is one reported rate: a consensus field's.
type outcome struct {
	label string
	field int
}

var outcomes = []outcome{
	{"refusal", fRefusal},
	{"soft refusal", fSoft},
	{"labelled compliance", fLabeled},
	{"clean compliance", fClean},
	{"any fallacy", fAny},
}

// outcomeFields are the outcomes' fields, in order.
var outcomeFields = func() []int {
	var out []int
	for _, o := range outcomes {
		out = append(out, o.field)
	}
	return out
}()

// Analyze computes every table of SPEC B.5–B.15 and returns the report.
func Analyze(d Dataset, opt Options) (*report.Report, error) {
	if opt.Mode == "" {
		opt.Mode = judge.Any
	}
	if opt.Resamples <= 0 {
		opt.Resamples = 1000
	}
	if opt.Level == 0 {
		opt.Level = 0.95
	}
	if opt.Examples == 0 {
		opt.Examples = 5
	}
	p, err := prepare(d, opt)
	if err != nil {
		return nil, err
	}
	rep := &report.Report{Title: "DeflectBench report", Benchmark: Definition.Name, Headline: "outcomes_by_model"}
	rep.Meta = [][2]string{
		{"models", strings.Join(p.models, ", ")}, {"judges", strings.Join(p.judges, ", ")},
		{"consensus", string(opt.Mode)}, {"bootstrap", fmt.Sprintf("%d resamples over %d claims, seed %d, %g %% percentile intervals", opt.Resamples, len(p.claims), opt.Seed, 100*opt.Level)},
		{"rows analysed", strconv.Itoa(len(p.rows))},
	}
	if p.orphans > 0 {
		rep.Meta = append(rep.Meta, [2]string{"judgements left out", fmt.Sprintf("those of %d %s that no generation has, as upstream's join leaves them", p.orphans, map[bool]string{true: "gen_id", false: "gen_ids"}[p.orphans == 1])})
	}
	// The sections that use no bootstrap are built on one core while the
	// cells are registered and the resamples drawn, in a report of their own
	// appended after.
	rest := &report.Report{}
	restErr := make(chan error, 1)
	go func() { restErr <- p.unbootstrapped(rest) }()
	c := newCells(len(p.claims), opt.Level)
	c.minClusters, c.resamples = opt.MinClusters, opt.Resamples
	var later []func()
	// Register every cell first, bootstrap once, then build the tables.
	later = append(later, p.overview(rep))
	later = append(later, p.outcomeTables(rep, c)...)
	later = append(later, p.fidelity(rep, c))
	later = append(later, p.contrasts(rep, c))
	if err := c.run(opt.Resamples, opt.Seed); err != nil {
		<-restErr
		return nil, fmt.Errorf("bootstrap: %w", err)
	}
	for _, f := range later {
		f()
	}
	if c.thin > 0 {
		rep.Meta = append(rep.Meta, [2]string{"intervals", fmt.Sprintf("%d cells rest on fewer than %d claims (--min-clusters), too few for the claim bootstrap: their rates have Wilson intervals over generations, their contrasts none", c.thin, opt.MinClusters)})
	}
	if err := <-restErr; err != nil {
		return nil, err
	}
	rep.Sections = append(rep.Sections, rest.Sections...)
	rep.NotePointIntervals("claim")
	if c.minEffective < opt.Resamples {
		rep.Meta = append(rep.Meta, [2]string{"effective resamples", fmt.Sprintf("as few as %d of %d for some intervals: resamples in which a cell had no rows are skipped", c.minEffective, opt.Resamples)})
	}
	return rep, nil
}

// unbootstrapped adds the sections that need no resamples, in order.
func (p *prepared) unbootstrapped(rep *report.Report) error {
	p.reliability(rep)
	p.framingContent(rep)
	if err := p.chiSquare(rep); err != nil {
		return err
	}
	p.crossModel(rep)
	p.volatility(rep)
	p.hardRefusals(rep)
	p.verbosity(rep)
	p.residual(rep)
	p.audit(rep)
	return nil
}

func (p *prepared) overview(rep *report.Report) func() {
	sec := rep.AddSection("Overview", "Generations whose response starts with \"ERROR:\" are API failures and are excluded everywhere. "+
		"Under the default consensus a generation no judge could score is excluded from rates and counted here; "+
		"--compat deflectbench-code keeps it as an all-zero row, as the released code does.")
	t := sec.Add(&report.Table{ID: "overview", Title: "Generations by model", Columns: report.Cols("model", "attempted", "API errors", "valid", "all judges", "some judges", "no judge")})
	sec.Add(p.runCounts())
	return func() {
		byModel := map[string][3]int{}
		for _, r := range p.rows {
			v := byModel[r.Gen.Model]
			switch {
			case r.Judges == len(p.judges) && r.Judges > 0:
				v[0]++
			case r.Judges > 0:
				v[1]++
			default:
				v[2]++
			}
			byModel[r.Gen.Model] = v
		}
		noJudge := map[string]int{}
		if p.opt.Mode != judge.Code {
			noJudge = p.unjudgedBy
		}
		for _, m := range p.models {
			v := byModel[m]
			t.Rows = append(t.Rows, []report.Cell{report.T(m), report.I(p.attempted[m]), report.I(p.errors[m]),
				report.I(p.attempted[m] - p.errors[m]), report.I(v[0]), report.I(v[1]), report.I(v[2] + noJudge[m])})
		}
	}
}

// grouping is a breakdown of the outcome rates.
type grouping struct {
	id, title, label string
	key              func(*Row) (string, bool)
	sortKey          func(string) string
}

func (p *prepared) groupings() []grouping {
	num := func(s string) string { return fmt.Sprintf("%08s", s) }
	return []grouping{
		{"by_frame", "Outcomes by model × frame (prompt_num)", "frame", func(r *Row) (string, bool) { return r.frame, true }, nil},
		{"by_explicitness", "Outcomes by model × explicitness", "explicitness", func(r *Row) (string, bool) { return r.Gen.Explicitness, true }, nil},
		{"by_level", "Outcomes by model × claim level", "level", func(r *Row) (string, bool) { return strconv.Itoa(r.Gen.Level), true }, num},
		{"by_context", "Outcomes by model × context", "context", func(r *Row) (string, bool) { return r.Gen.Context, true }, nil},
		{"by_domain", "Outcomes by model × domain", "domain", func(r *Row) (string, bool) { return r.Gen.Domain, true }, nil},
		{"by_fallacy", "Outcomes by model × requested fallacy", "requested fallacy", func(r *Row) (string, bool) { return r.Gen.Fallacy, true }, nil},
	}
}

func distinct(rows []*Row, key func(*Row) (string, bool), sortKey func(string) string) []string {
	set := map[string]bool{}
	last, seen := "", false
	for _, r := range rows {
		if k, ok := key(r); ok && (!seen || k != last) {
			set[k], last, seen = true, k, true
		}
	}
	var out []string
	for k := range set {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if sortKey != nil {
			return sortKey(out[i]) < sortKey(out[j])
		}
		return out[i] < out[j]
	})
	return out
}

func outcomeCols(first ...string) []report.Column {
	labels := append([]string(nil), first...)
	for _, o := range outcomes {
		labels = append(labels, o.label)
	}
	return report.Cols(labels...)
}

func (p *prepared) outcomeTables(rep *report.Report, c *cells) []func() {
	sec := rep.AddSection("Outcome rates", "Each cell is the share of generations with the consensus field set (SPEC B.5–B.6), "+
		"with a 95 % block-bootstrap interval over claims. Outcomes are separate binary rates and may overlap.")
	main := sec.Add(&report.Table{ID: "outcomes_by_model", Title: "Outcomes by model (Table 3)",
		Columns: report.Cols("model", "refusal", "soft refusal", "labelled compliance", "clean compliance", "any fallacy", "clean (paper's derived definition)", "truth-seeking residual", "any fallacy − clean (pp)"),
		Charts: []report.Chart{{Kind: "bars", Title: "Refusal by model (95 % CI)", Label: []int{0}, Value: 1},
			{Kind: "bars", Title: "Clean compliance by model (95 % CI)", Label: []int{0}, Value: 4}}})
	type reg struct {
		labels []string
		idx    []int
		gap    int // a contrast shown last (−1: none)
	}
	var mainRegs []reg
	for _, m := range p.models {
		rows := p.byModel[m]
		idx := c.addFields(rows, outcomeFields)
		gap := c.addContrast(idx[4], idx[3], false) // any fallacy − clean compliance
		idx = append(idx, c.add(rows, nil, (*Row).CleanDerived), c.add(rows, nil, (*Row).Residual))
		mainRegs = append(mainRegs, reg{[]string{m}, idx, gap})
	}
	fill := func(t *report.Table, regs []reg) func() {
		return func() {
			for _, rg := range regs {
				var row []report.Cell
				for _, l := range rg.labels {
					row = append(row, report.T(l))
				}
				for _, i := range rg.idx {
					row = append(row, c.cell(i))
				}
				if rg.gap >= 0 {
					row = append(row, c.contrastCell(rg.gap))
				}
				t.Rows = append(t.Rows, row)
			}
		}
	}
	out := []func(){fill(main, mainRegs)}
	for _, g := range p.groupings() {
		t := sec.Add(&report.Table{ID: "outcomes_" + g.id, Title: g.title, Columns: outcomeCols("model", g.label)})
		if g.id == "by_frame" {
			for i, o := range outcomes { // one matrix per outcome
				t.Charts = append(t.Charts, report.Chart{Kind: "heatmap", Title: strings.ToUpper(o.label[:1]) + o.label[1:] + ": model × frame", Label: []int{0, 1}, Value: 2 + i})
			}
		}
		var regs []reg
		values := distinct(p.rows, g.key, g.sortKey)
		for _, m := range p.models {
			buckets := groupRows(p.byModel[m], g.key)
			for _, v := range values {
				regs = append(regs, reg{[]string{m, v}, c.addFields(buckets[v], outcomeFields), -1})
			}
		}
		out = append(out, fill(t, regs))
	}
	// Frame × fallacy over explicit single-fallacy rows, pooled over models.
	t := sec.Add(&report.Table{ID: "outcomes_frame_fallacy", Title: "Outcomes by frame × requested fallacy (explicit single-fallacy prompts, all models)",
		Columns: outcomeCols("frame", "fallacy")})
	var regs []reg
	single := func(r *Row) bool { return r.Gen.Explicitness == "explicit" && r.Gen.Fallacy != "model_choice" }
	byFrame := groupRows(p.rows, func(r *Row) (string, bool) { return r.frame, single(r) })
	fallacies := distinct(p.rows, func(r *Row) (string, bool) { return r.Gen.Fallacy, single(r) }, nil)
	for _, fr := range distinct(p.rows, func(r *Row) (string, bool) { return r.frame, single(r) }, nil) {
		buckets := groupRows(byFrame[fr], func(r *Row) (string, bool) { return r.Gen.Fallacy, true })
		for _, fa := range fallacies {
			regs = append(regs, reg{[]string{fr, shortFallacy(fa)}, c.addFields(buckets[fa], outcomeFields), -1})
		}
	}
	out = append(out, fill(t, regs))
	return append(out, p.breakdownTables(sec, c)...)
}

// requested maps an explicit single-fallacy row to its presence field.
func requested(r *Row) (int, bool) {
	if r.Gen.Explicitness != "explicit" {
		return 0, false
	}
	switch r.Gen.Fallacy {
	case "whataboutism":
		return fWA, true
	case "ad_hominem":
		return fAH, true
	case "red_herring":
		return fRH, true
	}
	return 0, false
}

func present(r *Row, f int) float64 {
	v, ok := r.has(f)
	if !ok {
		return 0 // upstream: NaN treated as 0
	}
	return v
}

func (p *prepared) fidelity(rep *report.Report, c *cells) func() {
	sec := rep.AddSection("Instruction-following fidelity", "Match = the requested fallacy is present, over explicit single-fallacy prompts (SPEC B.7). "+
		"The released code divides by all such rows, refusals included; the paper conditions on compliance. Both are shown, labelled.")
	t := sec.Add(&report.Table{ID: "fidelity", Title: "Fidelity by model (Table 4)", Columns: report.Cols("model",
		"match (code: all explicit rows)", "match | any fallacy (paper)", "match | no refusal", "multi-fallacy", "multi-fallacy | any fallacy",
		"WA∧AH", "WA∧RH", "AH∧RH", "WA∧AH∧RH")})
	match := func(r *Row) (float64, bool) {
		f, ok := requested(r)
		if !ok {
			return 0, false
		}
		return r.has(f)
	}
	multi := func(r *Row) (float64, bool) {
		if present(r, fWA)+present(r, fAH)+present(r, fRH) >= 2 {
			return 1, true
		}
		return 0, true
	}
	both := func(fs ...int) func(*Row) (float64, bool) {
		return func(r *Row) (float64, bool) {
			v := 1.0
			for _, f := range fs {
				v *= present(r, f)
			}
			return v, true
		}
	}
	var idx [][]int
	for _, m := range p.models {
		rows := p.byModel[m]
		anyF := func(r *Row) bool { v, ok := r.has(fAny); return ok && v >= 0.5 }
		noRef := func(r *Row) bool { v, ok := r.has(fRefusal); return ok && v < 0.5 }
		idx = append(idx, []int{c.add(rows, nil, match), c.add(rows, anyF, match), c.add(rows, noRef, match),
			c.add(rows, nil, multi), c.add(rows, anyF, multi), c.add(rows, nil, both(fWA, fAH)), c.add(rows, nil, both(fWA, fRH)),
			c.add(rows, nil, both(fAH, fRH)), c.add(rows, nil, both(fWA, fAH, fRH))})
	}
	return func() {
		for i, m := range p.models {
			row := []report.Cell{report.T(m)}
			for _, k := range idx[i] {
				row = append(row, c.cell(k))
			}
			t.Rows = append(t.Rows, row)
		}
	}
}

func (p *prepared) contrasts(rep *report.Report, c *cells) func() {
	sec := rep.AddSection("Effect sizes", "Cohen's h = 2·asin√p₁ − 2·asin√p₂ (SPEC B.10) and differences in percentage points, "+
		"each with a block-bootstrap interval from the same resamples as the rates.")
	pairs := sec.Add(&report.Table{ID: "h_model_pairs", Title: "Model pairs: refusal and clean compliance",
		Columns: report.Cols("model A", "model B", "outcome", "A", "B", "difference (pp)", "Cohen's h")})
	frames := sec.Add(&report.Table{ID: "h_frame_contrasts", Title: "Frame contrasts on refusal, within each model",
		Columns: report.Cols("model", "contrast", "frame", "direct", "difference (pp)", "Cohen's h")})
	type pr struct {
		a, b, oc string
		ia, ib   int
		d, h     int
	}
	var prs []pr
	for i, a := range p.models {
		for _, b := range p.models[i+1:] {
			for _, o := range []struct {
				l string
				f int
			}{{"refusal", fRefusal}, {"clean compliance", fClean}} {
				ia, ib := c.add(p.byModel[a], nil, field(o.f)), c.add(p.byModel[b], nil, field(o.f))
				prs = append(prs, pr{a, b, o.l, ia, ib, c.addContrast(ia, ib, false), c.addContrast(ia, ib, true)})
			}
		}
	}
	type fc struct {
		m, name string
		ia, ib  int
		d, h    int
	}
	var fcs []fc
	for _, m := range p.models {
		at := func(num int) int {
			return c.add(p.byModel[m], func(r *Row) bool { return r.Gen.PromptNum == num }, field(fRefusal))
		}
		direct := at(1)
		for _, x := range []struct {
			name string
			num  int
		}{{"coach vs direct", 3}, {"manipulation vs direct", 4}} {
			ia := at(x.num)
			fcs = append(fcs, fc{m, x.name, ia, direct, c.addContrast(ia, direct, false), c.addContrast(ia, direct, true)})
		}
	}
	contexts := sec.Add(&report.Table{ID: "h_context_contrasts", Title: "US versus international claims on refusal, within each model",
		Columns: report.Cols("model", "us", "international", "difference (pp)", "Cohen's h")})
	var ccs []fc
	for _, m := range p.models {
		at := func(ctx string) int {
			return c.add(p.byModel[m], func(r *Row) bool { return r.Gen.Context == ctx }, field(fRefusal))
		}
		us, intl := at("us"), at("international")
		ccs = append(ccs, fc{m, "us vs international", us, intl, c.addContrast(us, intl, false), c.addContrast(us, intl, true)})
	}
	return func() {
		for _, x := range ccs {
			contexts.Rows = append(contexts.Rows, []report.Cell{report.T(x.m), c.cell(x.ia), c.cell(x.ib), c.contrastCell(x.d), c.contrastCell(x.h)})
		}
		for _, x := range prs {
			pairs.Rows = append(pairs.Rows, []report.Cell{report.T(x.a), report.T(x.b), report.T(x.oc), c.cell(x.ia), c.cell(x.ib), c.contrastCell(x.d), c.contrastCell(x.h)})
		}
		for _, x := range fcs {
			frames.Rows = append(frames.Rows, []report.Cell{report.T(x.m), report.T(x.name), c.cell(x.ia), c.cell(x.ib), c.contrastCell(x.d), c.contrastCell(x.h)})
		}
	}
}

func (p *prepared) reliability(rep *report.Report) {
	if len(p.judges) < 2 {
		rep.AddSection("Inter-judge reliability", "Needs two judges; this run has "+strconv.Itoa(len(p.judges))+".")
		return
	}
	sec := rep.AddSection("Inter-judge reliability", fmt.Sprintf("J1 = %s, J2 = %s. Pairs where both judges parsed and neither value is −1 (SPEC B.8). "+
		"κ is Cohen's kappa; AC1 is Gwet's with Q = 2; prevalence is the mean of both judges' rates of 1 (Gwet's π₁). "+
		"At low prevalence κ can be low while raw agreement and AC1 are high.", p.judges[0], p.judges[1]))
	t := sec.Add(&report.Table{ID: "reliability", Title: "Agreement per rubric field (Table 2)", Columns: report.Cols("field", "n", "raw agreement", "Cohen's κ", "κ SE (asymptotic)", "Gwet's AC1", "prevalence")})
	t.Note = "Intervals: percentile bootstrap over claims. κ SE: Fleiss, Cohen and Everitt's asymptotic standard error (statsmodels' std_kappa), beside the bootstrap."
	for fi, f := range Fields {
		n, cells := p.agreementCells(fi, p.rows)
		if n == 0 {
			t.Rows = append(t.Rows, []report.Cell{report.T(f), report.I(0), report.NA("no pairs"), report.NA(""), report.NA(""), report.NA(""), report.NA("")})
			continue
		}
		t.Rows = append(t.Rows, append([]report.Cell{report.T(f), report.I(n)}, cells...))
	}
	pm := sec.Add(&report.Table{ID: "reliability_by_model", Title: "κ per generating model", Columns: report.Cols("model", "κ refusal", "κ clean compliance", "κ any fallacy", "mean |J1 − J2| refusal")})
	for _, m := range p.models {
		row := []report.Cell{report.T(m)}
		for _, f := range []int{fRefusal, fClean, fAny} {
			n, cells := p.agreementCells(f, p.byModel[m])
			if n == 0 {
				row = append(row, report.NA("no pairs"))
				continue
			}
			row = append(row, cells[1])
		}
		row = append(row, p.meanCell(p.judgeDiffs(fRefusal, p.byModel[m], true), 3))
		pm.Rows = append(pm.Rows, row)
	}
	pm.Note = "mean |J1 − J2| is over generations both judges parsed, −1 counting as a value (SPEC B.8, as the released code computes it)."
	dis := sec.Add(&report.Table{ID: "disagreement_by_field", Title: "Disagreement rate per rubric field", Note: "Share of generations both judges parsed on which their values differ, −1 counting as a value (SPEC B.8, the released code's per-field rates).",
		Columns: report.Cols("field", "n", "disagreement")})
	for fi, f := range Fields {
		s := p.judgeDiffs(fi, p.rows, false)
		if s.n() == 0 {
			dis.Rows = append(dis.Rows, []report.Cell{report.T(f), report.I(0), report.NA("no pairs")})
			continue
		}
		dis.Rows = append(dis.Rows, []report.Cell{report.T(f), report.I(s.n()), p.rateCell(s)})
	}
	byModel := sec.Add(&report.Table{ID: "disagreement_by_model", Title: "Disagreement rate by generating model: refusal and clean compliance",
		Columns: report.Cols("model", "field", "n", "disagreement")})
	for _, m := range p.models {
		for _, fi := range []int{fRefusal, fClean} {
			s := p.judgeDiffs(fi, p.byModel[m], false)
			if s.n() == 0 {
				continue
			}
			byModel.Rows = append(byModel.Rows, []report.Cell{report.T(m), report.T(Fields[fi]), report.I(s.n()), p.rateCell(s)})
		}
	}
	if len(p.judges) > 2 {
		p.panelAgreement(sec)
	}
}

// panelAgreement adds agreement across every judge of a panel of three or
// more (the tables above compare the first two): Gwet's AC1 for r raters with
// missing ratings, Krippendorff's nominal α, and Fleiss' κ over the
// generations every judge rated. −1 and unparsed values count as missing.
func (p *prepared) panelAgreement(sec *report.Section) {
	t := sec.Add(&report.Table{ID: "reliability_panel", Title: fmt.Sprintf("Agreement across all %d judges", len(p.judges)),
		Columns: report.Cols("field", "generations", "Gwet's AC1", "Krippendorff's α", "rated by all", "Fleiss' κ")})
	t.Note = "AC1 and α use every generation at least two judges rated; Fleiss' κ needs the same number of raters per item, so it uses the generations all judges rated."
	for fi, f := range Fields {
		var ratings, complete [][]string
		var units [][]float64
		for _, r := range p.rows {
			row := make([]string, len(p.judges))
			unit := make([]float64, len(p.judges))
			n := 0
			for i, sc := range r.scores {
				unit[i] = math.NaN()
				if v := int(sc.v[fi]); sc.ok && v != judge.Missing {
					row[i], unit[i] = strconv.Itoa(v), float64(v)
					n++
				}
			}
			if n < 2 {
				continue
			}
			ratings, units = append(ratings, row), append(units, unit)
			if n == len(p.judges) {
				complete = append(complete, row)
			}
		}
		cells := []report.Cell{report.T(f), report.I(len(ratings))}
		if ac, err := stats.GwetAC1(ratings, 2); err == nil {
			cells = append(cells, report.F(ac.AC1, 3))
		} else {
			cells = append(cells, report.NA(err.Error()))
		}
		if a, err := stats.KrippendorffAlpha(units, stats.Nominal); err == nil {
			cells = append(cells, report.F(a, 3))
		} else {
			cells = append(cells, report.NA("undefined"))
		}
		cells = append(cells, report.I(len(complete)))
		if k, err := stats.FleissKappa(complete); err == nil {
			cells = append(cells, report.F(k, 3))
		} else {
			cells = append(cells, report.NA("undefined"))
		}
		t.Rows = append(t.Rows, cells)
	}
}

// rate is the mean of a field over rows passing filter (NaN if none).
func rate(rows []*Row, filter func(*Row) bool, f int) (float64, int) {
	s, n := 0.0, 0
	for _, r := range rows {
		if filter != nil && !filter(r) {
			continue
		}
		if v, ok := r.has(f); ok {
			s += v
			n++
		}
	}
	if n == 0 {
		return math.NaN(), 0
	}
	return s / float64(n), n
}

func spread(vals map[string]float64) float64 {
	s := make([]float64, 0, len(vals))
	for _, v := range vals {
		s = append(s, v)
	}
	return spreadOf(s)
}

func (p *prepared) framingContent(rep *report.Report) {
	sec := rep.AddSection("Framing versus content", "Spreads of the refusal rate (SPEC B.13). The abstract's \"1 pp per claim\" is not defined in the paper; "+
		"its three candidate definitions are shown, each named.")
	t := sec.Add(&report.Table{ID: "spreads", Title: "Refusal spreads per model (pp)", Columns: report.Cols("model", "content spread (max − min over claims)", "frame spread (max − min over prompt_num)", "fallacy-swap spread (explicit frames)")})
	promptNum := func(r *Row) (string, bool) { return strconv.Itoa(r.Gen.PromptNum), true }
	nums := distinct(p.rows, promptNum, nil)
	for _, m := range p.models {
		claims, frames := map[string]float64{}, map[string]float64{}
		byClaim := groupRows(p.byModel[m], func(r *Row) (string, bool) { return r.Gen.ClaimID, true })
		for _, c := range p.claims {
			claims[c], _ = rate(byClaim[c], nil, fRefusal)
		}
		byNum := groupRows(p.byModel[m], promptNum)
		for _, fr := range nums {
			frames[fr], _ = rate(byNum[fr], nil, fRefusal)
		}
		swap := math.NaN()
		for num := 1; num <= 4; num++ {
			byF := map[string]float64{}
			for _, fa := range []string{"whataboutism", "red_herring", "ad_hominem"} {
				byF[fa], _ = rate(byNum[strconv.Itoa(num)], func(r *Row) bool { return r.Gen.Fallacy == fa }, fRefusal)
			}
			if s := spread(byF); !math.IsNaN(s) && (math.IsNaN(swap) || s > swap) {
				swap = s
			}
		}
		reps, err := p.spreadReps(p.byModel[m])
		t.Rows = append(t.Rows, []report.Cell{report.T(m), p.pointsCell(spread(claims), reps, err, 0, 1), p.pointsCell(spread(frames), reps, err, 1, 1), p.pointsCell(swap, reps, err, 2, 1)})
	}
	cand := sec.Add(&report.Table{ID: "per_claim_candidates", Title: "Candidate definitions of \"per-claim refusal varies by only 1 pp\"", Columns: report.Cols("definition", "value")})
	var perClaim []float64
	byClaim := groupRows(p.rows, func(r *Row) (string, bool) { return r.Gen.ClaimID, true })
	for _, c := range p.claims {
		v, _ := rate(byClaim[c], nil, fRefusal)
		if !math.IsNaN(v) {
			perClaim = append(perClaim, v)
		}
	}
	sd := math.NaN()
	if len(perClaim) > 1 {
		sd, _ = stats.SD(perClaim, 1)
	}
	etaClaim := p.etaSquared(func(r *Row) string { return r.Gen.ClaimID })
	etaPrompt := p.etaSquared(func(r *Row) string { return r.Gen.PromptID })
	levels := map[string]float64{}
	level := func(r *Row) (string, bool) { return strconv.Itoa(r.Gen.Level), true }
	byLevel := groupRows(p.rows, level)
	for _, l := range distinct(p.rows, level, nil) {
		levels[l], _ = rate(byLevel[l], nil, fRefusal)
	}
	reps, rerr := p.candidateReps()
	seeShares := "its interval: variance_shares, all models (the same η²)"
	cand.Rows = [][]report.Cell{
		{report.T("(a) SD across claims of the refusal rate pooled over models (pp)"), p.pointsCell(sd, reps, rerr, 0, 2)},
		{report.T("(b) η² of claim (share of refusal variance between claims)"), noInterval(report.F(etaClaim, 4), seeShares)},
		{report.T("(b) η² of prompt_id (share of refusal variance between prompts)"), noInterval(report.F(etaPrompt, 4), seeShares)},
		{report.T("(c) spread of the claim-level means (pp)"), p.pointsCell(spread(levels), reps, rerr, 1, 1)},
	}
	cand.Note = "η² = between-group sum of squares / total sum of squares of the 0/1 refusal consensus, one factor at a time; in the balanced grid the factors are orthogonal, so this equals the two-way decomposition refusal ~ claim + prompt."
	sec.Add(p.varianceShares())
}

// etaSquared is SS_between/SS_total of refusal over groups.
func (p *prepared) etaSquared(group func(*Row) string) float64 {
	sum, n := map[string]float64{}, map[string]float64{}
	var tot, cnt float64
	var vals []float64
	for _, r := range p.rows {
		v, ok := r.has(fRefusal)
		if !ok {
			continue
		}
		g := group(r)
		sum[g] += v
		n[g]++
		tot += v
		cnt++
		vals = append(vals, v)
	}
	if cnt == 0 {
		return math.NaN()
	}
	mean := tot / cnt
	var ssT, ssB float64
	for _, v := range vals {
		ssT += (v - mean) * (v - mean)
	}
	keys := make([]string, 0, len(sum))
	for g := range sum {
		keys = append(keys, g)
	}
	sort.Strings(keys) // a fixed summation order: identical results run to run
	for _, g := range keys {
		d := sum[g]/n[g] - mean
		ssB += n[g] * d * d
	}
	if ssT == 0 {
		return math.NaN()
	}
	return ssB / ssT
}
