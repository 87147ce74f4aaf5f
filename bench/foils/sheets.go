package foils

import (
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/fallacylab/fallacylab/corpus"

	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
)

// Codes of the native-class coding sheet (SPEC C.8): A = a valid argument in
// a fallacy's scheme, B = another argument, N = not an argument.
var Codes = []string{"A", "B", "N"}

// SheetHeader is the coding sheet's header.
var SheetHeader = []string{"item_id", "corpus", "stratum", "context", "text", "code_1", "code_2", "resolved"}

// SampleNone draws n items of the "none" class, stratified by source file
// (proportional allocation, at least one per stratum while n allows), in a
// seeded random order.
func SampleNone(items []Item, n int, seed uint64) []Item {
	strata := map[string][]Item{}
	total := 0
	for _, it := range items {
		if it.Gold == None {
			strata[it.Source] = append(strata[it.Source], it)
			total++
		}
	}
	if total == 0 || n <= 0 {
		return nil
	}
	n = min(n, total)
	keys := sortedKeys(strata)
	rng := rand.New(rand.NewPCG(seed, 11))
	// Proportional allocation by largest remainder (Hamilton's method): the
	// floor of each stratum's share, then one more to the largest remainders.
	alloc := map[string]int{}
	type rem struct {
		k string
		r float64
	}
	var rems []rem
	given := 0
	for _, k := range keys {
		exact := float64(n) * float64(len(strata[k])) / float64(total)
		alloc[k] = int(exact)
		given += alloc[k]
		rems = append(rems, rem{k, exact - float64(alloc[k])})
	}
	sort.SliceStable(rems, func(i, j int) bool { return rems[i].r > rems[j].r })
	for i := 0; given < n; i++ {
		alloc[rems[i%len(rems)].k]++
		given++
	}
	var out []Item
	for _, k := range sortedKeys(strata) {
		list := append([]Item(nil), strata[k]...)
		sort.Slice(list, func(i, j int) bool { return list[i].ID < list[j].ID })
		rng.Shuffle(len(list), func(i, j int) { list[i], list[j] = list[j], list[i] })
		out = append(out, list[:alloc[k]]...)
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// SheetRows renders the sample as coding-sheet rows (header first).
func SheetRows(sample []Item) [][]string {
	rows := [][]string{SheetHeader}
	for _, it := range sample {
		rows = append(rows, []string{it.ID, it.Corpus, it.Source, it.Context, it.Text, "", "", ""})
	}
	return rows
}

// CodedItem is one row of a completed sheet.
type CodedItem struct {
	ID, Corpus, Code1, Code2, Resolved string
}

// ReadSheet reads a completed coding sheet: codes A, B or N (case-insensitive);
// an empty resolved code is filled from agreeing annotators, otherwise it
// defaults to non-A (SPEC C.8) and is counted as unresolved.
func ReadSheet(r io.Reader, name string) ([]CodedItem, error) {
	pr := corpus.NewPandasReader(r, ',')
	hdr, _, err := pr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", name, err)
	}
	col := map[string]int{}
	for i, h := range hdr {
		col[strings.TrimSpace(h)] = i
	}
	for _, c := range []string{"item_id", "corpus", "code_1", "code_2", "resolved"} {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("%s: header has no %q column: make a sheet with `study create --kind foils-native --sheet FILE`", name, c)
		}
	}
	var out []CodedItem
	err = pr.Rows(name, len(hdr), func(rec []string, line int) error {
		c := CodedItem{ID: rec[col["item_id"]], Corpus: rec[col["corpus"]]}
		for _, f := range []struct {
			name string
			dst  *string
			opt  bool
		}{{"code_1", &c.Code1, false}, {"code_2", &c.Code2, false}, {"resolved", &c.Resolved, true}} {
			v := strings.ToUpper(strings.TrimSpace(rec[col[f.name]]))
			if v == "" && f.opt {
				continue
			}
			if v != "A" && v != "B" && v != "N" {
				return corpus.LineErr(name, line, "field %s: %q is not A, B or N", f.name, rec[col[f.name]])
			}
			*f.dst = v
		}
		out = append(out, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no coded rows", name)
	}
	return out, nil
}

// SheetReport computes per-corpus A-rates (Wilson CIs), and the annotators'
// raw agreement, three-way Cohen's κ, Gwet's AC1 (Q = 3) and positive
// specific agreement on A (SPEC C.8).
func SheetReport(items []CodedItem) *report.Report {
	rep := &report.Report{Title: "Native-class coding", Benchmark: Definition.Name}
	sec := rep.AddSection("A-rate", "A = a valid argument in a fallacy's scheme. Final codes: the resolved column; without one, agreeing annotators' code; otherwise non-A.")
	t := sec.Add(&report.Table{ID: "a_rate", Title: "Scheme-matched valid arguments in the native \"none\" class", Columns: report.Cols("corpus", "items", "unresolved", "A", "B", "N", "A-rate")})
	byCorpus := map[string][]CodedItem{}
	for _, it := range items {
		byCorpus[it.Corpus] = append(byCorpus[it.Corpus], it)
	}
	for _, c := range sortedKeys(byCorpus) {
		counts := map[string]int{}
		unresolved := 0
		for _, it := range byCorpus[c] {
			final := it.Resolved
			if final == "" {
				if it.Code1 == it.Code2 {
					final = it.Code1
				} else {
					unresolved++
					final = "B" // defaults to non-A
					if it.Code1 == "N" || it.Code2 == "N" {
						final = "N"
					}
				}
			}
			counts[final]++
		}
		n := len(byCorpus[c])
		p, _ := stats.Prop(counts["A"], n, 0.95, stats.Wilson)
		t.Rows = append(t.Rows, []report.Cell{report.T(c), report.I(n), report.I(unresolved), report.I(counts["A"]), report.I(counts["B"]), report.I(counts["N"]), report.PCI(p.Estimate, p.Lo, p.Hi, n)})
	}
	var a, b []string
	for _, it := range items {
		a, b = append(a, it.Code1), append(b, it.Code2)
	}
	ag := rep.AddSection("Agreement", "Between the two annotators' independent codes.")
	at := ag.Add(&report.Table{ID: "agreement", Title: "Agreement", Columns: report.Cols("measure", "value")})
	raw, _ := stats.RawAgreement(a, b)
	k, _ := stats.CohenKappa(a, b)
	pairs, _ := stats.Pairs(a, b)
	ac, _ := stats.GwetAC1(pairs, 3)
	at.Rows = [][]report.Cell{
		{report.T("items"), report.I(len(items))},
		{report.T("raw agreement"), report.P(raw.Raw, len(items))},
		{report.T("Cohen's κ (three codes)"), report.F(k.Kappa, 3)},
		{report.T("Gwet's AC1 (Q = 3)"), report.F(ac.AC1, 3)},
		{report.T("positive specific agreement on A"), report.F(raw.Specific["A"], 3)},
	}
	return rep
}
